import Foundation
import GeoSpendTestSupport
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// Map exports: invariants on generated data against brute force over the generated rows,
/// golden files for a small fixture, and outside readers (GDAL, geojson-validator,
/// geojson-pydantic, shapely, geopandas) on every layer.
@Suite struct ExportTests {
    static let eur = try! Currency(code: "EUR")

    /// Helsinki places and 3,000 generated expenses of 4 users (several currencies).
    final class Generated {
        let scratch = Scratch()
        let store: SpatiaLiteStore
        let all: [Expense]
        init(seed: UInt64 = 11) async throws {
            store = try scratch.store()
            let places = try Importer.readStores(from: Repo.path("Data/helsinki-places.geojson"))
            var all: [Expense] = []
            SyntheticData(places: places, scale: .city).generateExpenses(users: 4, count: 3000, seed: seed) { all.append($0) }
            _ = try await Importer.importStores(from: Repo.path("Data/helsinki-places.geojson"), into: store)
            _ = try store.writeHere { w in for e in all { _ = try w.insert(e) } }
            self.all = all
        }
        /// The geotagged EUR expenses a filter selects, by brute force.
        func expected(_ filter: ExpenseFilter) -> [Expense] {
            all.filter { filter.matches($0) && $0.location != nil && $0.amount.currency == ExportTests.eur }
        }
    }

    static func export(_ layer: MapLayer, _ request: MapExportRequest, _ store: SpatiaLiteStore) async throws -> [String: Any] {
        let sink = ByteSink()
        try await MapExport.geoJSON(layer, request, store: store, to: sink)
        return try #require(try JSONSerialization.jsonObject(with: Data(sink.bytes)) as? [String: Any])
    }

    static func features(_ doc: [String: Any]) -> [[String: Any]] { doc["features"] as? [[String: Any]] ?? [] }
    static func properties(_ f: [String: Any]) -> [String: Any] { f["properties"] as? [String: Any] ?? [:] }
    /// An amount read back as minor units (2-digit currencies); `Int64.min` when missing.
    static func minor(_ value: Any?) -> Int64 { (value as? Double).map { Int64(($0 * 100).rounded()) } ?? .min }

