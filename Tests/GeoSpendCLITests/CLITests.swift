import Foundation
import GeoSpendTestSupport
import Testing

/// End to end: the built `geospend` binary, its exit codes, stdout/stderr split and JSON contract.
@Suite(.serialized) struct CLITests {
    static let repo = Repository.root
    static let binary = builtGeoSpendBinary(repo: repo)

    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-cli-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    func geospend(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        for (k, v) in env { environment[k] = v }
        return try runProgram(Self.binary, args, directory: Self.repo, environment: environment)
    }

    /// The sample data's stores and expenses, imported by the binary: a copy of the file the
    /// first call of the test process made (31 tests ask; each import pair took a CPU-second).
    func demoDatabase() throws -> String {
        let db = dir.appendingPathComponent("cli.sqlite").path
        try FileManager.default.copyItem(atPath: try Self.demoTemplate.get(), toPath: db)
        return db
    }

    struct TemplateError: Error, CustomStringConvertible { let description: String }

    /// Left in the tests' temporary folder (make test empties it). A closed file: the last
    /// connection's close checkpoints and removes the write-ahead log.
    private static let demoTemplate: Result<String, any Error> = Result {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-cli-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        let db = d.appendingPathComponent("cli.sqlite").path
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        for args in [["import", "stores", "Data/helsinki-places.geojson"], ["import", "expenses", "Data/sample-expenses.csv"]] {
            let r = try runProgram(binary, args + ["--db", db], directory: repo, environment: environment)
            guard r.status == 0 else { throw TemplateError(description: "\(args): \(r.err)") }
        }
        guard !FileManager.default.fileExists(atPath: db + "-wal") else { throw TemplateError(description: "\(db)-wal left behind") }
        return db
    }

    /// Without --radius, MONO's 1000 m: the same answer as --radius 1000m, and more than 300 m finds.
    @Test func nearDefaultsToAKilometre() throws {
        let db = try demoDatabase()
        let args = ["near", "--db", db, "--user", "user1", "--lat", "60.1710", "--lon", "24.9414", "--format", "json"]
        let (bare, km, close) = (try geospend(args), try geospend(args + ["--radius", "1000m"]), try geospend(args + ["--radius", "300m"]))
        #expect(bare.status == 0 && bare.out == km.out, "\(bare.err)")
        #expect(bare.out.contains("\"radius_m\": 1000") && bare.out.count > close.out.count)
    }

    @Test func nearPrintsTheDocumentedJSON() throws {
        let db = try demoDatabase()
        let r = try geospend(["near", "--db", db, "--user", "user1", "--lat", "60.1710", "--lon", "24.9414", "--radius", "300m", "--format", "json"])
        #expect(r.status == 0, "\(r.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(Set(json.keys) == ["center", "radius_m", "count", "totals", "expenses"])
        #expect((json["center"] as? [String: Double]) == ["lat": 60.171, "lon": 24.9414])
        #expect(json["radius_m"] as? Double == 300)
        let expenses = try #require(json["expenses"] as? [[String: Any]])
        #expect(expenses.count == json["count"] as? Int)
        #expect(!expenses.isEmpty)
        for key in ["id", "user", "kind", "amount", "currency", "occurred_at", "category", "lat", "lon", "distance_m"] {
            #expect(expenses.allSatisfy { $0.keys.contains(key) }, "missing \(key)")
        }
        let distances = expenses.map { $0["distance_m"] as! Double }
        #expect(distances == distances.sorted() && distances.last! <= 300)
        let totals = try #require(json["totals"] as? [[String: Any]])
        #expect(totals.allSatisfy { $0["total"] is String && $0["average"] is String })
        #expect(totals.map { $0["count"] as! Int }.reduce(0, +) == expenses.count)
    }

    @Test func nearestStoresJSONAndCSV() throws {
        let db = try demoDatabase()
        let r = try geospend(["nearest-stores", "--db", db, "--lat", "60.1710", "--lon", "24.9414", "-k", "5", "--kind", "amenity:cafe", "--format", "json"])
        #expect(r.status == 0, "\(r.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let stores = try #require(json["stores"] as? [[String: Any]])
        #expect(stores.count == 5)
        #expect(stores.allSatisfy { $0["kind"] as? String == "amenity:cafe" })
        #expect(stores.first?["name"] as? String == "Robert's Coffee")
        let csv = try geospend(["nearest-stores", "--db", db, "--lat", "60.1710", "--lon", "24.9414", "--format", "csv"])
        #expect(csv.out.hasPrefix("id,name,kind,brand,street,lat,lon,distance_m\n"))
        #expect(csv.out.split(separator: "\n").count == 6)
    }

