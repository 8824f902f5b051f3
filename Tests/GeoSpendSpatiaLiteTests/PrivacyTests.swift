import Foundation
import GeoSpendTestSupport
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// Location privacy of shared exports, end to end through the store: suppression cannot be
/// undone by subtraction, a masked home cannot be found from the gap it leaves, noise and
/// rounding happen before writing, and the provenance records every parameter but the secrets.
@Suite struct PrivacyTests {
    typealias X = ExportTests

    /// (count, total in minor units) of each item of a layer, by feature id.
    static func figures(_ doc: [String: Any]) -> [String: (count: Int, total: Int64)] {
        var out: [String: (Int, Int64)] = [:]
        for f in X.features(doc) {
            let p = X.properties(f)
            out[f["id"] as! String] = (p["count"] as! Int, X.minor(p["total"]))
        }
        return out
    }

    static func meta(_ doc: [String: Any]) -> [String: Any] { doc["geospend"] as? [String: Any] ?? [:] }

    /// The attacker of one export knows the selection's true count and total (from anywhere) and
    /// subtracts every published item: what remains must never be exactly one suppressed item.
    static func expectNothingRecoverable(full: [String: Any], suppressed doc: [String: Any], _ label: String) -> Int {
        let all = figures(full), published = figures(doc)
        let hidden = all.filter { published[$0.key] == nil }
        let suppression = meta(doc)["suppression"] as! [String: Any]
        #expect(suppression["suppressed_features"] as? Int == hidden.count, "\(label)")
        #expect(hidden.count != 1 || all.count == 1, "\(label): exactly one item hidden")
        let remainder = (
            count: all.values.reduce(0) { $0 + $1.count } - published.values.reduce(0) { $0 + $1.count },
            total: all.values.reduce(0) { $0 + $1.total } - published.values.reduce(0) { $0 + $1.total })
        if hidden.count > 1 {
            for (id, item) in hidden {
                #expect(!(item.count == remainder.count && item.total == remainder.total), "\(label): \(id) recovered by subtraction")
            }
        }
        // The layer's own figures add up what is published, nothing more.
        #expect(meta(doc)["expenses"] as? Int == published.values.reduce(0) { $0 + $1.count }, "\(label)")
        #expect(X.minor(meta(doc)["total"]) == published.values.reduce(0) { $0 + $1.total }, "\(label)")
        // A published share must not reveal a total larger than the published one (total / share).
        let publishedTotal = Double(published.values.reduce(0) { $0 + $1.total })
        for f in X.features(doc) {
            let p = X.properties(f)
            guard let share = p["share"] as? Double, share > 0.01, hidden.count > 0 else { continue }
            let implied = Double(X.minor(p["total"])) / share
            #expect(abs(implied / publishedTotal - 1) < 1e-4, "\(label): share implies a total of \(implied) vs \(publishedTotal) published")
        }
        return suppression["complementary_suppressed"] as! Int
    }

    @Test func noSuppressedItemFollowsFromOneExport() async throws {
        let g = try await X.Generated()
        let everyone = ExpenseFilter(userID: nil, kinds: [.expense], currency: X.eur)
        var complementary = 0
        var configurations = 0
        let layers: [MapLayer] = [
            .grid(.hex, cellMeters: 150, metric: .total), .grid(.hex, cellMeters: 400, metric: .count),
            .grid(.square, cellMeters: 100, metric: .total), .grid(.square, cellMeters: 300, metric: .average), .places,
        ]
        for layer in layers {
            let full = try await X.export(layer, MapExportRequest(filter: everyone, minUsers: 1), g.store)
            for (minCount, minUsers) in [(2, 1), (3, 1), (5, 1), (9, 1), (1, 2), (1, 3), (1, 4), (4, 2)] {
                let doc = try await X.export(layer, MapExportRequest(filter: everyone, minCount: minCount, minUsers: minUsers), g.store)
                complementary += Self.expectNothingRecoverable(full: full, suppressed: doc, "\(layer) \(minCount)/\(minUsers)")
                configurations += 1
            }
        }
        for user in ["user1", "user2"] {
            let mine = ExpenseFilter(userID: user, kinds: [.expense], currency: X.eur)
            let full = try await X.export(.places, MapExportRequest(filter: mine), g.store)
            for minCount in 2...12 {
                let doc = try await X.export(.places, MapExportRequest(filter: mine, minCount: minCount), g.store)
                complementary += Self.expectNothingRecoverable(full: full, suppressed: doc, "places \(user) \(minCount)")
            }
        }
        // Density cells overlap, so only the rule itself is checked: never exactly one hidden.
        for minCount in [2, 5, 20, 60] {
            let doc = try await X.export(.density(bandwidthMeters: 200, cellMeters: 50), MapExportRequest(filter: everyone, minCount: minCount), g.store)
            let s = Self.meta(doc)["suppression"] as! [String: Any]
            #expect(s["suppressed_features"] as? Int != 1)
        }
        #expect(configurations == 40)
        #expect(complementary > 0, "no configuration needed complementary suppression: the test would not exercise it")
    }

