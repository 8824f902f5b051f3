import Foundation
import GeoSpend
import GeoSpendTestStores
import GeoSpendTestSupport
import Testing

/// The same commands on `--db postgresql://…` and on a SpatiaLite file give the same bytes:
/// stdout, stderr (with the database's name put back) and exit status, for every query command
/// and export layer, on data that sits where maps and geodesy break — expenses and stores on
/// both sides of ±180° (Fiji), within 12 km of the North Pole, and in the southern hemisphere
/// (Punta Arenas, Sydney), with a traveller who spends in all of them.
///
/// The fixture is generated here (`WorldFixture`, seeded): positions, currencies with their
/// offsets, ASCII-case variants of one category (`Food`/`food`), a non-ASCII one (`Café`),
/// expenses without a position and without a store. Runs against the server of
/// `$GEOSPEND_TEST_POSTGRES` (`make test` starts one); without it the suite is skipped, and
/// `make test` requires it (`PostGISTestServerTests`).
@Suite(.serialized, .enabled(if: PostGISTestServer.address != nil, "needs $GEOSPEND_TEST_POSTGRES (make test starts a server)"))
final class PostGISCLITests {
    let dir = Reliability.scratch("postgis-cli")
    deinit { try? FileManager.default.removeItem(at: dir) }

    static let environment: [String: String] = {
        var e = ProcessInfo.processInfo.environment
        e["GEOSPEND_DB"] = nil
        e["SOURCE_DATE_EPOCH"] = "1772000000"  // fixed generation times: byte-identical exports
        return e
    }()