    /// Half the world has negative coordinates: `--lat -33.92` is a value, not an unknown
    /// option, in every option that takes coordinates (only `--lat=-33.92` worked; issue 15).
    /// An option name where a value belongs is still a usage error.
    @Test func negativeCoordinatesAreOrdinaryValues() throws {
        let db = dir.appendingPathComponent("south.sqlite").path
        let stores = dir.appendingPathComponent("s.csv").path, expenses = dir.appendingPathComponent("e.csv").path
        try "id,name,lat,lon\nct1,Cape Town shop,-33.9201,-18.4201\n".write(toFile: stores, atomically: true, encoding: .utf8)
        try "id,user,amount,currency,occurred_at,lat,lon,store_id\ne1,ann,4.50,ZAR,2025-03-01T10:00:00+02:00,-33.92,-18.42,ct1\n"
            .write(toFile: expenses, atomically: true, encoding: .utf8)
        #expect(try geospend(["import", "stores", stores, "--db", db]).status == 0)
        #expect(try geospend(["import", "expenses", expenses, "--db", db]).status == 0)
        let out = dir.appendingPathComponent("o.geojson").path
        let commands: [[String]] = [
            ["near", "--user", "ann", "--lat", "-33.92", "--lon", "-18.42", "--radius", "100m"],
            ["nearest-stores", "--lat", "-33.92", "--lon", "-18.42", "-k", "1"],
            ["report", "stores", "--near", "-33.92,-18.42", "--radius", "1km", "--min-users", "1"],
            ["export", "points", "--user", "ann", "--mask-around", "-33.0,-18.0", "--mask-radius", "100m", "--out", out],
            ["export", "grid", "--user", "ann", "--origin", "-33,-18", "--out", out],
        ]
        for command in commands {
            let r = try geospend(command + ["--db", db])
            #expect(r.status == 0, "\(command): \(r.err)")
        }
        let near = try geospend(["near", "--db", db, "--user", "ann", "--lat=-33.92", "--lon=-18.42", "--radius", "100m"])
        #expect(near.status == 0 && near.out.contains("1 expense"), "\(near.out) \(near.err)")
        let swapped = try geospend(["near", "--db", db, "--user", "ann", "--lat", "--lon", "-18.42", "--radius", "100m"])
        #expect(swapped.status == 2 && swapped.err.contains("--lat"), "\(swapped.err)")
    }

    @Test func databaseComesFromTheEnvironmentWhenNoOption() throws {
        let db = try demoDatabase()
        let r = try geospend(["info"], env: ["GEOSPEND_DB": db])
        #expect(r.status == 0)
        #expect(r.out.contains("stores     936"))
    }

    @Test func badInputExitsTwoAndWritesNothing() throws {
        let db = dir.appendingPathComponent("bad.sqlite").path
        let bad = dir.appendingPathComponent("bad.csv").path
        try "user,amount,currency,occurred_at\nann,1.00,EUR,2025-01-01\nann,1.001,EUR,2025-01-01\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try geospend(["import", "expenses", bad, "--db", db])
        #expect(r.status == 2)
        #expect(r.out.isEmpty)
        #expect(r.err.contains("\(bad):3: amount: \"1.001\" has more decimals than EUR allows (2)"))
        #expect(r.err.contains("nothing was written"))
        let skip = try geospend(["import", "expenses", bad, "--db", db, "--skip-invalid"])
        #expect(skip.status == 0)
        #expect(skip.err.contains("imported 1 expenses"))
    }

    @Test func badUsageExitsTwo() throws {
        let db = try demoDatabase()
        for args in [
            ["near", "--db", db, "--user", "u", "--lat", "91", "--lon", "0", "--radius", "1km"],
            ["near", "--db", db, "--user", "u", "--lat", "60", "--lon", "24", "--radius", "-5m"],
            ["near", "--db", db, "--user", "u", "--lat", "60", "--lon", "24", "--radius", "5 parsecs"],
            ["near", "--db", db, "--user", "u", "--lat", "60", "--lon", "24", "--radius", "1km", "--from", "yesterday"],
            ["nearest-stores", "--db", db, "--lat", "nan", "--lon", "24"],
            ["nearest-stores", "--db", db, "--lat", "60", "--lon", "24", "-k", "0"],
            ["near", "--db", dir.appendingPathComponent("missing.sqlite").path, "--user", "u", "--lat", "60", "--lon", "24", "--radius", "1km"],
            ["frobnicate"],
        ] {
            let r = try geospend(args)
            #expect(r.status == 2, "\(args): \(r.err)")
            #expect(!r.err.isEmpty)
        }
    }