    /// Four users pay in EUR at two stores; one user pays once in SEK, in another city. Across
    /// users with --min-users 3, no layer may tell that anybody paid in SEK: not as the layer's
    /// currency, not among the currencies left out, not through a grid origin placed by the SEK
    /// expense. Places publish no one person's expense (min, max, first and last visit), and a
    /// density surface with suppressed cells publishes no total to subtract them from.
    @Test func crossUserLayersNameNothingFewerUsersAreBehind() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importStores(
            from: scratch.file("s.csv", "id,name,lat,lon\nshop1,Shop,60.17,24.94\nshop2,Kiosk,60.18,24.95\nfar,Far,59.33,18.07\n"),
            into: store)
        var csv = "id,user,kind,amount,currency,occurred_at,category,lat,lon,store_id\n"
        for k in 0..<4 {
            csv += "e\(k),u\(k),expense,1\(k).50,EUR,2025-03-0\(k + 1)T10:00:00Z,Food,60.17,24.94,shop1\n"
            csv += "k\(k),u\(k),expense,2.\(k)0,EUR,2025-03-1\(k)T10:00:00Z,Food,60.18,24.95,shop2\n"
        }
        csv += "sek,u9,expense,99.00,SEK,2025-03-05T10:00:00Z,Clinic,59.33,18.07,far\n"
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", csv), into: store)
        let everyone = ExpenseFilter(userID: nil, kinds: [.expense])
        let layers: [MapLayer] = [.grid(.hex, cellMeters: 250, metric: .total), .density(bandwidthMeters: 300, cellMeters: 100), .places]
        for layer in layers {
            let doc = try await X.export(layer, MapExportRequest(filter: everyone, minUsers: 3), store)
            let text = String(decoding: try JSONSerialization.data(withJSONObject: doc), as: UTF8.self)
            #expect(!text.contains("SEK"), "\(layer) names SEK: \(Self.meta(doc)["currencies_left_out"] ?? "")")
            #expect(Self.meta(doc)["currency"] as? String == "EUR", "\(layer)")
            // With the threshold at 1 the SEK expense is a currency like any other: the control.
            let open = try await X.export(layer, MapExportRequest(filter: everyone, minUsers: 1), store)
            #expect((Self.meta(open)["currencies_left_out"] as? [String]) == ["SEK 1"], "\(layer)")
            // Asked for SEK by name, the layer is empty and its grid is not placed by the expense.
            var sek = everyone
            sek.currency = try Currency(code: "SEK")
            let asked = try await X.export(layer, MapExportRequest(filter: sek, minUsers: 3), store)
            #expect(X.features(asked).isEmpty && Self.meta(asked)["currency"] is NSNull, "\(layer)")
            let grid = (Self.meta(asked)["grid"] as? [String: Any])?["projection"] as? String ?? ""
            #expect(!grid.contains("lat_0=59") && !grid.contains("lon_0=18"), "\(layer): \(grid)")
        }
        let places = try await X.export(.places, MapExportRequest(filter: everyone, minUsers: 3), store)
        #expect(X.features(places).count == 2)
        for f in X.features(places) {
            let p = X.properties(f)
            for key in ["min", "max", "first_visit", "last_visit"] { #expect(p[key] == nil, "\(key) published across users") }
            #expect(p["median"] != nil && p["users"] as? Int == 4)
        }
        let mine = try await X.export(.places, MapExportRequest(filter: ExpenseFilter(userID: "u1", kinds: [.expense])), store)
        #expect(X.features(mine).allSatisfy { X.properties($0)["first_visit"] != nil && X.properties($0)["min"] != nil })
        // Density: the total only when nothing is suppressed.
        let euro = ExpenseFilter(userID: nil, kinds: [.expense], currency: X.eur)
        let whole = try await X.export(.density(bandwidthMeters: 300, cellMeters: 100), MapExportRequest(filter: euro, minUsers: 1), store)
        #expect(Self.meta(whole)["expenses"] as? Int == 8 && X.minor(Self.meta(whole)["total"]) == 4_800 + 860)
        let cut = try await X.export(.density(bandwidthMeters: 300, cellMeters: 100), MapExportRequest(filter: euro, minCount: 6), store)
        #expect((Self.meta(cut)["suppression"] as? [String: Any])?["suppressed_features"] as? Int ?? 0 > 0)
        #expect(Self.meta(cut)["expenses"] is NSNull && Self.meta(cut)["total"] is NSNull)
        // …nor in the summary the command prints ("totalling …" on stderr, found by a review).
        let summary = try await MapExport.geoJSON(.density(bandwidthMeters: 300, cellMeters: 100), MapExportRequest(filter: euro, minCount: 6), store: store, to: ByteSink())
        #expect(summary.totalMinor == nil)
    }