    func geospend(_ args: [String]) throws -> ProgramOutput {
        try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: Self.environment)
    }

    /// A file and a PostgreSQL database with the same stores and expenses, imported by the CLI.
    func databases() throws -> (file: String, server: String) {
        let file = dir.appendingPathComponent("world.sqlite").path
        let server = PostGISTestServer.url(try PostGISTestServer.newDatabase())
        let stores = dir.appendingPathComponent("stores.csv").path, expenses = dir.appendingPathComponent("expenses.csv").path
        try WorldFixture.storesCSV.write(toFile: stores, atomically: true, encoding: .utf8)
        try WorldFixture.expensesCSV.write(toFile: expenses, atomically: true, encoding: .utf8)
        for db in [file, server] {
            for args in [["import", "stores", stores], ["import", "expenses", expenses], ["import", "expenses", expenses]] {
                let r = try geospend(args + ["--db", db])
                try #require(r.status == 0, "\(args) on \(db): \(r.err)")
            }
        }
        return (file, server)
    }

    /// Runs `args` on both and reports where they differ (nil when byte-identical).
    func difference(_ args: [String], _ dbs: (file: String, server: String)) throws -> String? {
        try compared(args, dbs).difference
    }

    /// Runs `args` on both: the file's output, and where the server's differs from it.
    func compared(_ args: [String], _ dbs: (file: String, server: String)) throws -> (onFile: ProgramOutput, difference: String?) {
        let a = try geospend(args + ["--db", dbs.file]), b = try geospend(args + ["--db", dbs.server])
        let bErr = b.err.replacingOccurrences(of: dbs.server, with: dbs.file)
        if a.status != b.status { return (a, "exit \(a.status) vs \(b.status): \(a.err) | \(b.err)") }
        if a.out != b.out { return (a, "stdout differs (\(a.out.utf8.count) vs \(b.out.utf8.count) bytes): \(firstDifference(a.out, b.out))") }
        if a.err != bErr { return (a, "stderr differs: \(a.err) | \(bErr)") }
        return (a, nil)
    }

    private func firstDifference(_ a: String, _ b: String) -> String {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        let i = (0..<min(x.count, y.count)).first { x[$0] != y[$0] } ?? min(x.count, y.count)
        let around = { (bytes: [UInt8]) in String(decoding: bytes[max(0, i - 80)..<min(bytes.count, i + 80)], as: UTF8.self) }
        return "at byte \(i): «\(around(x))» vs «\(around(y))»"
    }

    /// The queries compared; each must succeed on the file (the typos below must fail).
    static func queries() -> [[String]] {
        var q: [[String]] = []
        for (name, lat, lon) in WorldFixture.centres {
            for user in [name, "traveller"] {
                q.append(["near", "--user", user, "--lat", "\(lat)", "--lon", "\(lon)", "--radius", "4km", "--format", "json"])
            }
            q.append(["near", "--user", name, "--lat", "\(lat)", "--lon", "\(lon)", "--radius", "9km", "--category", "FOOD"])
            q.append(["nearest-stores", "--lat", "\(lat)", "--lon", "\(lon)", "-k", "3", "--format", "json"])
            q.append(["nearest-stores", "--lat", "\(lat)", "--lon", "\(lon)", "-k", "2", "--max-distance", "1500m", "--format", "json"])
        }
        // Across the antimeridian from the other side, and around the pole from the far side.
        q.append(["near", "--user", "fiji", "--lat", "-17.0", "--lon", "-179.999", "--radius", "3km", "--format", "csv"])
        q.append(["nearest-stores", "--lat", "89.97", "--lon", "-135", "-k", "4", "--format", "json"])
        q.append(["nearest-stores", "--lat", "-17.0", "--lon", "-179.9", "-k", "3", "--kind", "shop:supermarket", "--format", "json"])
        for user in WorldFixture.users {
            q.append(["insights", "--user", user, "--format", "json"])
            q.append(["insights", "--user", user, "--by", "place", "--format", "json"])
            q.append(["summary", "--user", user, "--format", "json"])
            q.append(["trends", "--user", user, "--by", "store", "--format", "json"])
            for layer in ["points", "grid", "density", "places", "leaflet-heat"] { q.append(["export", layer, "--user", user]) }
            q.append(["export", "grid", "--user", user, "--shape", "square", "--cell", "500m"])
            q.append(["export", "points", "--user", user, "--format", "csv"])
        }
        q.append(["export", "grid", "--all-users", "--min-users", "1"])
        q.append(["export", "places", "--all-users", "--min-users", "2"])
        q.append(["report", "stores", "--min-users", "1", "--format", "json"])
        q.append(["report", "store", "fj-market", "--min-users", "1", "--format", "json"])
        q.append(["snap", "--dry-run", "--format", "json"])
        return q
    }

    /// Typos: the same errors and suggestions (exit 2) on both.
    static let typos: [[String]] = [
        ["insights", "--user", "travler"],
        ["near", "--lat", "-17", "--lon", "179.99", "--radius", "1km", "--user", "fiji", "--category", "fod"],
        ["nearest-stores", "--lat", "0", "--lon", "0", "--kind", "supermarket"],
    ]

    @Test func sameBytesAsTheFile() throws {
        let dbs = try databases()
        var compared = 0
        for args in Self.queries() {
            let onFile = try geospend(args + ["--db", dbs.file])
            #expect(onFile.status == 0 && onFile.out.utf8.count > 40, "\(args.joined(separator: " ")): \(onFile.err)")
            #expect(try difference(args, dbs) == nil, "\(args.joined(separator: " "))")
            compared += 1
        }
        for args in Self.typos {
            #expect(try geospend(args + ["--db", dbs.file]).status == 2, "\(args)")
            #expect(try difference(args, dbs) == nil, "\(args.joined(separator: " "))")
        }
        // Snapping writes: both link the same expenses, and everything still agrees after.
        #expect(try difference(["snap", "--format", "json"], dbs) == nil)
        for user in WorldFixture.users { #expect(try difference(["insights", "--user", user, "--format", "json"], dbs) == nil) }
        #expect(compared > 50)
    }

    /// The comparison can fail: one more expense on the server alone shows in its outputs.
    @Test func differencesAreSeen() throws {
        let dbs = try databases()
        let extra = dir.appendingPathComponent("extra.csv").path
        try """
            id,user,kind,amount,currency,occurred_at,category,lat,lon
            x1,fiji,expense,1.00,FJD,2025-06-01T10:00:00+12:00,Food,-17.0001,179.9999
            """.write(toFile: extra, atomically: true, encoding: .utf8)
        #expect(try geospend(["import", "expenses", extra, "--db", dbs.server]).status == 0)
        #expect(try difference(["insights", "--user", "fiji", "--format", "json"], dbs) != nil)
        #expect(try difference(["near", "--user", "fiji", "--lat", "-17", "--lon", "-179.999", "--radius", "3km"], dbs) != nil)
    }

    /// `users list`, `users export` and `users delete` on PostgreSQL: the same documents as the
    /// file's (users' creation times aside: each store stamps its own), and after the deletion no
    /// row of the user in any table, the other users' exports unchanged, stores kept.
    @Test func usersExportAndDelete() throws {
        let dbs = try databases()
        func masked(_ text: String) -> String {
            text.replacingOccurrences(of: #""created_at": ?"[^"]*""#, with: "\"created_at\":\"…\"", options: .regularExpression)
                .replacingOccurrences(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z"#, with: "…", options: .regularExpression)
        }
        for args in [["users", "list", "--format", "json"], ["users", "export", "fiji"], ["users", "export", "traveller"]] {
            let a = try geospend(args + ["--db", dbs.file]), b = try geospend(args + ["--db", dbs.server])
            #expect(a.status == 0 && b.status == 0, "\(args): \(a.err) \(b.err)")
            #expect(a.out.utf8.count > 200 && masked(a.out) == masked(b.out), "\(args)")
        }
        let southBefore = try geospend(["users", "export", "south", "--db", dbs.server]).out
        let deleted = try geospend(["users", "delete", "fiji", "--yes", "--db", dbs.server])
        #expect(deleted.status == 0, "\(deleted.err)")
        #expect(deleted.out.hasPrefix("deleted user fiji: ") && deleted.out.contains("(expenses 80, ") && deleted.out.contains(", categories "), "\(deleted.out)")
        #expect(deleted.err.contains("write-ahead log"), "\(deleted.err)")
        let left = try runProgram("/usr/bin/psql", [dbs.server, "-qAt", "-c", """
            SELECT (SELECT count(*) FROM expenses WHERE user_id = 'fiji') + (SELECT count(*) FROM categories WHERE user_id = 'fiji')
                 + (SELECT count(*) FROM users WHERE id = 'fiji'), (SELECT count(*) FROM stores)
            """])
        #expect(left.out.trimmingCharacters(in: .whitespacesAndNewlines) == "0|11", "\(left.out) \(left.err)")
        #expect(try geospend(["users", "export", "fiji", "--db", dbs.server]).status == 2)
        #expect(try geospend(["users", "export", "south", "--db", dbs.server]).out == southBefore)
        #expect(try geospend(["users", "delete", "fiji", "--yes", "--db", dbs.server]).status == 2)
    }

    /// `kill -9` of the client during an import leaves none or all of the file's rows (the
    /// server rolls back the transaction of a connection that vanished), leaves no lock behind
    /// (the next import runs), and that import brings them all. Kill moments from 0.1 s to 2 s,
    /// across connecting, the lookups and the COPYs of a 40,000-row file.
    @Test func killedImportLeavesNoneOrAll() throws {
        let server = PostGISTestServer.url(try PostGISTestServer.newDatabase())
        #expect(try geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", server]).status == 0)
        let file = try Reliability.expenseFiles([40_000], seed: 19, in: dir)[0]
        func stored() throws -> Int {
            let info = try geospend(["info", "--db", server])
            let line = try #require(info.out.split(separator: "\n").first { $0.hasPrefix("expenses") }, "\(info.err)")
            return Int(line.split(separator: " ")[1])!
        }
        var killed = 0
        for delay in [0.1, 0.4, 0.8, 1.2, 2.0] {
            let (_, finished) = try Reliability.launch(["import", "expenses", file, "--db", server], killAfter: delay)
            let n = try stored()
            #expect(n == 0 || n == 40_000, "after a kill at \(delay) s: \(n) rows")
            if finished { break }  // a fast machine: the import won; the rows are all there
            killed += 1
        }
        // The first import sets indexes and foreign keys aside and rebuilds them: after the kills
        // and after the import that finished, the schema is the one a fresh database gets.
        let fresh = PostGISTestServer.url(try PostGISTestServer.newDatabase())
        #expect(try geospend(["info", "--db", fresh]).status == 0)
        #expect(try Self.schema(server) == Self.schema(fresh))
        let last = try geospend(["import", "expenses", file, "--db", server])
        #expect(last.status == 0, "\(last.err)")
        #expect(try stored() == 40_000)
        let whole = try Self.schema(server)
        #expect(whole == (try Self.schema(fresh)) && whole.contains("FOREIGN KEY (user_id)") && whole.contains("USING gist"), "\(whole)")
        Reliability.report(["postgis crash: \(killed) imports killed with SIGKILL, none left a partial import"])
    }

    /// `kill -9` of the server itself (postmaster and backends at once) during an import: the
    /// client fails with a clear error, crash recovery on restart leaves none or all of the rows
    /// and the schema a fresh database gets, and the next import brings them all. On a server of
    /// its own (scripts/postgis.sh start/crash/restart), as the shared one must stay up.
    @Test func serverKilledDuringImportLeavesNoneOrAll() throws {
        let folder = dir.appendingPathComponent("crash-server").path
        let started = try runProgram("scripts/postgis.sh", ["start", folder], directory: CLITests.repo)
        try #require(started.status == 0, "\(started.err)")
        defer { _ = try? runProgram("scripts/postgis.sh", ["stop", folder], directory: CLITests.repo) }
        let port = try #require(started.out.split(separator: " ").first { $0.hasPrefix("port=") }?.dropFirst(5))
        let server = "postgresql://postgres@127.0.0.1:\(port)/postgres"
        #expect(try geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", server]).status == 0)
        let file = try Reliability.expenseFiles([40_000], seed: 23, in: dir)[0]
        func stored() throws -> Int {
            let info = try geospend(["info", "--db", server])
            let line = try #require(info.out.split(separator: "\n").first { $0.hasPrefix("expenses") }, "\(info.err)")
            return Int(line.split(separator: " ")[1])!
        }
        var crashes = 0
        for delay in [0.3, 1.0, 2.0] {
            let p = try RunningProgram(CLITests.binary, ["import", "expenses", file, "--db", server], directory: CLITests.repo, environment: Self.environment)
            usleep(useconds_t(delay * 1_000_000))
            let crash = try runProgram("scripts/postgis.sh", ["crash", folder], directory: CLITests.repo)
            try #require(crash.status == 0, "\(crash.err)")
            if !p.waitUntilExit(timeout: .seconds(120)) {
                kill(p.processIdentifier, SIGKILL)
                Issue.record("the import did not end within 2 min of the server's crash (delay \(delay) s)")
                p.waitUntilExit(timeout: .seconds(30))
            }
            let said = p.standardError
            let restarted = try runProgram("scripts/postgis.sh", ["restart", folder], directory: CLITests.repo)
            try #require(restarted.status == 0, "\(restarted.err)")
            let n = try stored()
            #expect(n == 0 || n == 40_000, "after a server crash at \(delay) s: \(n) rows")
            if p.terminationStatus == 0 { break }  // the import committed before the crash
            #expect(p.terminationStatus == 1 && said.contains("PostgreSQL"), "exit \(p.terminationStatus): \(said)")
            crashes += 1
        }
        let fresh = PostGISTestServer.url(try PostGISTestServer.newDatabase())
        #expect(try geospend(["info", "--db", fresh]).status == 0)
        #expect(try Self.schema(server) == Self.schema(fresh))
        #expect(try geospend(["import", "expenses", file, "--db", server]).status == 0)
        #expect(try stored() == 40_000)
        #expect(crashes > 0, "every import finished before the first crash (0.3 s)")
        Reliability.report(["postgis server crash: \(crashes) imports cut by kill -9 of the server, none left a partial import"])
    }

    /// The indexes and constraints of the stores and expenses tables, as PostgreSQL prints them.
    static func schema(_ database: String) throws -> String {
        let r = try runProgram("/usr/bin/psql", [database, "-qAt", "-c", """
            SELECT indexdef FROM pg_indexes WHERE tablename IN ('stores', 'expenses')
            UNION ALL SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
            WHERE conrelid IN ('stores'::regclass, 'expenses'::regclass) ORDER BY 1
            """])
        try #require(r.status == 0, "\(r.err)")
        return r.out
    }

    /// `--read-db`: once the hot standby has replayed the primary's WAL, every query answers on
    /// the replica with the primary's bytes; a later write on the primary is seen there after it
    /// is replayed (and not before the test waits: the comparison of an unreplayed write fails
    /// or matches by luck, so only the replayed state is asserted); `snap` (which writes), a file
    /// `--db` and a replica without GeoSpend's tables are refused with a clear error, and the
    /// commands that write have no `--read-db` at all. On a primary and standby of its own
    /// (`ReplicaPair`), in their `postgres` database (which has PostGIS).
    @Test func readReplicaAnswersAsThePrimary() throws {
        let pair = try ReplicaPair(in: dir.appendingPathComponent("replicated"))
        defer { pair.stop() }
        let (primary, replica) = (pair.primary("postgres"), pair.replica("postgres"))
        try pair.waitForReplica()
        let empty = try geospend(["info", "--db", primary, "--read-db", replica])
        #expect(empty.status == 1 && empty.err.contains("has no GeoSpend tables"), "\(empty.err)")

        let stores = dir.appendingPathComponent("stores.csv").path, expenses = dir.appendingPathComponent("expenses.csv").path
        try WorldFixture.storesCSV.write(toFile: stores, atomically: true, encoding: .utf8)
        try WorldFixture.expensesCSV.write(toFile: expenses, atomically: true, encoding: .utf8)
        for args in [["import", "stores", stores], ["import", "expenses", expenses]] {
            #expect(try geospend(args + ["--db", primary]).status == 0)
        }
        try pair.waitForReplica()
        func sameOnReplica(_ args: [String]) throws -> Bool {
            let a = try geospend(args + ["--db", primary]), b = try geospend(args + ["--db", primary, "--read-db", replica])
            return a.status == 0 && a.status == b.status && a.out == b.out && a.err == b.err
        }
        for args in Self.queries() { #expect(try sameOnReplica(args), "\(args.joined(separator: " "))") }
        for args in [["users", "list", "--format", "json"], ["users", "export", "fiji"]] { #expect(try sameOnReplica(args), "\(args)") }

        let extra = dir.appendingPathComponent("late.csv").path
        try "id,user,kind,amount,currency,occurred_at,lat,lon\nl1,late,expense,2.50,EUR,2025-06-01T10:00:00Z,-53.1638,-70.9171\n"
            .write(toFile: extra, atomically: true, encoding: .utf8)
        #expect(try geospend(["import", "expenses", extra, "--db", primary]).status == 0)
        try pair.waitForReplica()
        let late = try geospend(["summary", "--user", "late", "--format", "json", "--db", primary, "--read-db", replica])
        #expect(late.status == 0 && late.out.contains("2.50"), "\(late.err)")
        #expect(try sameOnReplica(["insights", "--user", "late", "--format", "json"]))
        // Reads go to the replica alone: a primary that is not there is never asked.
        let gone = pair.primary("geospend_no_such_database")
        let alone = try geospend(["summary", "--user", "late", "--format", "json", "--db", gone, "--read-db", replica])
        #expect(alone.status == 0 && alone.out == late.out, "\(alone.err)")

        for (args, message) in [
            (["snap", "--db", primary, "--read-db", replica], "writes go to --db"),
            (["import", "expenses", extra, "--db", primary, "--read-db", replica], "Unknown option '--read-db'"),
            (["users", "delete", "late", "--yes", "--db", primary, "--read-db", replica], "Unknown option '--read-db'"),
            (["summary", "--user", "late", "--db", dir.appendingPathComponent("x.sqlite").path, "--read-db", replica], "is a file"),
        ] {
            let r = try geospend(args)
            #expect(r.status == 2 && r.err.contains(message), "\(args): \(r.err)")
        }
    }

    /// Expenses are hash-partitioned by user: each user's rows sit in one partition, a query for
    /// one user reads that partition alone, and an expense cannot point at another user's
    /// category (the foreign key holds `user_id`).
    @Test func expensesArePartitionedByUser() throws {
        let (_, server) = try databases()
        func psql(_ sql: String) throws -> ProgramOutput { try runProgram("/usr/bin/psql", [server, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql]) }
        let layout = try psql("SELECT user_id, count(DISTINCT tableoid) FROM expenses GROUP BY user_id ORDER BY user_id")
        #expect(layout.out == WorldFixture.users.map { "\($0)|1\n" }.joined(), "\(layout.out)\(layout.err)")
        let kind = try psql("SELECT relkind, (SELECT count(*) FROM pg_inherits WHERE inhparent = 'expenses'::regclass) FROM pg_class WHERE relname = 'expenses'")
        #expect(kind.out == "p|8\n", "\(kind.out)\(kind.err)")
        let plan = try psql("EXPLAIN SELECT * FROM expenses WHERE user_id = 'fiji'")
        #expect(plan.out.components(separatedBy: "on expenses_p").count == 2, "\(plan.out)")
        let foreign = try psql(
            "UPDATE expenses SET category_id = (SELECT id FROM categories WHERE user_id = 'south' LIMIT 1) "
                + "WHERE id = (SELECT id FROM expenses WHERE user_id = 'fiji' LIMIT 1)")
        #expect(foreign.status != 0 && foreign.err.contains("foreign key"), "\(foreign.err)")
    }

    /// Commands that work on files alone say so on PostgreSQL (exit 2), and a bad address is named.
    @Test func fileOnlyCommandsSaySo() throws {
        let server = PostGISTestServer.url(try PostGISTestServer.newDatabase())
        for args in [["doctor"]] {
            let r = try geospend(args + ["--db", server])
            #expect(r.status == 2, "\(args): \(r.err)")
            #expect(r.err.contains("SpatiaLite files only so far"), "\(args): \(r.err)")
        }
        let bad = try geospend(["info", "--db", "postgresql://nobody@127.0.0.1:1/none"])
        #expect(bad.status == 1)
        #expect(bad.err.contains("cannot connect to postgresql://nobody@127.0.0.1:1/none"), "\(bad.err)")
        let noName = try geospend(["info", "--db", "postgresql://127.0.0.1/x"])
        #expect(noName.status != 0 && noName.err.contains("no user"), "\(noName.err)")
    }
}

/// Stores and expenses where maps and geodesy break, generated from a seed (see the suite).
enum WorldFixture {
    static let users = ["fiji", "pole", "south", "traveller"]

    /// Each user's home: name, latitude, longitude.
    static let centres: [(String, Double, Double)] = [
        ("fiji", -17.0, 179.995), ("pole", 89.95, 20.0), ("south", -53.1638, -70.9171), ("traveller", -33.8688, 151.2093),
    ]

    static let storesCSV = """
        id,name,kind,brand,street,postcode,city,country,lat,lon
        fj-market,Market East,shop:supermarket,,,,Suva,FJ,-17.0004,179.9991
        fj-kava,Kava Bar West,amenity:bar,,,,Suva,FJ,-16.9996,-179.9993
        fj-cafe,Cafe On The Line,amenity:cafe,,,,Suva,FJ,-17.0010,180.0
        fj-west,Supermarket West,shop:supermarket,,,,Suva,FJ,-17.0020,-179.9980
        np-a,Pole Station A,amenity:cafe,,,,,,89.9600,45.0
        np-b,Pole Station B,shop:supermarket,,,,,,89.9400,-120.0
        np-c,Pole Station C,amenity:bar,,,,,,89.9900,170.0
        pa-1,Unimarc Centro,shop:supermarket,Unimarc,,,Punta Arenas,CL,-53.1625,-70.9080
        pa-2,Café Tapiz,amenity:cafe,,,,Punta Arenas,CL,-53.1660,-70.9110
        sy-1,Harbour Coffee,amenity:cafe,,,,Sydney,AU,-33.8610,151.2100
        sy-2,Woolworths Town Hall,shop:supermarket,Woolworths,,,Sydney,AU,-33.8730,151.2070
        """

    /// 80 expenses per user, a fifth without a position, a third with a store of their place.
    static let expensesCSV: String = {
        var rng = SplitMix64(seed: 20261124)
        let stores: [String: [String]] = ["fiji": ["fj-market", "fj-kava", "fj-cafe", "fj-west"], "pole": ["np-a", "np-b", "np-c"],
                                          "south": ["pa-1", "pa-2"], "traveller": ["sy-1", "sy-2"]]
        let money: [String: (String, String)] = ["fiji": ("FJD", "+12:00"), "pole": ("EUR", "+00:00"), "south": ("USD", "-03:00"), "traveller": ("AUD", "+10:00")]
        let categories = ["Food", "food", "Transport", "Café", "Groceries"]
        var lines = ["id,user,kind,amount,currency,occurred_at,category,lat,lon,store_id"]
        var n = 0
        for user in users {
            for i in 0..<80 {
                n += 1
                // The traveller spends in every place in turn; the others at home.
                let home = user == "traveller" ? centres[i % centres.count] : centres.first { $0.0 == user }!
                let (currency, offset) = money[home.0]!
                var lat = home.1 + (rng.unit() - 0.5) * (home.0 == "pole" ? 0.08 : 0.03)
                var lon = home.2 + (rng.unit() - 0.5) * (home.0 == "pole" ? 360 : 0.03)
                lat = min(lat, 89.999)
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                let place = i % 5 == 4 ? ",," : String(format: ",%.6f,%.6f", lat, lon)
                let store = i % 3 == 0 ? stores[home.0]![i % stores[home.0]!.count] : ""
                let amount = String(format: "%d.%02d", 1 + Int(rng.unit() * 120), Int(rng.unit() * 100))
                let day = String(format: "2025-%02d-%02dT%02d:%02d:00%@", 1 + i % 12, 1 + i % 28, 7 + i % 14, i % 60, offset)
                lines.append("w\(n),\(user),expense,\(amount),\(currency),\(day),\(categories[i % categories.count])\(place),\(store)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }()
}