    @Test func corruptDatabaseIsARuntimeFailureWithAClearMessage() throws {
        let db = dir.appendingPathComponent("junk.sqlite").path
        try String(repeating: "not a database ", count: 300).write(toFile: db, atomically: true, encoding: .utf8)
        let r = try geospend(["info", "--db", db])
        #expect(r.status == 1)
        #expect(r.err.contains("not a GeoSpend database") || r.err.contains("not a database"))
    }

    @Test(arguments: ["import", "near", "nearest-stores", "snap", "insights", "summary", "report", "export", "generate", "info", "users", "doctor", "budgets"])
    func everyCommandHasHelpWithAnExample(command: String) throws {
        let r = try geospend([command, "--help"])
        #expect(r.status == 0)
        #expect(r.out.contains("Example"))
    }

    @Test func insightsJSONHasTheDocumentedShape() throws {
        let db = try demoDatabase()
        let r = try geospend(["insights", "--db", db, "--user", "user1", "--from", "2025-03-01", "--to", "2025-03-31", "--format", "json"])
        #expect(r.status == 0, "\(r.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(json["user"] as? String == "user1")
        #expect((json["window"] as? [String: Any])?["previous_from"] as? String == "2025-01-29")
        let places = try #require(json["places"] as? [[String: Any]])
        #expect(!places.isEmpty)
        for key in ["place", "centroid", "count", "total", "average", "median", "min", "max", "first_visit", "last_visit",
            "visit_days", "share", "top_category", "change"]
        {
            #expect(places.allSatisfy { $0.keys.contains(key) }, "missing \(key)")
        }
        let kinds = Set(places.compactMap { ($0["place"] as? [String: Any])?["type"] as? String })
        #expect(kinds.isSubset(of: ["store", "cluster"]))
    }

    @Test func snapThenSummary() throws {
        let db = try demoDatabase()
        let dry = try geospend(["snap", "--db", db, "--dry-run", "--format", "json"])
        #expect(dry.status == 0, "\(dry.err)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(dry.out.utf8)) as? [String: Any])
        let wouldAssign = (plan["assigned"] as? [Any])?.count ?? 0
        #expect(wouldAssign > 0 && plan["written"] as? Int == 0)
        let real = try geospend(["snap", "--db", db])
        #expect(real.out.hasPrefix("assigned \(wouldAssign),"))
        #expect(try geospend(["snap", "--db", db]).out.hasPrefix("assigned 0,"))
        let summary = try geospend(["summary", "--db", db, "--user", "user1", "--month", "2025-03", "--format", "csv"])
        #expect(summary.out.hasPrefix("currency,income,expenses,balance,transfers,expenses_count,first_day,last_day\n"))
        #expect(try geospend(["summary", "--db", db, "--user", "user1", "--month", "2025-3x"]).status == 2)
    }

    @Test func storeReportsInEveryFormat() throws {
        let db = try demoDatabase()
        let html = try geospend(["report", "store", "317766538", "--db", db, "--format", "html", "--min-users", "1"])
        #expect(html.status == 0, "\(html.err)")
        #expect(html.out.hasPrefix("<!DOCTYPE html>") && html.out.contains("<svg"))
        let json = try geospend(["report", "store", "317766538", "--db", db, "--format", "json"])
        #expect((try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])?["min_users"] as? Int == 3)
        let list = try geospend(["report", "stores", "--db", db, "--near", "60.1710,24.9414", "--radius", "500m", "--format", "csv"])
        #expect(list.status == 0 && list.out.hasPrefix("store,kind,distance m,cur,visitors"))
        #expect(try geospend(["report", "store", "no-such-store", "--db", db]).status == 2)
        #expect(try geospend(["report", "stores", "--db", db, "--near", "60.1710"]).status == 2)
    }