    /// Even-odd point-in-ring test in degrees (rings are small, edges straight in the output).
    static func contains(_ ring: [[Double]], _ lon: Double, _ lat: Double) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let (xi, yi, xj, yj) = (ring[i][0], ring[i][1], ring[j][0], ring[j][1])
            if (yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi { inside.toggle() }
            j = i
        }
        return inside
    }

    @Test(arguments: [MetricGrid.Shape.hex, .square])
    func gridCellsPartitionTheSelectionExactly(shape: MetricGrid.Shape) async throws {
        let g = try await Generated()
        let filter = ExpenseFilter(userID: nil, kinds: [.expense], currency: Self.eur)
        let doc = try await Self.export(.grid(shape, cellMeters: 250, metric: .total), MapExportRequest(filter: filter), g.store)
        let expected = g.expected(filter)
        let cells = Self.features(doc)
        #expect(cells.count > 10)
        // Counts and exact totals add up to the brute-force selection.
        #expect(cells.reduce(0) { $0 + (Self.properties($1)["count"] as! Int) } == expected.count)
        let total = cells.reduce(Int64(0)) { $0 + Self.minor(Self.properties($1)["total"]) }
        #expect(total == expected.reduce(0) { $0 + $1.amount.minorUnits })
        let meta = try #require(doc["geospend"] as? [String: Any])
        #expect(Self.minor(meta["total"]) == total)
        #expect(meta["features"] as? Int == cells.count)
        // Every expense lies in exactly one exported polygon, and that cell counts it.
        var countedByPolygon = [Int](repeating: 0, count: cells.count)
        var rings: [[[Double]]] = []
        for cell in cells {
            let geometry = cell["geometry"] as! [String: Any]
            #expect(geometry["type"] as? String == "Polygon")
            rings.append((geometry["coordinates"] as! [[[Double]]])[0])
        }
        for e in expected {
            let c = e.location!.coordinate
            let holders = rings.indices.filter { Self.contains(rings[$0], c.longitude, c.latitude) }
            #expect(holders.count == 1, "\(e.id) at \(c) lies in \(holders.count) cells")
            if let k = holders.first { countedByPolygon[k] += 1 }
        }
        for (k, cell) in cells.enumerated() { #expect(Self.properties(cell)["count"] as? Int == countedByPolygon[k]) }
        // Weights: 0–1, the largest total is 1; ids are unique and name the grid.
        let weights = cells.map { Self.properties($0)["weight"] as! Double }
        #expect(weights.allSatisfy { (0...1).contains($0) } && weights.max() == 1)
        #expect(Set(cells.map { $0["id"] as! String }).count == cells.count)
        #expect(cells.allSatisfy { ($0["id"] as! String).hasPrefix("\(shape.rawValue)-250m@60,25:") })
    }

    @Test func suppressionLeavesOutSmallCellsAndSaysHowMany() async throws {
        let g = try await Generated()
        let filter = ExpenseFilter(userID: nil, kinds: [.expense], currency: Self.eur)
        let layer = MapLayer.grid(.square, cellMeters: 150, metric: .count)
        let full = await Self.features(try Self.export(layer, MapExportRequest(filter: filter), g.store))
        let counts = full.map { Self.properties($0)["count"] as! Int }
        let doc = try await Self.export(layer, MapExportRequest(filter: filter, minCount: 5), g.store)
        let kept = Self.features(doc)
        #expect(kept.allSatisfy { (Self.properties($0)["count"] as! Int) >= 5 })
        #expect(kept.count == counts.filter { $0 >= 5 }.count && kept.count < full.count)
        let suppression = (doc["geospend"] as! [String: Any])["suppression"] as! [String: Any]
        #expect(suppression["suppressed_features"] as? Int == full.count - kept.count)
        #expect(suppression["min_count"] as? Int == 5)

        // Distinct users: with 4 users, --min-users 4 keeps only cells all four spent in.
        let byUsers = await Self.features(try Self.export(layer, MapExportRequest(filter: filter, minUsers: 4), g.store))
        for cell in byUsers {
            let id = cell["id"] as! String
            let grid = MetricGrid(shape: .square, size: 150, projection: EqualAreaProjection(origin: Coordinate(uncheckedLatitude: 60, longitude: 25)))
            let users = Set(g.expected(filter).filter { e in
                grid.id(grid.cell(latitude: e.location!.coordinate.latitude, longitude: e.location!.coordinate.longitude)) == id
            }.map(\.userID))
            #expect(users.count == 4)
        }
        #expect(!byUsers.isEmpty && byUsers.count < full.count)
    }

    @Test func pointsAreLonLatWeightedAndComplete() async throws {
        let g = try await Generated()
        let filter = ExpenseFilter(userID: "user2", kinds: [.expense])
        let doc = try await Self.export(.points, MapExportRequest(filter: filter), g.store)
        let expected = g.expected(filter)  // EUR is the most common currency, chosen by default
        let points = Self.features(doc)
        #expect(points.count == expected.count)
        let byID = Dictionary(uniqueKeysWithValues: expected.map { ($0.id, $0) })
        for f in points {
            let e = try #require(byID[f["id"] as! String])
            let position = (f["geometry"] as! [String: Any])["coordinates"] as! [Double]
            // [lon, lat]: Helsinki's longitude (~24.9) first, latitude (~60.2) second.
            #expect(abs(position[0] - e.location!.coordinate.longitude) <= 5e-7 + 1e-12)
            #expect(abs(position[1] - e.location!.coordinate.latitude) <= 5e-7 + 1e-12)
            let p = Self.properties(f)
            #expect(Self.minor(p["amount"]) == e.amount.minorUnits)
            #expect(p["occurred_at"] as? String == e.occurredAt.text)
            #expect(p["currency"] as? String == "EUR")
        }
        let weights = points.map { Self.properties($0)["weight"] as! Double }
        #expect(weights.allSatisfy { (0...1).contains($0) } && weights.max() == 1)
        let meta = doc["geospend"] as! [String: Any]
        #expect((meta["currencies_left_out"] as! [String]).count == 4)  // SEK, USD, JPY, KWD
        #expect(meta["crs"] == nil && doc["crs"] == nil)
    }

    @Test func densityIntegratesToTheLayerTotal() async throws {
        let g = try await Generated()
        let filter = ExpenseFilter(userID: "user1", kinds: [.expense], currency: Self.eur)
        let doc = try await Self.export(.density(bandwidthMeters: 300, cellMeters: 25), MapExportRequest(filter: filter), g.store)
        let cells = Self.features(doc)
        // Σ density (per km²) × cell area (km²) ≈ total: the kernel integrates to one.
        let integral = cells.reduce(0.0) { $0 + (Self.properties($1)["density"] as! Double) * 0.025 * 0.025 }
        let total = Double(g.expected(filter).reduce(0) { $0 + $1.amount.minorUnits }) / 100
        #expect(abs(integral / total - 1) < 0.002, "integral \(integral) vs total \(total)")
        #expect(cells.map { Self.properties($0)["weight"] as! Double }.max() == 1)
    }

    @Test func placesMatchInsightsForAUserAndStoresAcrossUsers() async throws {
        let g = try await Generated()
        let user = ExpenseFilter(userID: "user3", kinds: [.expense])
        let places = await Self.features(try Self.export(.places, MapExportRequest(filter: user), g.store))
        let insights = try await LocationInsights.compute(InsightsRequest(userID: "user3"), store: g.store)
        let eurPlaces = insights.places.filter { $0.currency == Self.eur }
        #expect(places.count == eurPlaces.count)
        for (f, p) in zip(places, eurPlaces.sorted { ($1.total.minorUnits, $0.place.id) < ($0.total.minorUnits, $1.place.id) }) {
            let props = Self.properties(f)
            #expect(props["place_id"] as? String == p.place.id)
            #expect(Self.minor(props["total"]) == p.total.minorUnits && props["count"] as? Int == p.count)
            #expect(Self.minor(props["median"]) == p.median.minorUnits)
            #expect(["small", "medium", "large"].contains(props["marker-size"] as? String ?? ""))
            #expect((props["marker-color"] as? String)?.hasPrefix("#") == true)
        }

        let everyone = ExpenseFilter(userID: nil, kinds: [.expense], currency: Self.eur)
        let stores = await Self.features(try Self.export(.places, MapExportRequest(filter: everyone, minUsers: 2), g.store))
        #expect(!stores.isEmpty)
        for f in stores {
            let id = f["id"] as! String
            let rows = g.all.filter { everyone.matches($0) && $0.storeID == id }
            let props = Self.properties(f)
            #expect(Self.minor(props["total"]) == rows.reduce(0) { $0 + $1.amount.minorUnits })
            #expect(props["users"] as? Int == Set(rows.map(\.userID)).count && (props["users"] as! Int) >= 2)
        }
    }

    @Test func leafletHeatIsLatitudeFirstAndCSVIsKeplerReady() async throws {
        let g = try await Generated()
        let request = MapExportRequest(filter: ExpenseFilter(userID: "user1", kinds: [.expense]))
        let sink = ByteSink()
        try await MapExport.leafletHeat(request, store: g.store, to: sink)
        let triples = try #require(try JSONSerialization.jsonObject(with: Data(sink.bytes)) as? [[Double]])
        #expect(triples.count == g.expected(request.filter).count)
        #expect(triples.allSatisfy { $0.count == 3 && $0[0] > 59 && $0[0] < 61 && $0[1] > 24 && $0[1] < 26 && (0...1).contains($0[2]) })

        let csv = ByteSink()
        try await MapExport.pointsCSV(request, store: g.store, to: csv)
        let lines = String(decoding: csv.bytes, as: UTF8.self).split(separator: "\n")
        #expect(lines.first == "id,latitude,longitude,amount,currency,kind,occurred_at,category,merchant,store_id,weight,position_source")
        #expect(lines.dropFirst().allSatisfy { $0.hasSuffix(",device") }, "generated rows carry their positions")
        #expect(lines.count == triples.count + 1)
    }

    // MARK: Golden files and outside readers

    /// A small fixture with hand-picked rows: two users, a store, two currencies, a formula-like
    /// category, a bare date, a point on the far side of ±180° (Fiji/Samoa) in its own currency,
    /// and merchants: one at the store, one with no store whose text needs escaping in JSON and
    /// CSV (quotes, a backslash, markup, a formula-like start).
    static let goldenRows = """
        id,user,kind,amount,currency,occurred_at,category,lat,lon,store_id,merchant
        g1,ann,expense,4.50,EUR,2025-03-01T08:00:00+02:00,Food,60.1700,24.9400,S1,Cafe One
        g2,ann,expense,12.25,EUR,2025-03-02T18:30:00+02:00,=Shopping,60.1712,24.9431,,\(goldenMerchantCSV)
        g3,bob,expense,3.10,EUR,2025-03-03T09:15:00.250+02:00,Food,60.1699,24.9398,S1,
        g4,bob,expense,40.00,EUR,2025-03-04,Health,60.1850,24.9500,,
        g5,ann,expense,7.77,EUR,2025-03-05T12:00:00Z,Food,60.1701,24.9405,,
        f1,ann,expense,15.00,FJD,2025-03-06T12:00:00+12:00,Food,-16.5000,179.9990,,
        f2,ann,expense,25.00,FJD,2025-03-07T12:00:00+12:00,Food,-16.5000,-179.9990,,

        """

    /// g2's merchant as stored, and as the fixture's CSV cell quotes it.
    static let goldenMerchant = #"+Kiosk "Ä" \ <b>& Co"#
    static let goldenMerchantCSV = "\"" + goldenMerchant.replacingOccurrences(of: "\"", with: "\"\"") + "\""

    static func goldenStore(_ scratch: Scratch) async throws -> SpatiaLiteStore {
        let store = try scratch.store()
        _ = try await Importer.importStores(from: scratch.file("s.csv", "id,name,kind,lat,lon\nS1,Cafe One,amenity:cafe,60.17,24.94\n"), into: store)
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", Self.goldenRows), into: store)
        return store
    }

    static let goldenLayers: [(String, MapLayer, ExpenseFilter)] = [
        ("points.geojson", .points, ExpenseFilter(userID: nil, kinds: [.expense], currency: eur)),
        ("hex-250m.geojson", .grid(.hex, cellMeters: 250, metric: .total), ExpenseFilter(userID: nil, kinds: [.expense], currency: eur)),
        ("square-100m.geojson", .grid(.square, cellMeters: 100, metric: .average), ExpenseFilter(userID: "ann", kinds: [.expense], currency: eur)),
        ("density.geojson", .density(bandwidthMeters: 200, cellMeters: 100), ExpenseFilter(userID: "ann", kinds: [.expense], currency: eur)),
        ("places.geojson", .places, ExpenseFilter(userID: "ann", kinds: [.expense], currency: eur)),
        ("antimeridian-hex.geojson", .grid(.hex, cellMeters: 1000, metric: .count),
         ExpenseFilter(userID: "ann", kinds: [.expense], currency: try! Currency(code: "FJD"))),
    ]

    /// Re-record with `GEOSPEND_RECORD_GOLDEN=1 swift test --filter goldenFiles`: each file that
    /// changed is rewritten and reported as an issue (record mode never passes over a change),
    /// so review `git diff Tests/Fixtures/golden` and run again without the variable.
    @Test func goldenFiles() async throws {
        let scratch = Scratch()
        let store = try await Self.goldenStore(scratch)
        let record = ProcessInfo.processInfo.environment["GEOSPEND_RECORD_GOLDEN"] == "1"
        for (name, layer, filter) in Self.goldenLayers {
            let sink = ByteSink()
            try await MapExport.geoJSON(layer, MapExportRequest(filter: filter, generatedAt: "2026-01-01T00:00:00Z"), store: store, to: sink)
            let path = Repo.path("Tests/Fixtures/golden/\(name)")
            let golden = FileManager.default.contents(atPath: path)  // before any re-recording
            if record && golden != Data(sink.bytes) {
                try FileManager.default.createDirectory(atPath: Repo.path("Tests/Fixtures/golden"), withIntermediateDirectories: true)
                try #require(FileManager.default.createFile(atPath: path, contents: Data(sink.bytes)), "cannot write \(path)")
                Issue.record("re-recorded \(name) (\(golden == nil ? "new" : "it changed")): review git diff Tests/Fixtures/golden, then run without GEOSPEND_RECORD_GOLDEN")
                continue
            }
            let expected = try #require(golden, "no golden file \(path): record it with GEOSPEND_RECORD_GOLDEN=1")
            #expect(String(decoding: sink.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "\(name) differs from its golden file")
        }
    }

    @Test func antimeridianCellIsCutAndKeepsBothPoints() async throws {
        let scratch = Scratch()
        let store = try await Self.goldenStore(scratch)
        let filter = ExpenseFilter(userID: "ann", currency: try Currency(code: "FJD"))
        let cells = await Self.features(try Self.export(.grid(.hex, cellMeters: 1000, metric: .count), MapExportRequest(filter: filter), store))
        // 179.999° and -179.999° are 238 m apart: one hexagon, cut into two pieces.
        #expect(cells.count == 1)
        let geometry = cells[0]["geometry"] as! [String: Any]
        #expect(geometry["type"] as? String == "MultiPolygon")
        #expect(Self.properties(cells[0])["count"] as? Int == 2)
        #expect(Self.properties(cells[0])["total"] as? Double == 40)
    }

    /// The points layer names each expense's merchant as imported, also where no store was
    /// assigned (g2), read back by outside readers: GDAL's `ogrinfo` from the GeoJSON and from
    /// the CSV (the CSV cell defused with a leading `'`, as every text cell), and
    /// `geopandas.read_file`; an expense without a merchant has none (null, an empty cell).
    @Test func pointsNameTheMerchantForOutsideReaders() async throws {
        let scratch = Scratch()
        let store = try await Self.goldenStore(scratch)
        let request = MapExportRequest(filter: ExpenseFilter(userID: "ann", kinds: [.expense], currency: Self.eur))
        let (json, csv) = (scratch.path("points.geojson"), scratch.path("points.csv"))
        let (jsonSink, csvSink) = (ByteSink(), ByteSink())
        try await MapExport.geoJSON(.points, request, store: store, to: jsonSink)
        try await MapExport.pointsCSV(request, store: store, to: csvSink)
        _ = FileManager.default.createFile(atPath: json, contents: Data(jsonSink.bytes))
        _ = FileManager.default.createFile(atPath: csv, contents: Data(csvSink.bytes))
        for (path, merchant) in [(json, Self.goldenMerchant), (csv, "'" + Self.goldenMerchant)] {
            let info = try runProgram("/usr/bin/ogrinfo", ["-ro", "-al", "-q", path, "-where", "id = 'g2'"] + (path == csv ? ["-oo", "X_POSSIBLE_NAMES=longitude", "-oo", "Y_POSSIBLE_NAMES=latitude"] : []))
            #expect(info.status == 0 && info.err.isEmpty, "\(info.err)")
            #expect(info.out.contains("merchant (String) = \(merchant)\n"), "\(info.out)")
        }
        let python = Repo.path(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python), "run `make venv` (make test does) to install the readers")
        let script = """
            import sys, json, geopandas
            f = geopandas.read_file(sys.argv[1]).set_index("id")
            print(json.dumps({i: (None if m is None or m != m else m) for i, m in f["merchant"].items()}, sort_keys=True))
            """
        let py = try runProgram(python, ["-c", script, json])
        #expect(py.status == 0, "\(py.err)")
        let merchants = try #require(try JSONSerialization.jsonObject(with: Data(py.out.utf8)) as? [String: Any])
        #expect(merchants["g1"] as? String == "Cafe One")
        #expect(merchants["g2"] as? String == Self.goldenMerchant)
        #expect(merchants["g5"] is NSNull)
    }

    /// Every layer of generated data through GDAL and the Python readers (make test installs
    /// them into .venv; see Tests/validators).
    @Test func outsideReadersAcceptEveryLayer() async throws {
        let g = try await Generated()
        let python = Repo.path(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python), "run `make venv` (make test does) to install the readers")
        let everyone = ExpenseFilter(userID: nil, kinds: [.expense], currency: Self.eur)
        let layers: [(String, MapLayer, ExpenseFilter, String)] = [
            ("points", .points, ExpenseFilter(userID: "user1", kinds: [.expense]), "Point"),
            ("hex", .grid(.hex, cellMeters: 250, metric: .total), everyone, "Polygon"),
            ("square", .grid(.square, cellMeters: 500, metric: .count), everyone, "Polygon"),
            ("density", .density(bandwidthMeters: 300, cellMeters: 50), ExpenseFilter(userID: "user1", kinds: [.expense]), "Polygon"),
            ("places", .places, ExpenseFilter(userID: "user1", kinds: [.expense]), "Point"),
            ("stores", .places, everyone, "Point"),
        ]
        var files: [String] = []
        for (name, layer, filter, geometry) in layers {
            let path = g.scratch.path("\(name).geojson")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let sink = ByteSink(descriptor: fd)
            let summary = try await MapExport.geoJSON(layer, MapExportRequest(filter: filter), store: g.store, to: sink)
            try sink.flush()
            close(fd)
            files.append(path)
            // GDAL: exit status stays 0 on errors, so stderr is read too (docs/MEASUREMENTS.md § GeoJSON readers).
            let info = try runProgram("/usr/bin/ogrinfo", ["-ro", "-so", "-al", "--config", "OGR_GEOMETRY_ACCEPT_UNCLOSED_RING", "NO", path])
            #expect(info.status == 0 && !info.err.contains("ERROR") && !info.err.contains("Warning"), "\(name): \(info.err)")
            #expect(info.out.contains("Feature Count: \(summary.features)\n"), "\(name): \(info.out)")
            #expect(info.out.contains("Geometry: \(geometry)\n"), "\(name): \(info.out)")
            #expect(summary.features > 0)
        }
        // The golden files too: they hold the cell cut at ±180° (a MultiPolygon).
        files += Self.goldenLayers.map { Repo.path("Tests/Fixtures/golden/\($0.0)") }
        let check = try runProgram(python, [Repo.path("Tests/validators/check_geojson.py")] + files)
        #expect(check.status == 0, "\(check.out)")
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(check.out.utf8)) as? [[String: Any]])
        #expect(reports.count == files.count)
        #expect(reports.allSatisfy { ($0["problems"] as? [Any])?.isEmpty == true })
    }
}
