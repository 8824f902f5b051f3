import Foundation
import GeoSpendTestSupport
import GRDB
import GeoSpendTestStores
import Testing

/// Issue 36 through the real binary: a statement without coordinates and a location history
/// go in, `geotag` puts the in-person payments on the map (and only those), and everything
/// it did can be seen, undone, exported and deleted — for one user, never another.
///
/// The data are written here so each answer is known: four stores in Helsinki, fixes every
/// minute (accuracy 10 m) at a café in the morning and at one of two K-Market branches in
/// the afternoon, and a statement of the kinds banks print.
@Suite(.serialized) struct GeotagCLITests {
    let cli = CLITests()

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) { try cli.geospend(args) }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    func file(_ name: String, _ text: String) throws -> String {
        let url = cli.dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static let stores = """
        id,name,kind,brand,city,lat,lon
        regatta,Café Regatta,amenity:cafe,,Helsinki,60.17830,24.91260
        km-kamppi,K-Market Kamppi,shop:supermarket,K-Market,Helsinki,60.16900,24.93000
        km-kallio,K-Market Kallio,shop:supermarket,K-Market,Helsinki,60.18400,24.95000
        lidl,Lidl Helsinki Ruoholahti,shop:supermarket,Lidl,Helsinki,60.16300,24.91500
        """

    /// Fixes every minute from `start` (UTC) for `minutes` at a point (with a few metres of jitter).
    static func fixes(_ start: String, minutes: Int, lat: Double, lon: Double) -> [String] {
        let t0 = ISO8601DateFormatter().date(from: start)!
        return (0..<minutes).map { m in
            let jitter = Double(m % 3 - 1) * 0.00002
            let t = ISO8601DateFormatter().string(from: t0.addingTimeInterval(Double(m) * 60))
            return "\(t),\(lat + jitter),\(lon - jitter),10"
        }
    }

    static var positions: String {
        (["time,lat,lon,accuracy"]
            + fixes("2026-03-05T08:00:00Z", minutes: 30, lat: 60.17830, lon: 24.91260)  // 10:00–10:30 Helsinki, at the café
            + fixes("2026-03-05T15:00:00Z", minutes: 25, lat: 60.16900, lon: 24.93000)  // 17:00–17:25, at K-Market Kamppi
        ).joined(separator: "\n") + "\n"
    }

    static let statement = """
        id,user,kind,amount,currency,occurred_at,merchant,title,lat,lon
        cafe,ann,expense,4.50,EUR,2026-03-05T10:15:00+02:00,SUMUP *CAFE REGATTA HELSI,,,
        kmarket,ann,expense,23.10,EUR,2026-03-05,K-MARKET,Card purchase,,
        netflix,ann,expense,13.99,EUR,2026-03-05,NETFLIX.COM 866-579-7172,,,
        salary,ann,income,2500.00,EUR,2026-03-05,ACME OY,Salary,,
        lidl,ann,expense,8.40,EUR,2026-03-07,LIDL,,,
        known,ann,expense,2.00,EUR,2026-03-05T12:00:00+02:00,Kiosk,,60.1700,24.9400
        """

    /// A database with the stores, ann's statement and history, and bob's one expense.
    func prepared() throws -> String {
        let db = cli.dir.appendingPathComponent("geotag.sqlite").path
        for args in [
            ["import", "stores", try file("stores.csv", Self.stores), "--db", db],
            ["import", "expenses", try file("statement.csv", Self.statement), "--db", db],
            ["import", "expenses", try file("bob.csv", "id,user,amount,currency,occurred_at,merchant\ncafe,bob,3.00,EUR,2026-03-05T10:16:00+02:00,CAFE REGATTA\n"), "--db", db],
        ] {
            let r = try geospend(args)
            try #require(r.status == 0, "\(args): \(r.err)")
        }
        let imported = try geospend(["import", "positions", try file("ann.csv", Self.positions), "--user", "ann", "--db", db])
        try #require(imported.status == 0, "\(imported.err)")
        #expect(imported.err.contains("imported 55 positions, 0 already present"), "\(imported.err)")
        return db
    }

    func expense(_ db: String, _ id: String, user: String = "ann") throws -> [String: Any] {
        let r = try geospend(["expenses", "show", id, "--user", user, "--format", "json", "--db", db])
        try #require(r.status == 0, "\(r.err)")
        return try json(r.out)
    }

    @Test func theStatementGoesOnTheMapRightOrNotAtAll() throws {
        let db = try prepared()
        let dry = try geospend(["geotag", "--user", "ann", "--timezone", "Europe/Helsinki", "--dry-run", "--format", "json", "--db", db])
        try #require(dry.status == 0, "\(dry.err)")
        let report = try json(dry.out)
        let placed = try #require(report["placed"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: placed.map { ($0["id"] as! String, $0) })
        // Every placed entry has every field the issue names.
        for p in placed {
            for key in ["id", "lat", "lon", "accuracy_m", "store_id", "confidence", "source"] { #expect(p.keys.contains(key), "\(key) in \(p)") }
            let c = try #require(p["confidence"] as? Double)
            #expect(c > 0 && c <= 1)
        }
        #expect(byID["cafe"]?["store_id"] as? String == "regatta", "\(placed)")
        #expect(byID["cafe"]?["source"] as? String == "history+merchant")
        #expect(byID["kmarket"]?["store_id"] as? String == "km-kamppi", "the branch the history says, not Kallio: \(report)")
        #expect(byID["lidl"]?["store_id"] as? String == "lidl" && byID["lidl"]?["source"] as? String == "merchant", "\(report)")
        #expect(byID["netflix"] == nil && byID["salary"] == nil && byID["known"] == nil)
        let unplaced = try #require(report["unplaced"] as? [[String: Any]])
        let reasons = Dictionary(uniqueKeysWithValues: unplaced.map { ($0["id"] as! String, $0["reason"] as! String) })
        #expect(reasons["netflix"] == "online" && reasons["salary"] == "not-an-expense", "\(unplaced)")
        #expect(reasons["known"] == nil, "an expense with a position is not considered")

        // The dry run wrote nothing.
        #expect(try expense(db, "cafe")["lat"] is NSNull)

        let run = try geospend(["geotag", "--user", "ann", "--timezone", "Europe/Helsinki", "--db", db])
        try #require(run.status == 0, "\(run.err)")
        #expect(run.out.contains("placed 3,"), "\(run.out)")
        let cafe = try expense(db, "cafe")
        #expect(cafe["position_source"] as? String == "history+merchant" && cafe["store_id"] as? String == "regatta")
        #expect(abs((cafe["lat"] as? Double ?? 0) - 60.1783) < 0.001)
        #expect((cafe["position_confidence"] as? Double ?? 0) > 0)
        let known = try expense(db, "known")
        #expect(known["lat"] as? Double == 60.17 && known["position_source"] as? String == "device")

        // `near` sees the placed payment now; bob's café payment is bob's and stays unplaced.
        let near = try geospend(["near", "--user", "ann", "--lat", "60.1783", "--lon", "24.9126", "--radius", "100m", "--format", "json", "--db", db])
        #expect(near.out.contains("\"cafe\""), "\(near.out)")
        #expect(try expense(db, "cafe", user: "bob")["lat"] is NSNull)

        // One user's points layer says where each position came from.
        let points = try geospend(["export", "points", "--user", "ann", "--db", db])
        #expect(points.out.contains(#""position_source":"history+merchant""#) && points.out.contains(#""position_source":"device""#), "\(points.out)")
        // So do its CSV (a last column) and its vector tiles (a property), read by mapbox-vector-tile.
        let csv = try geospend(["export", "points", "--user", "ann", "--format", "csv", "--db", db])
        let rows = csv.out.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.first?.last == "position_source", "\(csv.out)")
        #expect(rows.first { $0.first == "cafe" }?.last == "history+merchant" && rows.first { $0.first == "known" }?.last == "device", "\(csv.out)")
        let tiles = cli.dir.appendingPathComponent("ann.mbtiles").path
        let exported = try geospend(["export", "tiles", "--layer", "points", "--user", "ann", "--max-zoom", "3", "--out", tiles, "--db", db])
        try #require(exported.status == 0, "\(exported.err)")
        let decoded = try runProgram(CLITests.repo.appendingPathComponent(".venv/bin/python").path, ["-c", """
            import gzip, sqlite3, sys, mapbox_vector_tile
            rows = sqlite3.connect(sys.argv[1]).execute("SELECT tile_data FROM tiles WHERE zoom_level = 3")
            for (data,) in rows:
                for f in mapbox_vector_tile.decode(gzip.decompress(data))["points"]["features"]:
                    print(f["properties"]["id"], f["properties"].get("position_source"))
            """, tiles])
        #expect(decoded.out.contains("cafe history+merchant\n") && decoded.out.contains("known device\n"), "\(decoded.out)\(decoded.err)")

        // A second run places nothing new; the statement imported again is all "already present".
        let again = try geospend(["geotag", "--user", "ann", "--timezone", "Europe/Helsinki", "--format", "json", "--db", db])
        #expect(try (json(again.out)["placed"] as? [Any])?.isEmpty == true, "\(again.out)")
        let reimport = try geospend(["import", "expenses", cli.dir.appendingPathComponent("statement.csv").path, "--db", db])
        #expect(reimport.status == 0 && reimport.err.contains("imported 0 expenses, 6 already present"), "\(reimport.err)")

        // Undo takes back the inferred positions and the store links they made; the device one stays.
        let undo = try geospend(["geotag", "undo", "--user", "ann", "--db", db])
        #expect(undo.status == 0 && undo.out.contains("restored 3 expenses"), "\(undo.out) \(undo.err)")
        let restored = try expense(db, "cafe")
        #expect(restored["lat"] is NSNull && restored["store_id"] is NSNull && restored["position_source"] is NSNull)
        #expect(try expense(db, "known")["lat"] as? Double == 60.17)
    }

    @Test func reviewAndConfirmSettleAChainWithoutHistory() throws {
        let db = try prepared()
        // A K-Market payment on a day without history: two branches, so ambiguous, never guessed.
        let more = try geospend(["import", "expenses", try file("more.csv", "id,user,amount,currency,occurred_at,merchant\nkm2,ann,5.00,EUR,2026-03-09,K-MARKET\n"), "--db", db])
        try #require(more.status == 0, "\(more.err)")
        let review = try geospend(["geotag", "review", "--user", "ann", "--timezone", "Europe/Helsinki", "--format", "json", "--db", db])
        try #require(review.status == 0, "\(review.err)")
        let ambiguous = try #require(try json(review.out)["ambiguous"] as? [[String: Any]])
        let km2 = try #require(ambiguous.first { $0["id"] as? String == "km2" }, "\(ambiguous)")
        #expect(Set((km2["candidates"] as? [[String: Any]] ?? []).compactMap { $0["store_id"] as? String }) == ["km-kamppi", "km-kallio"])

        let confirm = try geospend(["geotag", "confirm", "km2", "--user", "ann", "--store", "km-kallio", "--db", db])
        #expect(confirm.status == 0, "\(confirm.err)")
        let settled = try expense(db, "km2")
        #expect(settled["store_id"] as? String == "km-kallio" && settled["position_source"] as? String == "store" && settled["lat"] as? Double == 60.184)
        // Settled twice: a clear error, the position kept.
        let twice = try geospend(["geotag", "confirm", "km2", "--user", "ann", "--store", "km-kamppi", "--db", db])
        #expect(twice.status != 0 && twice.err.contains("already has a position (store)"), "\(twice.err)")
        // Another user's expense of that id does not exist for them.
        let other = try geospend(["geotag", "confirm", "km2", "--user", "bob", "--store", "km-kamppi", "--db", db])
        #expect(other.status != 0 && other.err.contains("no expense km2 for user bob"), "\(other.err)")
        // Undo leaves a confirmed store alone.
        #expect(try geospend(["geotag", "undo", "--user", "ann", "--id", "km2", "--db", db]).status != 0)
        #expect(try expense(db, "km2")["lat"] as? Double == 60.184)
    }

    /// SpatiaLite and PostgreSQL give the same answers for make demo's person, every step.
    @Test(.enabled(if: PostGISTestServer.address != nil, "needs $GEOSPEND_TEST_POSTGRES (make test starts a server)"))
    func bothBackendsAgree() throws {
        let file = cli.dir.appendingPathComponent("both.sqlite").path
        let server = PostGISTestServer.url(try PostGISTestServer.newDatabase())
        var outputs: [[String]] = []
        for db in [file, server] {
            var out: [String] = []
            for args in [
                ["import", "stores", "Data/helsinki-places.geojson"],
                ["import", "expenses", "Data/examples/demo-person/statement.ofx", "--preset", "ofx", "--user", "maija"],
                ["import", "positions", "Data/examples/demo-person/Timeline.json", "--user", "maija"],
                ["positions", "summary", "--user", "maija", "--timezone", "Europe/Helsinki", "--format", "json"],
                ["geotag", "--user", "maija", "--timezone", "Europe/Helsinki", "--dry-run", "--format", "json"],
                ["geotag", "--user", "maija", "--timezone", "Europe/Helsinki", "--format", "json"],
                ["expenses", "list", "--user", "maija", "--limit", "100", "--format", "json"],
                ["export", "points", "--user", "maija"],
                ["geotag", "undo", "--user", "maija", "--id", "maija/ofx/2026000001"],
                ["positions", "delete", "--user", "maija", "--before", "2026-03-09", "--timezone", "Europe/Helsinki", "--yes"],
                ["users", "export", "maija"],
            ] {
                let r = try geospend(args + ["--db", db])
                #expect(r.status == 0, "\(args) on \(db): \(r.err)")
                out.append(r.out.replacingOccurrences(of: #""(created_at|updated_at|generated_at)": ?"[^"]*""#, with: "T", options: .regularExpression))
            }
            outputs.append(out)
        }
        for (n, (a, b)) in zip(outputs[0], outputs[1]).enumerated() { #expect(a == b, "step \(n): \(a.prefix(400)) vs \(b.prefix(400))") }
        #expect(outputs[0][5].contains("history+merchant"))
    }

    /// Linking an expense to a store by hand places it there (before, `near` and the maps ignored the link).
    @Test func linkingAStoreByHandPlacesTheExpense() throws {
        let db = try prepared()
        let edited = try geospend(["expenses", "edit", "cafe", "--user", "bob", "--store", "regatta", "--format", "json", "--db", db])
        #expect(edited.status == 0, "\(edited.err)")
        let e = try json(edited.out)
        #expect(e["lat"] as? Double == 60.1783 && e["position_source"] as? String == "store", "\(edited.out)")
        let near = try geospend(["near", "--user", "bob", "--lat", "60.1783", "--lon", "24.9126", "--radius", "50m", "--format", "json", "--db", db])
        #expect(near.out.contains("\"cafe\""), "\(near.out)")
        // Cleared by hand, it stays cleared (the store stays linked).
        let cleared = try json(try geospend(["expenses", "edit", "cafe", "--user", "bob", "--lat", "", "--lon", "", "--format", "json", "--db", db]).out)
        #expect(cleared["lat"] is NSNull && cleared["store_id"] as? String == "regatta" && cleared["position_source"] is NSNull)
        // Added with a store and no position: at the store.
        let added = try geospend(["expenses", "add", "--user", "bob", "--amount", "2.00", "--currency", "EUR", "--at", "2026-03-06", "--store", "lidl", "--format", "json", "--db", db])
        #expect(try json(added.out)["lat"] as? Double == 60.163 && json(added.out)["position_source"] as? String == "store", "\(added.out) \(added.err)")
    }

    @Test func theHistoryIsTheUsersAloneAndLeavesWithThem() throws {
        let db = try prepared()
        // Listing and summaries are per user; bob has none of ann's fixes.
        let bob = try geospend(["positions", "list", "--user", "bob", "--format", "json", "--db", db])
        #expect(try bob.status == 0 && json(bob.out)["total_positions"] as? Int == 0, "\(bob.out) \(bob.err)")
        let summary = try geospend(["positions", "summary", "--user", "ann", "--timezone", "Europe/Helsinki", "--format", "json", "--db", db])
        let days = try #require(try json(summary.out)["days"] as? [[String: Any]])
        #expect(days.count == 1 && days[0]["day"] as? String == "2026-03-05" && days[0]["fixes"] as? Int == 55, "\(days)")
        #expect(days[0]["hours_with_fixes"] as? Int == 2)
        // bob's geotag run never reads ann's history: his café payment stays unplaced (no history, and the merchant
        // alone names one café — placed by the merchant, never by her history).
        let bobRun = try geospend(["geotag", "--user", "bob", "--timezone", "Europe/Helsinki", "--dry-run", "--format", "json", "--db", db])
        let bobPlaced = try #require(try json(bobRun.out)["placed"] as? [[String: Any]])
        #expect(!bobPlaced.isEmpty && bobPlaced.allSatisfy { $0["source"] as? String == "merchant" }, "\(bobPlaced)")

        // Importing the same file again changes nothing; a bad file names its line and writes nothing.
        let again = try geospend(["import", "positions", cli.dir.appendingPathComponent("ann.csv").path, "--user", "ann", "--db", db])
        #expect(again.err.contains("imported 0 positions, 55 already present"), "\(again.err)")
        let bad = try geospend(["import", "positions", try file("bad.csv", "time,lat,lon\n2026-03-06T10:00:00Z,60.1,24.9\n2026-03-06T10:01:00Z,91.5,24.9\n"), "--user", "ann", "--db", db])
        #expect(bad.status == 2 && bad.err.contains("bad.csv:3"), "\(bad.err)")
        #expect(try json(try geospend(["positions", "list", "--user", "ann", "--format", "json", "--db", db]).out)["total_positions"] as? Int == 55)

        // users export holds the history; positions delete --before keeps the later fixes.
        let export = try geospend(["users", "export", "ann", "--db", db])
        #expect(export.out.contains("\"positions\":[") && export.out.contains("\"source\":\"csv\""), "\(export.err)")
        #expect(export.out.contains("\"positions\":55"))
        let cut = try geospend(["positions", "delete", "--user", "ann", "--before", "2026-03-05T12:00:00Z", "--yes", "--db", db])
        #expect(cut.status == 0 && cut.out.contains("deleted 30 positions"), "\(cut.out) \(cut.err)")

        // users delete leaves no fix of hers in the tables.
        #expect(try geospend(["users", "delete", "ann", "--yes", "--db", db]).status == 0)
        let left = try DatabaseQueue(path: db).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM positions") }
        #expect(left == 0)
    }
}