    @Test func generateIsDeterministic() throws {
        let a = try geospend(["generate", "--users", "3", "--expenses", "200", "--seed", "4"])
        let b = try geospend(["generate", "--users", "3", "--expenses", "200", "--seed", "4"])
        #expect(a.status == 0 && a.out == b.out)
        #expect(a.out.split(separator: "\n").count == 201)
        let c = try geospend(["generate", "--users", "3", "--expenses", "200", "--seed", "5"])
        #expect(c.out != a.out)
    }

    @Test func exportWritesWholeFilesOrNothing() throws {
        let db = try demoDatabase()
        let out = dir.appendingPathComponent("hex.geojson").path
        let ok = try geospend(["export", "grid", "--db", db, "--all-users", "--shape", "hex", "--cell", "250m", "--out", out])
        #expect(ok.status == 0, "\(ok.err)")
        #expect(ok.err.contains("wrote ") && ok.err.contains("left out"), "\(ok.err)")  // the demo data mixes currencies
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        #expect(doc["type"] as? String == "FeatureCollection")
        #expect((doc["geospend"] as? [String: Any])?["layer"] as? String == "grid")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains(".partial") })

        // A directory that does not exist: runtime failure, nothing written.
        let missing = dir.appendingPathComponent("no/such/dir/x.geojson").path
        let failed = try geospend(["export", "points", "--db", db, "--user", "user1", "--out", missing])
        #expect(failed.status == 1 && failed.err.contains("cannot write the export"), "\(failed.err)")
        #expect(!FileManager.default.fileExists(atPath: missing))

        // Stdout, CSV with the columns kepler.gl detects.
        let csv = try geospend(["export", "points", "--db", db, "--user", "user1", "--format", "csv", "--currency", "EUR"])
        #expect(csv.status == 0 && csv.out.hasPrefix("id,latitude,longitude,amount,currency,"), "\(csv.err)")
        #expect(!csv.err.contains("left out"))
    }