    /// Three hex cells of 5, 3 and 1 expenses, --min-count 2: without complementary suppression
    /// the selection's total minus the two published cells is the lone cell. With it, the cell of
    /// 3 goes too and the difference is the sum of two cells.
    @Test func theLoneSmallCellTakesTheSmallestPublishedOneWithIt() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        var csv = "id,user,kind,amount,currency,occurred_at,category,lat,lon,store_id\n"
        for (n, (lat, users)) in [(60.170, 5), (60.180, 3), (60.190, 1)].enumerated() {
            for k in 0..<users { csv += "c\(n)-\(k),u\(k),expense,\(10 + n).\(k)0,EUR,2025-03-0\(k + 1)T10:00:00Z,Food,\(lat),24.94,\n" }
        }
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", csv), into: store)
        let filter = ExpenseFilter(userID: nil, kinds: [.expense], currency: X.eur)
        let layer = MapLayer.grid(.hex, cellMeters: 250, metric: .total)
        for request in [MapExportRequest(filter: filter, minCount: 2), MapExportRequest(filter: filter, minUsers: 2)] {
            let doc = try await X.export(layer, request, store)
            let cells = X.features(doc)
            #expect(cells.count == 1 && X.properties(cells[0])["count"] as? Int == 5)
            let s = Self.meta(doc)["suppression"] as! [String: Any]
            #expect(s["suppressed_features"] as? Int == 2 && s["complementary_suppressed"] as? Int == 1)
            #expect(Self.meta(doc)["expenses"] as? Int == 5)
            _ = await Self.expectNothingRecoverable(full: try X.export(layer, MapExportRequest(filter: filter), store), suppressed: doc, "crafted")
        }
    }

    /// A lattice of expenses every 50 m over 3 × 3 km around each of 10 random homes (one user
    /// each): an attacker who knows the lattice sees exactly which points are missing.
    final class Lattice {
        static let spacing = 50.0, half = 30
        let scratch = Scratch()
        let store: SpatiaLiteStore
        var homes: [Coordinate] = []
        var points: [String: Coordinate] = [:]
        init(homes count: Int = 10) async throws {
            store = try scratch.store()
            var rng = SplitMix64(seed: 2026)
            var csv = "id,user,kind,amount,currency,occurred_at,category,lat,lon,store_id\n"
            for h in 0..<count {
                let home = Coordinate(uncheckedLatitude: 59.5 + 0.3 * Double(h) + 0.1 * rng.unit(), longitude: 23 + 4 * rng.unit())
                homes.append(home)
                for i in -Self.half...Self.half {
                    for j in -Self.half...Self.half {
                        let p = Geodesic.destination(
                            from: Geodesic.destination(from: home, azimuth: 90, distance: Double(i) * Self.spacing),
                            azimuth: 0, distance: Double(j) * Self.spacing)
                        let id = "h\(h)_\(i)_\(j)"
                        let lat = formatDecimal(p.latitude, digits: 7), lon = formatDecimal(p.longitude, digits: 7)
                        points[id] = Coordinate(uncheckedLatitude: Double(lat)!, longitude: Double(lon)!)
                        csv += "\(id),home\(h),expense,1.00,EUR,2025-03-01T10:00:00Z,Food,\(lat),\(lon),\n"
                    }
                }
            }
            _ = try await Importer.importExpenses(from: scratch.file("lattice.csv", csv), into: store)
        }
    }

    /// The attack that reversed centred masks: take the centroid of the gap. On a centred mask it
    /// lands within metres of the home (shown here, so the test can fail); on GeoSpend's masks it
    /// is never closer than R/2 (less the lattice's discretisation), no exported point lies within
    /// R of the home, and nothing beyond 3R is lost. The grid drops the same expenses.
    @Test func aMaskedHomeCannotBeFoundFromTheGap() async throws {
        let lattice = try await Lattice()
        let r = 300.0
        let key = MaskKey(k0: 0xfeed, k1: 0xbeef)
        var offsets: [Double] = []
        for (h, home) in lattice.homes.enumerated() {
            let filter = ExpenseFilter(userID: "home\(h)", kinds: [.expense])
            let privacy = ExportPrivacy(masks: [LocationMask(center: home, radiusMeters: r)], maskKey: key)
            let doc = try await X.export(.points, MapExportRequest(filter: filter, privacy: privacy), lattice.store)
            let exported = Set(X.features(doc).map { $0["id"] as! String })
            let mine = lattice.points.filter { $0.key.hasPrefix("h\(h)_") }
            let missing = mine.filter { !exported.contains($0.key) }.map(\.value)
            #expect(exported.isSubset(of: Set(mine.keys)))
            for f in X.features(doc) {
                let c = (f["geometry"] as! [String: Any])["coordinates"] as! [Double]
                #expect(Geodesic.distance(home, Coordinate(uncheckedLatitude: c[1], longitude: c[0])) > r, "a point within R of home \(h)")
            }
            for (_, p) in mine where Geodesic.distance(home, p) > 3 * r { #expect(!missing.contains(p)) }
            // The gap is a disc of 2R: π(600 m)² / (50 m)² ≈ 452 lattice points.
            #expect(abs(Double(missing.count) / (Double.pi * 4 * r * r / (Lattice.spacing * Lattice.spacing)) - 1) < 0.1, "\(missing.count)")
            let gapCentre = Self.centroid(missing)
            let offset = Geodesic.distance(home, gapCentre)
            offsets.append(offset)
            #expect(offset >= r / 2 - 10 && offset <= r + 10, "home \(h): gap centre \(offset) m away")

            // A centred mask (what the fitness app did) gives the home away to the same attack.
            let centred = mine.filter { Geodesic.distance(home, $0.value) <= r }.map(\.value)
            #expect(Geodesic.distance(home, Self.centroid(centred)) < 10)

            // Grids drop the same expenses.
            let grid = try await X.export(.grid(.hex, cellMeters: 250, metric: .count), MapExportRequest(filter: filter, privacy: privacy), lattice.store)
            #expect(X.features(grid).reduce(0) { $0 + (X.properties($1)["count"] as! Int) } == exported.count)
            #expect(Self.meta(grid)["expenses"] as? Int == exported.count && Self.meta(doc)["features"] as? Int == exported.count)
        }
        #expect(offsets.min()! >= r / 2 - 10, "\(offsets)")
    }

    static func centroid(_ points: [Coordinate]) -> Coordinate {
        let n = Double(points.count)
        return Coordinate(
            uncheckedLatitude: points.reduce(0) { $0 + $1.latitude } / n, longitude: points.reduce(0) { $0 + $1.longitude } / n)
    }

    /// Positions of every point format are noised in geodesic metres (mean ≈ 2/ε), reproducibly
    /// with a seed and differently without; the seed is never written.
    @Test func geoNoiseMovesPointsByPlanarLaplaceMetres() async throws {
        let g = try await X.Generated()
        let filter = ExpenseFilter(userID: nil, kinds: [.expense], currency: X.eur)
        let epsilon = 0.01
        let request = MapExportRequest(filter: filter, privacy: ExportPrivacy(geoNoiseEpsilon: epsilon, seed: 77))
        let sink = ByteSink()
        try await MapExport.geoJSON(.points, request, store: g.store, to: sink)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(sink.bytes)) as? [String: Any])
        let truth = Dictionary(uniqueKeysWithValues: g.expected(filter).map { ($0.id, $0.location!.coordinate) })
        var distances: [Double] = []
        for f in X.features(doc) {
            let c = (f["geometry"] as! [String: Any])["coordinates"] as! [Double]
            distances.append(Geodesic.distance(truth[f["id"] as! String]!, Coordinate(uncheckedLatitude: c[1], longitude: c[0])))
        }
        #expect(distances.count == truth.count && distances.count > 1_000)
        // Mean 2/ε = 200 m; σ of the mean = √2/ε/√n ≈ 3 m for n ≈ 2,000: 10 m is > 3σ.
        let mean = distances.reduce(0, +) / Double(distances.count)
        #expect(abs(mean - 2 / epsilon) < 10, "mean displacement \(mean) m")
        let again = ByteSink()
        try await MapExport.geoJSON(.points, request, store: g.store, to: again)
        #expect(again.bytes == sink.bytes)
        var other = request
        other.privacy.seed = 78
        let different = ByteSink()
        try await MapExport.geoJSON(.points, other, store: g.store, to: different)
        #expect(different.bytes != sink.bytes)
        let privacy = try #require(Self.meta(doc)["privacy"] as? [String: Any])
        #expect(privacy["geo_noise_epsilon_per_m"] as? Double == epsilon)
        #expect(!String(decoding: sink.bytes, as: UTF8.self).contains("seed"))

        // CSV and leaflet-heat are noised alike (same seed, same points).
        let heat = ByteSink()
        try await MapExport.leafletHeat(request, store: g.store, to: heat)
        let triples = try #require(try JSONSerialization.jsonObject(with: Data(heat.bytes)) as? [[Double]])
        let first = X.features(doc)[0]["geometry"] as! [String: Any]
        let c = first["coordinates"] as! [Double]
        #expect(abs(triples[0][0] - c[1]) < 1e-9 && abs(triples[0][1] - c[0]) < 1e-9)
    }

    /// --round changes the values (not just their printing) in every point format; masks
    /// are recorded by count and radius only.
    @Test func roundingAndMasksAreAppliedBeforeWritingAndRecordedWithoutCentres() async throws {
        let g = try await X.Generated()
        let filter = ExpenseFilter(userID: "user1", kinds: [.expense], currency: X.eur)
        let home = Coordinate(uncheckedLatitude: 60.1699, longitude: 24.9384)
        let privacy = ExportPrivacy(
            masks: [LocationMask(center: home, radiusMeters: 400), LocationMask(center: Coordinate(uncheckedLatitude: 60.1841, longitude: 24.9501), radiusMeters: 250)],
            maskKey: MaskKey(k0: 1, k1: 2), roundDecimals: 3)
        let request = MapExportRequest(filter: filter, privacy: privacy)
        let truth = Dictionary(uniqueKeysWithValues: g.expected(filter).map { ($0.id, $0.location!.coordinate) })
        func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
        let sink = ByteSink()
        try await MapExport.geoJSON(.points, request, store: g.store, to: sink)
        let text = String(decoding: sink.bytes, as: UTF8.self)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(sink.bytes)) as? [String: Any])
        #expect(!X.features(doc).isEmpty && X.features(doc).count < truth.count)
        for f in X.features(doc) {
            let c = (f["geometry"] as! [String: Any])["coordinates"] as! [Double]
            let t = truth[f["id"] as! String]!
            #expect(c[0] == rounded(t.longitude) && c[1] == rounded(t.latitude))
            #expect(Geodesic.distance(home, t) > 400)
        }
        let csv = ByteSink()
        try await MapExport.pointsCSV(request, store: g.store, to: csv)
        for line in String(decoding: csv.bytes, as: UTF8.self).split(separator: "\n").dropFirst() {
            let cols = line.split(separator: ",", omittingEmptySubsequences: false)
            // Written with --precision 6, yet no more than 3 decimals: the value itself was rounded.
            #expect(cols[1...2].allSatisfy { ($0.split(separator: ".").dropFirst().first?.count ?? 0) <= 3 }, "\(line)")
        }
        let recorded = try #require(Self.meta(doc)["privacy"] as? [String: Any])
        #expect(recorded["masks"] as? Int == 2 && recorded["mask_radius_m"] as? [Double] == [400, 250] && recorded["round"] as? Int == 3)
        for secret in ["60.1699", "24.9384", "60.1841", "24.9501", "60.17,", "24.938"] { #expect(!text.prefix(2_000).contains(secret)) }

        // Places: positions rounded, places in a mask left out; the outside readers accept all.
        let places = try await X.export(.places, request, g.store)
        for f in X.features(places) {
            let c = (f["geometry"] as! [String: Any])["coordinates"] as! [Double]
            #expect(c[0] == rounded(c[0]) && c[1] == rounded(c[1]))
        }
        let python = Repo.path(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python), "run `make venv` (make test does) to install the readers")
        var files: [String] = []
        let everyone = ExpenseFilter(userID: nil, kinds: [.expense], currency: X.eur)
        for (name, layer, f) in [("p", MapLayer.points, filter), ("pl", .places, filter), ("g", .grid(.hex, cellMeters: 250, metric: .total), everyone)] {
            let out = ByteSink()
            var r = MapExportRequest(filter: f, minUsers: f.userID == nil ? 3 : 1, privacy: privacy)
            if case .grid = layer { r.privacy.roundDecimals = nil }
            try await MapExport.geoJSON(layer, r, store: g.store, to: out)
            files.append(g.scratch.file("\(name).geojson", bytes: out.bytes))
        }
        let check = try runProgram(python, [Repo.path("Tests/validators/check_geojson.py")] + files)
        #expect(check.status == 0, "\(check.out)")
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(check.out.utf8)) as? [[String: Any]])
        #expect(reports.count == 3 && reports.allSatisfy { ($0["problems"] as? [Any])?.isEmpty == true }, "\(check.out)")
    }
}
