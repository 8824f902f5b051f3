import Foundation
import GeoSpendTestSupport
#if canImport(Glibc)
import Glibc
#endif
import GRDB
import GeoSpend
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// User isolation, end to end through the `geospend` binary: nothing a command scoped to one
/// user prints, counts or exports depends on another user's rows, and `users delete` leaves no
/// row, index entry, statistic or stray byte of the deleted user in the file.
///
/// Method: alice's outputs from a database holding only her (`alone`) must be byte-identical
/// to those from a database where bob spends at the same stores, at the same places, at some
/// of her very coordinates, with the same merchant texts (`shared`) — and again after
/// `users delete bob`. The comparison cannot pass vacuously: in a third database bob's rows are
/// filed under alice (`merged`), and every one of those outputs must then differ.
///
/// Over HTTP the same guarantee is checked per endpoint by
/// Tests/GeoSpendServiceTests/ServiceIsolationTests.swift (`geospend serve`, one token per user).
@Suite(.serialized) struct IsolationTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-isolation-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// Fixed generation time: exports are then byte-for-byte reproducible.
    static let environment: [String: String] = {
        var e = ProcessInfo.processInfo.environment
        e["GEOSPEND_DB"] = nil
        e["SOURCE_DATE_EPOCH"] = "1772000000"
        return e
    }()

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: Self.environment)
    }

    /// A database with the fixture's stores, the given expense rows, and the budgets of
    /// `budgets` (owner, filed under), added in that order.
    /// With `onPostgreSQL`, a new database on the test server (`$GEOSPEND_TEST_POSTGRES`), without
    /// the shopping lists and price records: `pricesAndListsOnPostgreSQL` (IsolationTests+PostGISPrices.swift)
    /// checks those there.
    func database(_ name: String, rows: [IsolationFixture.Row], budgets: [(String, String)] = [], onPostgreSQL: Bool = false) throws -> String {
        let db = onPostgreSQL ? PostGISTestServer.url(try PostGISTestServer.newDatabase()) : dir.appendingPathComponent("\(name).sqlite").path
        let stores = dir.appendingPathComponent("\(name)-stores.csv").path
        let expenses = dir.appendingPathComponent("\(name)-expenses.csv").path
        try IsolationFixture.storesCSV.write(toFile: stores, atomically: true, encoding: .utf8)
        try IsolationFixture.csv(rows).write(toFile: expenses, atomically: true, encoding: .utf8)
        for (what, file) in [("stores", stores), ("expenses", expenses)] {
            let r = try geospend(["import", what, file, "--db", db])
            try #require(r.status == 0, "\(r.err)")
        }
        // Each user's period 1 holds every third of the rows filed under them (bob's name
        // carries his marker, for the byte scans). Bob's is made first, so a query that took
        // "period 1" without its user would find his row before alice's.
        for user in Set(rows.map(\.user)).sorted(by: >) {
            let name = user == "bob" ? "\(IsolationFixture.bobMarker) trip" : "Trip"
            let ids = rows.filter { $0.user == user && Int($0.id.dropFirst())! % 3 == 0 }.map(\.id)
            for args in [
                ["periods", "add", "--user", user, "--name", name, "--from", "2025-02-01", "--to", "2025-04-30"],
                ["periods", "assign", "--user", user, "--period", "1"] + ids,
            ] {
                let r = try geospend(args + ["--db", db])
                try #require(r.status == 0, "\(r.err)")
            }
        }
        for (owner, user) in budgets {
            for args in IsolationFixture.budgets(of: owner) {
                let r = try geospend(["budgets", "add", "--user", user, "--db", db] + args)
                try #require(r.status == 0, "\(r.err)")
            }
            // A location history each (issue 36), filed like the budgets.
            let history = dir.appendingPathComponent("\(name)-history-\(owner).csv").path
            try IsolationFixture.history(of: owner).write(toFile: history, atomically: true, encoding: .utf8)
            let imported = try geospend(["import", "positions", history, "--user", user, "--db", db])
            try #require(imported.status == 0, "\(imported.err)")
            // Settings each: a zone and a retention that keeps the whole history, filed alike.
            let settings = try geospend([
                "users", "settings", "--user", user, "--timezone", owner == "bob" ? "Asia/Tokyo" : "Europe/Helsinki",
                "--keep-positions", owner == "bob" ? "36000" : "36500", "--db", db,
            ])
            try #require(settings.status == 0, "\(settings.err)")
            // A recurring rule each (issue 38), filed like the budgets, with the same days.
            let bobsRule = owner == "bob"
            let rule = try geospend([
                "recurring", "add", "--user", user, "--every", "monthly", "--from", "2025-01-31", "--amount", bobsRule ? "700" : "950",
                "--currency", "EUR", "--title", bobsRule ? "\(IsolationFixture.bobMarker) rent" : "Rent", "--db", db,
            ])
            try #require(rule.status == 0, "\(rule.err)")
            // A pantry item each (issue 38), expiring on the same day.
            let pantry = try geospend([
                "pantry", "add", "--user", user, "--name", bobsRule ? "\(IsolationFixture.bobMarker) yoghurt" : "Yoghurt", "--quantity", "2",
                "--expires", "2026-03-20", "--db", db,
            ])
            try #require(pantry.status == 0, "\(pantry.err)")
            // A store each adds (issue 38), a favourite and a default, filed alike: each user's
            // mine-1 is their own; bob's name and position are his alone.
            for args in [
                ["stores", "add", "--user", user, "--name", bobsRule ? "\(IsolationFixture.bobMarker) shop" : "K-Market Kallio", "--lat",
                 bobsRule ? "60.2013" : "60.1841", "--lon", bobsRule ? "24.9021" : "24.9500", "--kind", "supermarket", "--region", "Uusimaa"],
                // bob's favourite is his own store: filed under alice it marks her mine-1.
                ["stores", "favourite", "--user", user, bobsRule ? "mine-1" : "s-cafe"],
                ["stores", "default", "--user", user, "mine-1"],
            ] {
                let r = try geospend(args + ["--db", db])
                try #require(r.status == 0, "\(r.err)")
            }
            // Each joins the community (issue 38) under a name of their own, filed alike: the
            // price records below become their feed entries, verified from their own data only.
            let joined = try geospend([
                "community", "join", "--user", user, "--display-name", bobsRule ? "\(IsolationFixture.bobMarker) B" : "Alice", "--db", db,
            ])
            try #require(joined.status == 0, "\(joined.err)")
            if onPostgreSQL { continue }
            // A shopping list each (issue 18), filed like the budgets.
            let bob = owner == "bob", marker = IsolationFixture.bobMarker
            let list = try geospend([
                "lists", "add", "--user", user, "--name", bob ? "\(marker) list" : "List", "--budget", bob ? "12.00" : "30.00",
                "--currency", "EUR", "--item", bob ? "\(marker) milk=2" : "Milk=1", "--db", db,
            ])
            try #require(list.status == 0, "\(list.err)")
            // Its item checked off into the pantry (issue 38): a purchase and a pantry item each,
            // a year after the budgets (whose threshold events a March 2025 purchase would raise)
            // (the list's id as `lists add` printed it: bob's filed under alice is her list 2).
            let listID = try #require(list.out.firstMatch(of: /List (\d+)/).map { String($0.1) }, "\(list.out)")
            let check = try geospend([
                "lists", "check", "--user", user, listID, bob ? "\(marker) milk" : "Milk", "--price", bob ? "0.99" : "1.29",
                "--at", "2026-03-12T12:00:00+02:00", "--expires", bob ? "2026-03-21" : "2026-03-22", "--db", db,
            ])
            try #require(check.status == 0, "\(check.err)")
            // An API token each (issue 20), filed like the budgets.
            let token = try geospend(["tokens", "create", "--user", user, "--scope", bob ? "write" : "read", "--db", db])
            try #require(token.status == 0, "\(token.err)")
        }
        if onPostgreSQL {
            for (owner, user) in budgets {
                let r = try geospend(["tokens", "create", "--user", user, "--scope", owner == "bob" ? "write" : "read", "--db", db])
                try #require(r.status == 0, "\(r.err)")
            }
            return db
        }
        // A receipt each (issue 42 §2) right after the owner's prices, alice's first; bob's names
        // his marker. On a day no budget covers, so no budget event is raised. Both make
        // community entries, whose ids are the shared feed's: alice's come first in every database.
        for (owner, user) in budgets {
            let prices = dir.appendingPathComponent("\(name)-prices-\(owner).csv").path
            try IsolationFixture.prices(of: owner).write(toFile: prices, atomically: true, encoding: .utf8)
            let imported = try geospend(["prices", "import", prices, "--user", user, "--db", db])
            try #require(imported.status == 0, "\(imported.err)")
            // The same file name in every database (the expense's notes name it).
            let folder = dir.appendingPathComponent("\(name)-receipts")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("receipt-\(owner).txt").path
            try Self.receiptText(of: owner).write(toFile: file, atomically: true, encoding: .utf8)
            let r = try geospend(["receipts", "import", file, "--user", user, "--store", "s-market", "--db", db])
            try #require(r.status == 0 && r.out.contains(": ok,"), "\(r.out) \(r.err)")
        }
        // Tags, favourites and the on-sale flag each (issue 38), on the shared milk among others.
        for (owner, user) in budgets {
            for args in IsolationFixture.productMarks(of: owner, user: user) {
                let r = try geospend(args + ["--db", db])
                try #require(r.status == 0, "\(args): \(r.err)")
            }
        }
        return db
    }

    /// The owner's receipt (issue 42 §2), as text: bob's line names his marker.
    static func receiptText(of owner: String) -> String {
        owner == "bob"
            ? "K-Market\n15.06.2023 10:00\n\(IsolationFixture.bobMarker) bread 2,00\nSUMME 2,00\n"
            : "K-Market\n14.06.2023 09:00\nMilk 1,10\nSUMME 1,10\n"
    }

    /// Every command scoped to alice, each run as it is (outputs to stdout; the bundle to a folder).
    static let aliceCommands: [[String]] = {
        let (p1, p2, kiosk, home) = (IsolationFixture.placeOne, IsolationFixture.placeTwo, IsolationFixture.kiosk, IsolationFixture.bobHome)
        func near(_ c: (Double, Double), _ r: String, _ more: [String] = []) -> [String] {
            ["near", "--user", "alice", "--lat", "\(c.0)", "--lon", "\(c.1)", "--radius", r] + more
        }
        let user = ["--user", "alice"]
        return [
            near(p1, "300m", ["--format", "json"]),
            near(p2, "200m", ["--format", "csv"]),
            near(kiosk, "100m"),
            near(home, "2km", ["--format", "json"]),  // bob's home: alice has nothing there
            near(p1, "5km", ["--from", "2025-03-01", "--to", "2025-04-30", "--format", "json"]),
            near(p1, "5km", ["--category", "food", "--format", "json"]),
            // Bob's home with latitude and longitude swapped: the swap note must look at alice's
            // expenses only (bob has some there, so a note would betray him).
            near((home.1, home.0), "300m"),
            ["insights"] + user + ["--by", "store", "--format", "json"],
            ["insights"] + user + ["--by", "place", "--format", "json"],
            ["insights"] + user + ["--by", "place", "--from", "2025-03-01", "--to", "2025-04-30", "--format", "json"],
            ["insights"] + user + ["--by", "place", "--format", "markdown"],
            ["summary"] + user + ["--format", "json"],
            ["summary"] + user + ["--month", "2025-03", "--format", "csv"],
            ["snap"] + user + ["--dry-run", "--format", "json"],
            ["export", "points"] + user,
            ["export", "points"] + user + ["--format", "csv", "--currency", "EUR"],
            ["export", "points"] + user + ["--currency", "SEK"],
            ["export", "grid"] + user + ["--shape", "hex", "--cell", "250m"],
            ["export", "grid"] + user + ["--shape", "square", "--cell", "100m", "--metric", "average"],
            // H3 from the map rollups (docs/ROLLUPS.md), and at a resolution they do not keep (a scan).
            ["export", "grid"] + user + ["--shape", "h3", "--resolution", "9"],
            ["export", "grid"] + user + ["--shape", "h3", "--resolution", "11", "--currency", "EUR"],
            ["export", "density"] + user + ["--bandwidth", "300m", "--cell", "50m"],
            ["export", "places"] + user,
            ["export", "places"] + user + ["--from", "2025-03-01", "--to", "2025-04-30"],
            ["export", "leaflet-heat"] + user,
            ["users", "export", "alice"],
            ["categories"] + user,
            ["categories", "list"] + user + ["--format", "json"],
            ["categories", "list"] + user + ["--all", "--format", "json"],
            ["expenses", "list"] + user + ["--limit", "1000", "--format", "json"],
            ["expenses", "list"] + user + ["--limit", "3", "--from", "2025-03-01"],
            ["expenses", "search"] + user + ["market", "--format", "json"],
            ["budgets", "list"] + user + ["--all", "--format", "json"],
            ["budgets", "list"] + user,
            ["budgets", "summary"] + user + ["--id", "1", "--as-of", "2025-03-20", "--format", "json"],
            ["budgets", "summary"] + user + ["--id", "3", "--as-of", "2025-03-20"],
            ["budgets", "alerts"] + user + ["--as-of", "2025-03-20", "--format", "json"],
            ["periods", "list"] + user,
            ["periods", "list"] + user + ["--format", "json"],
            ["summary"] + user + ["--period", "1", "--format", "json"],
            near(p1, "5km", ["--period", "1", "--format", "json"]),
            ["insights"] + user + ["--by", "place", "--period", "1", "--format", "json"],
            ["export", "points"] + user + ["--period", "1"],
            ["prices", "history", "--product", "Milk", "--format", "json"] + user,
            ["prices", "history", "--product", "milk", "--store", "s-market"] + user,
            ["products", "search", "", "--format", "json"] + user,
            ["products", "search", "cheese"] + user,  // bob's only: nothing for alice
            ["products", "list"] + user + ["--format", "json"],
            ["products", "list"] + user + ["--tag", "breakfast"],
            ["products", "tags"] + user + ["--format", "json"],
            ["prices", "list"] + user + ["--format", "json"],
            ["lists", "show"] + user,
            ["lists", "show"] + user + ["--format", "json"],
            ["receipts", "list"] + user + ["--format", "json"],
            ["receipts", "list"] + user,
            ["lists", "list"] + user + ["--all", "--format", "json"],
            ["trends"] + user + ["--format", "json"],
            ["trends"] + user + ["--by", "store", "--format", "csv"],
            ["tokens", "list"] + user + ["--format", "json"],
            ["positions", "list"] + user + ["--limit", "0", "--format", "json"],
            ["positions", "summary"] + user + ["--timezone", "Europe/Helsinki", "--format", "json"],
            ["geotag"] + user + ["--dry-run", "--timezone", "Europe/Helsinki", "--format", "json"],
            // Without --timezone: the user's own zone (`users settings`), never another's.
            ["positions", "summary"] + user + ["--format", "json"],
            ["geotag"] + user + ["--dry-run", "--format", "json"],
            ["users", "settings"] + user + ["--format", "json"],
            ["users", "settings"] + user,
            ["recurring", "list"] + user + ["--format", "json"],
            ["recurring", "list"] + user,
            ["pantry", "list"] + user + ["--all", "--format", "json"],
            ["pantry", "list"] + user,
            ["pantry", "predict"] + user + ["--as-of", "2026-04-30", "--format", "json"],
            ["stores", "list"] + user + ["--format", "json"],
            ["stores", "list"] + user,
            ["stores", "show"] + user + ["mine-1", "--format", "json"],
            // Issue 38: next to bob's added store, the shared ones and alice's own only.
            ["nearest-stores", "--lat", "60.2013", "--lon", "24.9021", "-k", "3", "--format", "json"] + user,
            // The feed is shared by design; a member's own standing is not.
            ["community", "level"] + user + ["--format", "json"],
            ["community", "level"] + user,
        ]
    }()

    /// Runs every alice command (and the bundle) against `db`: status, stdout and stderr per
    /// command, the database path replaced so databases compare.
    func aliceOutputs(_ db: String) throws -> [String] {
        var outputs: [String] = []
        for args in Self.aliceCommands(onPostgreSQL: db.hasPrefix("postgresql://")) {
            let r = try geospend(args + ["--db", db])
            #expect(r.status == 0, "\(args): \(r.err)")
            outputs.append(Self.normalised("\(r.status)\n\(r.out)\n--- stderr\n\(r.err)", db: db))
        }
        let bundle = dir.appendingPathComponent("bundle-\(UUID().uuidString)").path
        let r = try geospend(["export", "bundle", "--user", "alice", "--out", bundle, "--db", db])
        #expect(r.status == 0, "\(r.err)")
        for file in ["points.geojson", "hex.geojson", "places.geojson", "layers.js", "index.html"] {
            outputs.append(try String(contentsOfFile: bundle + "/" + file, encoding: .utf8))
        }
        // Vector tiles: the MBTiles file's metadata and every tile's bytes, read by sqlite3.
        for layer in Self.tileLayers {
            let mbtiles = dir.appendingPathComponent("tiles-\(UUID().uuidString).mbtiles").path
            let t = try geospend(["export", "tiles", "--layer", layer, "--user", "alice", "--max-zoom", "12", "--out", mbtiles, "--db", db])
            #expect(t.status == 0, "\(t.err)")
            outputs.append(try Reliability.sql(
                mbtiles, "SELECT name, value FROM metadata ORDER BY name; SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles ORDER BY 1, 2, 3;",
                shell: Reliability.sqlite3).joined(separator: "\n"))
        }
        return outputs
    }

    /// Creation times (of the user, of budgets, of products, records, periods and categories) and
    /// `updated_at`s are the only stored values that depend on when a database was made.
    static func normalised(_ text: String, db: String) -> String {
        text.replacingOccurrences(of: db, with: "DB")
            .replacingOccurrences(of: #""created_at": ?"[^"]*""#, with: #""created_at":"…""#, options: .regularExpression)
            .replacingOccurrences(of: #""updated_at": ?"[^"]*""#, with: #""updated_at":"…""#, options: .regularExpression)
            .replacingOccurrences(of: #""joined_at": ?"[^"]*""#, with: #""joined_at":"…""#, options: .regularExpression)
            // The store's clock in tables and CSV (issue 38's created_at/updated_at columns).
            .replacingOccurrences(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#, with: "…", options: .regularExpression)
    }

    /// The commands checked on PostgreSQL here (prices, products and lists have their own test there).
    static func aliceCommands(onPostgreSQL: Bool) -> [[String]] {
        onPostgreSQL
            // pantry predict reads price records, which this fixture files on the file only.
            ? aliceCommands.filter { !["prices", "products", "lists", "receipts"].contains($0[0]) && $0.prefix(2) != ["pantry", "predict"] } : aliceCommands
    }

    static func labels(onPostgreSQL: Bool = false) -> [String] {
        aliceCommands(onPostgreSQL: onPostgreSQL).map { $0.joined(separator: " ") } + ["points.geojson", "hex.geojson", "places.geojson", "layers.js", "index.html"].map { "bundle " + $0 }
            + tileLayers.map { "export tiles --layer " + $0 }
    }

    static let tileLayers = ["heat", "points", "places"]

    @Test func noCommandScopedToOneUserSeesAnother() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = try database("alone", rows: IsolationFixture.rows(for: ["alice"]), budgets: [("alice", "alice")])
        let shared = try database("shared", rows: IsolationFixture.rows(for: ["alice", "bob"]), budgets: [("alice", "alice"), ("bob", "bob")])
        let merged = try database(
            "merged", rows: IsolationFixture.rows(for: ["alice", "bob"]).map { $0.filed(under: "alice") }, budgets: [("alice", "alice"), ("bob", "alice")])

        let reference = try aliceOutputs(alone)
        let control = try aliceOutputs(merged)
        for (label, (a, m)) in zip(Self.labels(), zip(reference, control)) where label != "bundle index.html" {  // the page holds no data
            #expect(a != m, "\(label): bob's rows filed under alice change nothing, so this comparison proves nothing")
        }
        try expectSame(try aliceOutputs(shared), reference, "bob present")

        // The fixture really overlaps: some of bob's clusters lie within 75 m of alice's.
        #expect(try clusterOverlap(shared) > 0)

        // Writing for alice (snap, periods) leaves bob's rows alone and alice's outputs still match.
        let bobBefore = try geospend(["users", "export", "bob", "--db", shared])
        var periodWrites: [[String]] = []
        for db in [alone, shared] {
            let snap = try snapPlan(["--user", "alice"], db)
            #expect(snap.written > 0 && snap.written == snap.assigned)
            let alice = ["--user", "alice"]
            periodWrites.append(try [
                ["periods", "add"] + alice + ["--name", "Spring", "--from", "2025-03-01", "--format", "json"],
                ["periods", "assign"] + alice + ["--period", "2", "x000", "x002", "x004"],
                ["periods", "edit", "2"] + alice + ["--to", "2025-05-31"],
                ["periods", "unassign"] + alice + ["x002"],
                ["periods", "assign"] + alice + ["--period", "2", "x001"],  // bob's: not found, in both
                ["periods", "delete", "2"] + alice,
                ["periods", "assign"] + alice + ["--period", "1", "x008", "x010"],
            ].map { args in
                let r = try geospend(args + ["--db", db])
                return Self.normalised("\(r.status)\n\(r.out)\n--- stderr\n\(r.err)", db: db)
            })
        }
        // Editing and deleting alice's budgets (bob has budgets of the same scopes) leaves bob's
        // alone; her ids are her own count (bob's budgets neither show in nor shift them), and
        // a deleted id is not given again.
        var budgetWrites: [[String]] = []
        for db in [alone, shared] {
            let spare = ["budgets", "add", "--user", "alice", "--name", "Spare", "--amount", "5", "--currency", "EUR", "--from", "2025-06-01", "--to", "2025-06-02", "--category", "Others"]
            budgetWrites.append(try [
                ["budgets", "edit", "--user", "alice", "--id", "1", "--amount", "101.00"],
                spare,
                ["budgets", "delete", "--user", "alice", "--id", "4"],
                spare,
            ].map { args in
                let r = try geospend(args + ["--db", db])
                return "\(r.status)\n\(r.out)\n--- stderr\n\(r.err)"
            })
        }
        #expect(budgetWrites[0] == budgetWrites[1], "alice's budget commands answer the same with bob present")
        #expect(budgetWrites[0][3].hasPrefix("0\nadded budget 5:"), "\(budgetWrites[0][3])")
        for command in [["edit", "--name", "mine"], ["delete"]] {
            let r = try geospend(["budgets", command[0], "--user", "alice", "--id", "4", "--db", shared] + command.dropFirst())
            #expect(r.status == 2 && r.err.contains("no budget 4 of user \"alice\""), "\(r.err)")
        }
        #expect(periodWrites[0] == periodWrites[1], "alice's period commands answer the same with bob present")
        #expect(periodWrites[0][4].hasPrefix("2\n"), "bob's expense is not alice's to assign")
        #expect(try geospend(["users", "export", "bob", "--db", shared]).out == bobBefore.out)
        #expect(try snapPlan(["--user", "bob", "--dry-run"], shared).assigned > 0, "bob's own unlinked expenses are still there to snap")
        let afterSnap = try aliceOutputs(alone)
        try expectSame(try aliceOutputs(shared), afterSnap, "bob present, after snap")

        // Statistics SpatiaLite keeps when asked (QGIS, `spatialite`) must not keep bob either.
        for db in [alone, shared] {
            let r = try runProgram("/usr/bin/sqlite3", [db, "SELECT load_extension('mod_spatialite'); SELECT UpdateLayerStatistics('expenses', 'geom');"])
            #expect(r.status == 0 && r.out.hasSuffix("1\n"), "\(r.out) \(r.err)")
        }

        // Before deletion the scans below do find bob: they can fail.
        // (Bob's rows at alice's very coordinates stay as hers: only his own values are looked for.)
        let aliceValues = Set(IsolationFixture.rows(for: ["alice"]).flatMap { [$0.lat, $0.lon] }.compactMap { $0 })
        let bobOnly = IsolationFixture.rows(for: ["bob"]).filter { r in [r.lat, r.lon].allSatisfy { $0 != nil && !aliceValues.contains($0!) } }
        #expect(bobOnly.count > 20)
        #expect(try rowsMentioningBob(shared) > 0)
        #expect(try !bytePatterns(of: bobOnly, foundIn: shared).isEmpty)

        // Deletion: refused without --yes off a terminal, then done, with the count of rows.
        let bobCounts = try #require(try SpatiaLiteStore(path: shared).readHere { try $0.users() }.first { $0.id == "bob" })
        let refused = try runProgram("/bin/sh", ["-c", "exec \"$0\" users delete bob --db \"$1\" < /dev/null", CLITests.binary, shared])
        #expect(refused.status == 2 && refused.err.contains("--yes"), "\(refused.err)")
        #expect(try SpatiaLiteStore(path: shared).readHere { try $0.users() }.map(\.id) == ["alice", "bob"])
        // Bob's map rollup rows (derived from his expenses, docs/ROLLUPS.md) go with him.
        let bobRollups = try read(shared) { try Int.fetchOne($0, sql: "SELECT count(*) FROM map_rollups WHERE user_id = 'bob'") ?? 0 }
        #expect(bobRollups > 0)
        let deleted = try geospend(["users", "delete", "bob", "--yes", "--db", shared])
        #expect(deleted.status == 0, "\(deleted.err)")
        let bobBudgets = IsolationFixture.budgets(of: "bob"), bobLimits = bobBudgets.joined().filter { $0 == "--category-limit" }.count
        // `+ 1`: bob's price record at his own store (issue 38), which makes no feed entry.
        #expect(deleted.out == "deleted user bob: \(bobCounts.expenses + bobCounts.categories + bobBudgets.count + bobLimits + bobRollups + 4 + 5 + 3 + 2 + 40 + 1 + 1 + 3 + 2 + 2 + 6 + 1 + 2 + 1 + 4 + 1 + 1) rows (expenses \(bobCounts.expenses), api_token_numbers 1, api_tokens 1, budget_category_limits \(bobLimits), budget_numbers 1, budgets \(bobBudgets.count), categories \(bobCounts.categories), community_comments 0, community_members 1, community_posts 5, default_stores 1, map_rollups \(bobRollups), notification_events 1, notification_settings 0, pantry_items 2, pantry_numbers 1, period_numbers 1, periods 1, positions 40, price_records 6, product_marks 1, product_tag_links 2, product_tags 1, receipts 1, recurring_numbers 1, recurring_rules 1, shopping_list_items 1, shopping_list_numbers 1, shopping_lists 1, store_favourites 1, user_settings 1, user_store_numbers 1, user_stores 1, visits 0, webhook_deliveries 0, webhooks 0, users 1, products 2)\n")
        #expect(deleted.err.isEmpty, "\(deleted.err)")
        let again = try geospend(["users", "delete", "bob", "--yes", "--db", shared])
        #expect(again.status == 2 && again.err.contains("no user \"bob\""), "\(again.err)")
        #expect(try geospend(["users", "export", "bob", "--db", shared]).status == 2)

        // Nothing of bob anywhere; the file and its spatial indexes are sound; alice unchanged.
        #expect(try rowsMentioningBob(shared) == 0)
        let traces = try bytePatterns(of: bobOnly, foundIn: shared)
        #expect(traces == [], "bob's data still in the file: \(traces)")
        try expectSound(shared)
        #expect(try layerStatistics(shared) == (try layerStatistics(alone)))
        try expectSame(try aliceOutputs(shared), afterSnap, "after users delete bob")
        #expect(try SpatiaLiteStore(path: shared).readHere { try $0.counts() }.stores == 4, "stores are shared: they stay")
    }

    /// The same method on `--db postgresql://…` (the commands whose tables PostgreSQL has):
    /// alice's outputs with bob beside her equal those without him, and differ when his rows are
    /// filed under her; alice's edits (periods, budgets) answer the same with bob present; after
    /// `users delete bob` no table holds a row of his and alice's outputs are unchanged.
    @Test(.enabled(if: PostGISTestServer.address != nil, "needs $GEOSPEND_TEST_POSTGRES (make test starts a server)"))
    func noCommandScopedToOneUserSeesAnotherOnPostgreSQL() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = try database("alone", rows: IsolationFixture.rows(for: ["alice"]), budgets: [("alice", "alice")], onPostgreSQL: true)
        let shared = try database(
            "shared", rows: IsolationFixture.rows(for: ["alice", "bob"]), budgets: [("alice", "alice"), ("bob", "bob")], onPostgreSQL: true)
        let merged = try database(
            "merged", rows: IsolationFixture.rows(for: ["alice", "bob"]).map { $0.filed(under: "alice") },
            budgets: [("alice", "alice"), ("bob", "alice")], onPostgreSQL: true)
        let reference = try aliceOutputs(alone)
        let control = try aliceOutputs(merged)
        for (label, (a, m)) in zip(Self.labels(onPostgreSQL: true), zip(reference, control)) where label != "bundle index.html" {
            #expect(a != m, "\(label): bob's rows filed under alice change nothing, so this comparison proves nothing")
        }
        try expectSame(try aliceOutputs(shared), reference, "bob present", onPostgreSQL: true)

        let alice = ["--user", "alice"]
        let writes = try [alone, shared].map { db in
            try [
                ["periods", "add"] + alice + ["--name", "Spring", "--from", "2025-03-01", "--format", "json"],
                ["periods", "assign"] + alice + ["--period", "2", "x000", "x002", "x004"],
                ["periods", "assign"] + alice + ["--period", "2", "x001"],  // bob's: not found, in both
                ["periods", "delete", "2"] + alice,
                ["budgets", "edit", "--user", "alice", "--id", "1", "--amount", "101.00"],
                ["budgets", "add", "--user", "alice", "--name", "Spare", "--amount", "5", "--currency", "EUR", "--from", "2025-06-01",
                 "--to", "2025-06-02", "--category", "Others"],
                ["budgets", "delete", "--user", "alice", "--id", "4"],
                ["expenses", "edit", "x000"] + alice + ["--notes", "mine"],
                ["expenses", "edit", "x001"] + alice + ["--notes", "mine"],  // bob's
                ["expenses", "delete", "x001"] + alice,  // bob's
                ["tokens", "revoke", "--user", "alice", "2"],  // none: bob's is his own 1
                ["tokens", "revoke", "--user", "alice", "1"],
            ].map { args in
                let r = try geospend(args + ["--db", db])
                return Self.normalised("\(r.status)\n\(r.out)\n--- stderr\n\(r.err)", db: db)
                    .replacingOccurrences(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#, with: "…", options: .regularExpression)
            }
        }
        #expect(writes[0] == writes[1], "alice's edits answer the same with bob present")
        #expect(writes[0][2].hasPrefix("2\n") && writes[0][8].hasPrefix("2\n") && writes[0][9].hasPrefix("2\n"), "\(writes[0])")
        let after = try aliceOutputs(alone)
        try expectSame(try aliceOutputs(shared), after, "bob present, after alice's edits", onPostgreSQL: true)

        let deleted = try geospend(["users", "delete", "bob", "--yes", "--db", shared])
        #expect(deleted.status == 0 && deleted.out.hasPrefix("deleted user bob: "), "\(deleted.err)")
        // Every table with a user_id column (as `users delete` finds them), and bob's marker anywhere.
        let left = try runProgram("/usr/bin/psql", [shared, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", """
            DO $$ DECLARE t text; n bigint; total bigint := 0; BEGIN
              FOR t IN SELECT c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                       WHERE a.attname = 'user_id' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                         AND c.relnamespace = current_schema()::regnamespace LOOP
                EXECUTE format('SELECT count(*) FROM %I WHERE user_id = %L', t, 'bob') INTO n; total := total + n;
              END LOOP;
              RAISE NOTICE 'left %', total + (SELECT count(*) FROM users WHERE id = 'bob');
            END $$;
            SELECT count(*) FROM budgets WHERE name LIKE '%\(IsolationFixture.bobMarker)%';
            SELECT count(*) FROM periods WHERE name LIKE '%\(IsolationFixture.bobMarker)%';
            """])
        #expect(left.status == 0 && left.err.contains("left 0") && left.out == "0\n0\n", "\(left.out) \(left.err)")
        try expectSame(try aliceOutputs(shared), after, "after users delete bob", onPostgreSQL: true)
    }

    /// On a terminal (util-linux `script` gives the command one) deletion asks first.
    @Test func deleteAsksOnATerminal() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database("tty", rows: IsolationFixture.rows(for: ["alice", "bob"]))
        func delete(answering answer: String) throws -> (status: Int32, out: String, err: String) {
            try runProgram("/bin/sh", ["-c", "printf '\(answer)\\n' | script -qec \"'$0' users delete bob --db '$1'\" /dev/null", CLITests.binary, db])
        }
        let no = try delete(answering: "n")
        #expect(no.status == 1 && no.out.contains("[y/N]") && no.out.contains("nothing deleted"), "\(no.out)")
        #expect(try SpatiaLiteStore(path: db).readHere { try $0.users() }.map(\.id) == ["alice", "bob"])
        let yes = try delete(answering: "y")
        #expect(yes.status == 0 && yes.out.contains("deleted user bob: "), "\(yes.out)")
        #expect(try SpatiaLiteStore(path: db).readHere { try $0.users() }.map(\.id) == ["alice"])
    }

    func expectSame(_ outputs: [String], _ reference: [String], _ situation: String, onPostgreSQL: Bool = false) throws {
        try #require(outputs.count == reference.count)
        for (label, (o, r)) in zip(Self.labels(onPostgreSQL: onPostgreSQL), zip(outputs, reference)) {
            #expect(o == r, "\(label) differs with \(situation)")
        }
    }

    /// `geospend snap … --format json`: how many expenses it assigned and wrote.
    func snapPlan(_ args: [String], _ db: String) throws -> (assigned: Int, written: Int) {
        let r = try geospend(["snap", "--format", "json", "--db", db] + args)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.err)")
        return ((json["assigned"] as? [Any])?.count ?? -1, json["written"] as? Int ?? -1)
    }

    /// Reads through the library (SpatiaLite loaded, nothing written).
    func read<T>(_ db: String, _ body: (Database) throws -> T) throws -> T {
        try SpatiaLiteStore(path: db).readDatabase(body)
    }

    /// Rows of any table with any column equal to "bob" or containing bob's marker text; every
    /// column of every table, not just those known to hold users.
    func rowsMentioningBob(_ path: String) throws -> Int {
        try read(path) { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'")
            var found = 0
            for table in tables {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                let test = columns.map { c in
                    "CAST(\(c.quotedDatabaseIdentifier) AS TEXT) = 'bob' OR instr(CAST(\(c.quotedDatabaseIdentifier) AS TEXT), '\(IsolationFixture.bobMarker)') > 0"
                }
                guard !test.isEmpty else { continue }
                found += try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier) WHERE \(test.joined(separator: " OR "))") ?? 0
            }
            return found
        }
    }

    /// Which traces of these rows the database file (and its write-ahead log) still hold, byte
    /// for byte: the marker text, coordinates as SQLite stores them (big-endian doubles), as
    /// SpatiaLite's geometry blobs hold them (little-endian doubles), and as the R*Tree keeps them
    /// (32-bit floats: longitude, then latitude 4 to 12 bytes later).
    func bytePatterns(of rows: [IsolationFixture.Row], foundIn path: String) throws -> [String] {
        var bytes: [UInt8] = []
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            bytes += try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        }
        var found: Set<String> = []
        if !bytes.offsets(of: Array(IsolationFixture.bobMarker.utf8)).isEmpty { found.insert("marker text") }
        for row in rows {
            guard let lat = row.lat, let lon = row.lon else { continue }
            for (name, value) in [("lat", lat), ("lon", lon)] {
                if !bytes.offsets(of: withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init)).isEmpty { found.insert("\(name) as REAL") }
                if !bytes.offsets(of: withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init)).isEmpty { found.insert("\(name) in geometry") }
            }
            let x: [UInt8] = withUnsafeBytes(of: Float(lon).bitPattern.bigEndian, Array.init)
            let y: [UInt8] = withUnsafeBytes(of: Float(lat).bitPattern.bigEndian, Array.init)
            for at in bytes.offsets(of: x) {
                for gap in [4, 8, 12] where at + gap + 4 <= bytes.count {
                    let next: [UInt8] = Array(bytes[(at + gap)..<(at + gap + 4)])
                    if next == y { found.insert("R*Tree cell") }
                }
            }
        }
        return found.sorted()
    }

    /// `PRAGMA integrity_check`, SpatiaLite's `CheckSpatialIndex` and SQLite's `rtreecheck` on
    /// both spatial indexes (through the `sqlite3` shell, an outside reader), and every R*Tree
    /// node's unused space zeroed.
    func expectSound(_ path: String) throws {
        let checks = try runProgram("/usr/bin/sqlite3", [path, """
            SELECT load_extension('mod_spatialite'); PRAGMA integrity_check;
            SELECT CheckSpatialIndex('expenses', 'geom'), CheckSpatialIndex('stores', 'geom'),
                rtreecheck('idx_expenses_geom'), rtreecheck('idx_stores_geom');
            """])
        #expect(checks.out == "\nok\n1|1|ok|ok\n" && checks.err.isEmpty, "\(checks.out) \(checks.err)")
        try read(path) { db in
            for row in try Row.fetchAll(db, sql: "SELECT nodeno, data FROM idx_expenses_geom_node") {
                let data: [UInt8] = [UInt8](row[1] as Data)
                let used = data.withUnsafeBytes(RTreeNode.usedSize)
                #expect(data[used...].allSatisfy { $0 == 0 }, "R*Tree node \(row[0] as Int64) keeps bytes after its last cell")
            }
        }
    }

    /// SpatiaLite's statistics of the expenses layer: extent, row count, and the minima and
    /// maxima of the columns whose values do not depend on row order.
    func layerStatistics(_ path: String) throws -> [String] {
        try read(path) { db in
            try String.fetchAll(db, sql: """
                SELECT printf('%d %.7f %.7f %.7f %.7f', row_count, extent_min_x, extent_min_y, extent_max_x, extent_max_y)
                FROM geometry_columns_statistics WHERE f_table_name = 'expenses'
                UNION ALL
                SELECT printf('%s %s %s %s %s', column_name, integer_min, integer_max, double_min, double_max)
                FROM geometry_columns_field_infos
                WHERE f_table_name = 'expenses' AND column_name IN ('amount_minor', 'occurred_ms', 'utc_offset_min', 'lat', 'lon', 'accuracy_m')
                """)
        }
    }

    /// How many of bob's clusters have a centroid within 75 m of one of alice's.
    func clusterOverlap(_ db: String) throws -> Int {
        func centroids(_ user: String) throws -> [(Double, Double)] {
            let r = try geospend(["insights", "--user", user, "--by", "place", "--format", "json", "--db", db])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            let places = try #require(json["places"] as? [[String: Any]])
            return places.compactMap { p in
                guard (p["place"] as? [String: Any])?["type"] as? String == "cluster", let c = p["centroid"] as? [String: Double] else { return nil }
                return (c["lat"]!, c["lon"]!)
            }
        }
        let alice = try centroids("alice")
        return try centroids("bob").filter { b in
            alice.contains { a in Geodesic.distance(latitude1: a.0, longitude1: a.1, latitude2: b.0, longitude2: b.1) < 75 }
        }.count
    }
}

extension SplitMix64 {
    /// A point within `meters` of `c` (a square, fine for tens of metres), 7 decimals.
    mutating func near(_ c: (Double, Double), _ meters: Double) -> (Double, Double) {
        let dLat = (unit() * 2 - 1) * meters / 111_320, dLon = (unit() * 2 - 1) * meters / (111_320 * cos(c.0 * .pi / 180))
        return (((c.0 + dLat) * 1e7).rounded() / 1e7, ((c.1 + dLon) * 1e7).rounded() / 1e7)
    }
}

/// The isolation fixture, produced by this code (nothing hand-edited): four stores in central
/// Helsinki, and per user 48 expenses drawn from a `SplitMix64` stream seeded per user — at two of
/// the stores, around two places without a store (within 30 m), near a kiosk without a store
/// link (to snap), in SEK, or without a position. Alice's and bob's ids interleave (`x000`,
/// `x001`, …); every sixth of bob's expenses sits at exactly alice's coordinates of the same
/// slot with her merchant text, his amounts are larger, and five more of his are at his home,
/// a place alice never goes; his notes carry a marker text the deletion scans look for.
enum IsolationFixture {
    static let storesCSV = """
        id,name,kind,brand,street,postcode,city,country,lat,lon
        s-cafe,Cafe Aalto,amenity:cafe,,Pohjoisesplanadi 39,00130,Helsinki,FI,60.1679,24.9446
        s-market,K-Market Kamppi,shop:supermarket,K-Market,Urho Kekkosen katu 1,00100,Helsinki,FI,60.1692,24.9320
        s-kiosk,R-kioski Rautatientori,shop:kiosk,R-kioski,Rautatientori 1,00100,Helsinki,FI,60.1705,24.9425
        s-far,Kiosk Far,shop:kiosk,,,,Helsinki,FI,60.2000,24.9000

        """
    static let stores: [String: (Double, Double)] = ["s-cafe": (60.1679, 24.9446), "s-market": (60.1692, 24.9320)]
    static let kiosk = (60.1705, 24.9425)
    static let placeOne = (60.1650, 24.9300)
    static let placeTwo = (60.1750, 24.9500)
    static let bobHome = (60.2412345, 25.0187654)
    static let bobMarker = "bob-note-5f2c"

    /// A location history (`import positions` CSV): fixes every minute for 20 minutes, alice's
    /// at place one, bob's at his home and then at K-Market Kamppi, on a day both have expenses.
    static func history(of owner: String) -> String {
        func fixes(_ hour: Int, _ p: (Double, Double)) -> [String] {
            (0..<20).map { m in "2025-03-05T\(hour < 10 ? "0" : "")\(hour):\(m < 10 ? "0" : "")\(m):00Z,\(p.0),\(p.1),8" }
        }
        let fixes = owner == "alice" ? fixes(9, placeOne) : fixes(7, bobHome) + fixes(12, stores["s-market"]!)
        return "time,lat,lon,accuracy\n" + fixes.joined(separator: "\n") + "\n"
    }

    struct Row {
        var id: String, user: String, kind = "expense", amount: String, currency = "EUR", occurredAt: String
        var category: String, merchant: String, lat: Double?, lon: Double?, accuracy: Double?, storeID: String?, notes: String?

        func filed(under user: String) -> Row {
            var r = self
            r.user = user
            return r
        }
    }

    /// Price records (GeoSpend's price CSV): both buy milk and rye bread at the same stores;
    /// bob also buys a product only he names, with his marker in its name, which `users
    /// delete bob` must take out of the shared catalogue.
    static func productMarks(of owner: String, user: String) -> [[String]] {
        let u = ["--user", user]
        if owner == "alice" {
            return [["products", "tag", "Milk", "--tag", "Breakfast", "--color", "orange"] + u, ["products", "favourite", "Rye bread"] + u]
        }
        return [
            ["products", "tag", "Milk", "--tag", "\(bobMarker) tag", "--color", "red"] + u,
            ["products", "tag", "\(bobMarker) cheese", "--tag", "\(bobMarker) tag"] + u,
            ["products", "favourite", "Milk"] + u, ["products", "sale", "Milk"] + u,
        ]
    }

    /// The last row each is at the owner's own added store, `mine-1` (issue 38): bob's, filed
    /// under alice, is at hers.
    static func prices(of owner: String) -> String {
        let header = "product,brand,barcode,category,store_id,price,currency,recorded_at,quantity,unit\n"
        if owner == "alice" {
            return header + """
                Milk,Valio,,Dairy,s-market,1.29,EUR,2025-03-02T09:00:00+02:00,1,l
                Milk,Valio,,Dairy,s-kiosk,1.59,EUR,2025-03-05T09:00:00+02:00,1,l
                Milk,Valio,,Dairy,s-market,1.35,EUR,2025-03-09T09:00:00+02:00,1,l
                Milk,Valio,,Dairy,s-market,12.90,EUR,2025-03-16T09:00:00+02:00,1,l
                Rye bread,,,Bakery,s-market,2.49,EUR,2025-03-02T09:00:00+02:00,1,pcs
                Milk,Valio,,Dairy,mine-1,1.19,EUR,2025-03-12T09:00:00+02:00,1,l

                """
        }
        return header + """
            Milk,Valio,,Dairy,s-market,1.31,EUR,2025-03-03T10:00:00+02:00,1,l
            milk 1 l,Valio,,Dairy,s-kiosk,1.61,EUR,2025-03-06T10:00:00+02:00,1,l
            \(bobMarker) cheese,,,Dairy,s-cafe,5.00,EUR,2025-03-07T10:00:00+02:00,250,g
            Rye bread,,,Bakery,s-kiosk,2.59,EUR,2025-03-08T10:00:00+02:00,1,pcs
            Milk,Valio,,Dairy,mine-1,1.05,EUR,2025-03-13T10:00:00+02:00,1,l

            """
    }

    /// The rows of these users (alice's are the same whoever else is there), in id order.
    static func rows(for users: [String]) -> [Row] {
        var alice = SplitMix64(seed: 20_260_307)
        var bob = SplitMix64(seed: 20_260_308)
        var rows: [Row] = []
        var aliceSpots: [Int: (Double, Double)] = [:]
        for (u, user) in ["alice", "bob"].enumerated() {
            var rng = user == "alice" ? alice : bob
            defer { if user == "alice" { alice = rng } else { bob = rng } }
            for k in 0..<48 {
                let month = 1 + k / 8, day = 1 + (k % 8) * 3 + u
                let when = String(format: "2025-%02d-%02dT%02d:%02d:00+0%d:00", month, day, 8 + Int(rng.next() % 12), Int(rng.next() % 60), month >= 4 ? 3 : 2)
                var minor = 150 + Int(rng.next() % 4000)
                if user == "bob" { minor *= 3 }
                var spot: (Double, Double)?
                var store: String?, merchant: String, category = "Food", currency = "EUR"
                switch k % 8 {
                case 0: (store, merchant) = ("s-cafe", "Cafe Aalto"); spot = rng.near(stores["s-cafe"]!, 8)
                case 1: (store, merchant, category) = ("s-market", "K-Market Kamppi", "Shopping"); spot = rng.near(stores["s-market"]!, 8)
                case 2, 3: merchant = "Market stall"; spot = rng.near(placeOne, 30)
                case 4: merchant = "Street food"; spot = rng.near(placeTwo, 30)
                case 5: merchant = "R-kioski"; spot = rng.near(kiosk, 12)
                case 6: (merchant, currency) = ("Market stall", "SEK"); spot = rng.near(placeOne, 30)
                default: (merchant, category) = ("Online shop", "Others")
                }
                let kind = k == 7 ? "income" : k == 15 ? "transfer" : "expense"
                if kind == "income" { (merchant, category) = ("Employer", "Salary") }
                if user == "alice" { aliceSpots[k] = spot }
                if user == "bob", k % 6 == 0, let hers = aliceSpots[k] { spot = hers }
                guard users.contains(user) else { continue }
                rows.append(Row(
                    id: String(format: "x%03d", 2 * k + u), user: user, kind: kind, amount: Money.decimalString(Int64(minor), digits: 2),
                    currency: currency, occurredAt: when, category: category, merchant: merchant, lat: spot?.0, lon: spot?.1,
                    accuracy: spot == nil ? nil : 10, storeID: store, notes: user == "bob" ? "\(bobMarker)-\(k)" : "alice \(k)"))
            }
            if user == "bob" && users.contains("bob") {
                for k in 0..<5 {
                    let spot = k == 0 ? bobHome : rng.near(bobHome, 20)
                    rows.append(Row(
                        id: "x2\(k)0", user: "bob", amount: "\(20 + k).00", occurredAt: "2025-0\(k + 1)-15T19:00:00+02:00", category: "Others",
                        merchant: "Home office", lat: spot.0, lon: spot.1, accuracy: 5, storeID: nil, notes: "\(bobMarker) home"))
                }
            }
        }
        return rows.sorted { $0.id < $1.id }
    }

    /// `budgets add` arguments for one user's budgets: a general one, a category one with a
    /// limit, a zone one. Bob's have alice's scopes and days (so a scope rule that forgot the
    /// user would deactivate hers), other amounts, and the marker in their names.
    static func budgets(of owner: String) -> [[String]] {
        let bob = owner == "bob"
        let name = { (n: String) in bob ? "\(bobMarker) \(n)" : n }
        let march = ["--currency", "EUR", "--from", "2025-03-01", "--to", "2025-03-31"]
        let zone = bob ? bobHome : placeOne
        return [
            ["--name", name("March"), "--amount", bob ? "70.00" : "100.00", "--category-limit", "Food=\(bob ? "20.00" : "40.00")"] + march,
            ["--name", name("Food"), "--amount", bob ? "33.00" : "60.00", "--category", "Food"] + march,
            ["--name", name("Market"), "--amount", bob ? "9.00" : "30.00", "--zone-around", "\(zone.0),\(zone.1)", "--zone-radius", "300m"] + march,
        ]
    }

    static func csv(_ rows: [Row]) -> String {
        var out = "id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes\n"
        for r in rows {
            let fields: [String?] = [
                r.id, r.user, r.kind, r.amount, r.currency, r.occurredAt, r.merchant, r.category, r.merchant,
                r.lat.map { String($0) }, r.lon.map { String($0) }, r.accuracy.map { String($0) }, r.storeID, r.notes,
            ]
            out += fields.map { $0 ?? "" }.joined(separator: ",") + "\n"
        }
        return out
    }
}