    /// Masks through the CLI: the key file is created beside the database (mode 600) on first
    /// use and reused, so two exports drop the same region; $GEOSPEND_MASK_KEY overrides it; the
    /// file records the masks' radii, not where they are.
    @Test func exportMasksWithAKeyKeptBesideTheDatabase() throws {
        let db = try demoDatabase()
        let args = ["export", "points", "--db", db, "--user", "user1", "--currency", "EUR", "--mask-around", "60.1699,24.9384",
                    "--mask-radius", "400m", "--round", "4"]
        // A fixed generation time: the two outputs are compared byte for byte.
        let fixedTime = ["SOURCE_DATE_EPOCH": "1767225600"]
        let first = try geospend(args, env: fixedTime)
        #expect(first.status == 0 && first.err.contains("created the mask key"), "\(first.err)")
        let key = db + ".mask-key"
        let attributes = try FileManager.default.attributesOfItem(atPath: key)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOfFile: key, encoding: .utf8).count == 33)
        let second = try geospend(args, env: fixedTime)
        #expect(second.status == 0 && !second.err.contains("created"))
        #expect(second.out == first.out && first.out.contains("\"mask_radius_m\":[400]") && !first.out.contains("60.1699"))
        let other = try geospend(args, env: ["GEOSPEND_MASK_KEY": "000102030405060708090a0b0c0d0e0f"])
        #expect(other.status == 0)
        let bad = try geospend(args, env: ["GEOSPEND_MASK_KEY": "xyz"])
        #expect(bad.status == 2 && bad.err.contains("GEOSPEND_MASK_KEY"), "\(bad.err)")
        let noisy = try geospend(["export", "leaflet-heat", "--db", db, "--user", "user1", "--geo-noise", "0.01", "--seed", "5"])
        #expect(noisy.status == 0 && noisy.out.hasPrefix("["), "\(noisy.err)")
    }

    @Test(arguments: [
        ["export", "grid"],  // neither --user nor --all-users
        ["export", "grid", "--user", "u", "--all-users"],
        ["export", "grid", "--all-users", "--cell", "5m"],  // too small for 6 decimals
        ["export", "grid", "--all-users", "--cell", "-3m"],
        ["export", "density", "--all-users", "--bandwidth", "10m", "--cell", "50m"],
        ["export", "points", "--all-users", "--min-count", "3"],
        ["export", "grid", "--all-users", "--format", "csv"],
        ["export", "grid", "--all-users", "--precision", "16"],
        ["export", "grid", "--all-users", "--currency", "EURO"],
        ["export", "grid", "--all-users", "--origin", "95,25"],
        ["export", "heat", "--all-users"],
        ["export", "grid", "--all-users", "--geo-noise", "0.01"],  // noise is for point layers
        ["export", "density", "--user", "user1", "--round", "3"],
        ["export", "points", "--user", "user1", "--round", "16"],
        ["export", "points", "--user", "user1", "--geo-noise", "0"],
        ["export", "points", "--user", "user1", "--geo-noise", "nan"],
        ["export", "points", "--user", "user1", "--seed", "3"],  // --seed without --geo-noise
        ["export", "points", "--user", "user1", "--mask-around", "60.17,24.94"],  // no radius
        ["export", "points", "--user", "user1", "--mask-radius", "500m"],  // no place
        ["export", "points", "--user", "user1", "--mask-around", "60.17,24.94", "--mask-radius", "500m", "--mask-radius", "1km",
         "--mask-radius", "2km"],
        ["export", "points", "--user", "user1", "--mask-around", "95,24.94", "--mask-radius", "500m"],
        ["export", "points", "--user", "user1", "--mask-around", "60.17", "--mask-radius", "500m"],
        ["export", "points", "--user", "user1", "--mask-around", "60.17,24.94", "--mask-radius", "0m"],
        ["export", "points", "--user", "user1", "--mask-around", "60.17,24.94", "--mask-radius", "200km"],
    ])
    func exportRejectsBadUsage(args: [String]) throws {
        let db = try demoDatabase()
        let r = try geospend(args + ["--db", db])
        #expect(r.status == 2, "\(args): \(r.err)")
        #expect(!r.err.isEmpty && r.out.isEmpty)
    }

    /// The bundle page in a real browser: headless Chromium loads it from disk with no network,
    /// every layer has the features the export wrote, no script error, a title, a legend per
    /// layer in money, a scale bar, OpenStreetMap's attribution (the demo's places are OSM's),
    /// and a screenshot.
    @Test func bundlePageLoadsEveryLayerInChromium() throws {
        let db = try demoDatabase()
        let bundle = dir.appendingPathComponent("map").path
        let r = try geospend(["export", "bundle", "--db", db, "--user", "user1", "--out", bundle])
        #expect(r.status == 0, "\(r.err)")
        for file in ["index.html", "layers.js", "points.geojson", "hex.geojson", "places.geojson", "leaflet/leaflet.js",
                     "leaflet/leaflet.css", "leaflet/LICENSE", "leaflet/images/layers.png"] {
            #expect(FileManager.default.fileExists(atPath: bundle + "/" + file), "missing \(file)")
        }
        func features(_ name: String) throws -> Int {
            let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle + "/\(name).geojson"))) as? [String: Any]
            return (doc?["features"] as? [Any])?.count ?? -1
        }
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let page = URL(fileURLWithPath: bundle + "/index.html").absoluteString
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=5000", "--window-size=1200,800"]
        let dom = try runProgram(chromium, flags + ["--dump-dom", page])
        let status = try #require(dom.out.range(of: #"<pre id="geospend-status">([^<]*)</pre>"#, options: .regularExpression).map {
            String(dom.out[$0]).replacingOccurrences(of: #"<pre id="geospend-status">"#, with: "").replacingOccurrences(of: "</pre>", with: "")
        }, "no status line: the page's script did not finish\n\(dom.err.suffix(2000))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.replacingOccurrences(of: "&quot;", with: "\"").utf8)) as? [String: Any])
        let loaded = try #require(json["loaded"] as? [String: Int])
        #expect(loaded["points"] == (try features("points")) && loaded["points"]! > 0)
        #expect(loaded["hex"] == (try features("hex")) && loaded["hex"]! > 0)
        #expect(loaded["places"] == (try features("places")) && loaded["places"]! > 0)
        #expect((json["errors"] as? [Any])?.isEmpty == true, "script errors: \(json["errors"] ?? "")")
        try MapPageTests.expectTitleLegendsScaleAndAttribution(dom: dom.out, bundle: bundle, who: "user user1", currency: "EUR")

        let shot = dir.appendingPathComponent("bundle.png").path
        _ = try runProgram(chromium, flags + ["--screenshot=\(shot)", page])
        let size = (try FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0
        #expect(size > 10_000, "screenshot of \(size) bytes")
    }
}
