import Foundation
import GeoSpendTestSupport
import GeoSpendTestStores
import Testing

/// `geospend users import` through the binary, on the file and (with `$GEOSPEND_TEST_POSTGRES`)
/// on PostgreSQL: a user with a row of every table it restores, built by CLI commands as
/// IsolationTests builds its fixture; export → delete → import → export gives the same bytes
/// (`SOURCE_DATE_EPOCH` pins `generated_at`); a user with data is refused (exit 2) and nothing
/// is written; a corrupt file is refused with the JSON path; `--as` leaves alice and bob alone.
@Suite(.serialized) struct UsersImportCLITests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-users-import-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    static var backends: [Bool] { PostGISTestServer.address == nil ? [false] : [false, true] }

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: IsolationTests.environment)
    }

    func run(_ args: [String], db: String) throws {
        let r = try geospend(args + ["--db", db])
        try #require(r.status == 0, "\(args): \(r.err)")
    }

    /// alice and bob with expenses (IsolationFixture's), a hand-added expense with a reminder, a
    /// category with icon and colour, a deactivated default, periods, budgets (a limit, a zone),
    /// a location history, settings, notification settings, name and email, a recurring rule
    /// and pantry items (one used).
    func database(onPostgreSQL: Bool) throws -> String {
        let db = onPostgreSQL ? PostGISTestServer.url(try PostGISTestServer.newDatabase()) : dir.appendingPathComponent("import.sqlite").path
        let stores = dir.appendingPathComponent("stores.csv").path
        let expenses = dir.appendingPathComponent("expenses.csv").path
        try IsolationFixture.storesCSV.write(toFile: stores, atomically: true, encoding: .utf8)
        try IsolationFixture.csv(IsolationFixture.rows(for: ["alice", "bob"])).write(toFile: expenses, atomically: true, encoding: .utf8)
        try run(["import", "stores", stores], db: db)
        try run(["import", "expenses", expenses], db: db)
        for user in ["alice", "bob"] {
            try run(["periods", "add", "--user", user, "--name", "Trip", "--from", "2025-02-01", "--to", "2025-04-30"], db: db)
            try run(["periods", "assign", "--user", user, "--period", "1"] + (user == "alice" ? ["x000", "x002"] : ["x001", "x003"]), db: db)
            for args in IsolationFixture.budgets(of: user) { try run(["budgets", "add", "--user", user] + args, db: db) }
            let history = dir.appendingPathComponent("history-\(user).csv").path
            try IsolationFixture.history(of: user).write(toFile: history, atomically: true, encoding: .utf8)
            try run(["import", "positions", history, "--user", user], db: db)
            try run(["users", "settings", "--user", user, "--timezone", "Europe/Helsinki", "--keep-positions", "36500"], db: db)
            try run(["recurring", "add", "--user", user, "--every", "monthly", "--from", "2025-01-31", "--amount", "950", "--currency", "EUR", "--title", "Rent", "--store", "s-market"], db: db)
            try run(["pantry", "add", "--user", user, "--name", "Yoghurt", "--quantity", "2", "--expires", "2026-03-20"], db: db)
        }
        try run(["categories", "add", "--user", "alice", "--name", "Snacks", "--icon", "🍫", "--color", "#aa3300"], db: db)
        try run(["categories", "deactivate", "Education", "--user", "alice"], db: db)
        try run(["expenses", "add", "--user", "alice", "--amount", "3.20", "--currency", "EUR", "--at", "2025-03-06T18:30:00+02:00",
                 "--category", "Snacks", "--lat", "60.1650123", "--lon", "24.9300456", "--notes", "line one\nline \"two\"",
                 "--remind-at", "2025-03-07T09:00:00+02:00"], db: db)
        try run(["users", "edit", "--user", "alice", "--name", "Alice Example", "--email", "alice@example.org"], db: db)
        try run(["notifications", "settings", "--user", "alice", "--quiet-hours", "22:00-07:00", "--reminder-lead-minutes", "30"], db: db)
        try run(["pantry", "add", "--user", "alice", "--name", "Bread"], db: db)
        try run(["pantry", "use", "2", "--user", "alice"], db: db)
        try run(["periods", "add", "--user", "alice", "--name", "Later", "--from", "2025-06-01"], db: db)
        return db
    }

    func export(_ user: String, _ db: String) throws -> (status: Int32, out: String) {
        let r = try geospend(["users", "export", user, "--db", db])
        return (r.status, r.out)
    }

    @Test(arguments: backends)
    func exportDeleteImportExportIsByteIdentical(onPostgreSQL: Bool) throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(onPostgreSQL: onPostgreSQL)
        let before = try export("alice", db)
        let bob = try export("bob", db)
        try #require(before.status == 0 && bob.status == 0)
        for key in [
            "\"display_name\":\"Alice Example\"", "\"expense_times\":[\n", "\"periods\":[\n", "\"positions\":[\n", "\"budgets\":[\n",
            "\"recurring\":[\n", "\"pantry\":[\n", "\"status\":\"used\"", "\"quiet_hours\":\"22:00-07:00\"", "\"icon\":\"🍫\"",
            "\"is_active\":false", "\"type\":\"circle\"", "\"remind_at\":\"2025-03-07T09:00:00+02:00\"",
        ] {
            #expect(before.out.contains(key), "the fixture lacks \(key)")
        }
        let file = dir.appendingPathComponent("alice.json").path
        try before.out.write(toFile: file, atomically: true, encoding: .utf8)
        try run(["users", "delete", "alice", "--yes"], db: db)
        let restored = try geospend(["users", "import", file, "--db", db])
        #expect(restored.status == 0, "\(restored.err)")
        #expect(restored.out.hasPrefix("restored user alice from \(file): 49 expenses,"), "\(restored.out)")
        #expect(try export("alice", db).out == before.out)
        #expect(try export("bob", db).out == bob.out, "bob untouched")

        // Again into alice (now full): refused, exit 2, naming her and the ways out; nothing written.
        let again = try geospend(["users", "import", file, "--db", db])
        #expect(again.status == 2)
        #expect(again.err.contains("user \"alice\" already has data") && again.err.contains("geospend users delete alice")
            && again.err.contains("--as NEWID"), "\(again.err)")
        let intoBob = try geospend(["users", "import", file, "--as", "bob", "--db", db])
        #expect(intoBob.status == 2 && intoBob.err.contains("user \"bob\" already has data"), "\(intoBob.err)")
        #expect(try export("alice", db).out == before.out)
        #expect(try export("bob", db).out == bob.out)

        // --as: carol gets alice's data under her own id; alice and bob are untouched.
        let carol = try geospend(["users", "import", file, "--as", "carol", "--db", db])
        #expect(carol.status == 0, "\(carol.err)")
        let expected = before.out.replacingOccurrences(of: "{\"id\":\"alice\",", with: "{\"id\":\"carol\",")
            .replacingOccurrences(of: "\"user\":\"alice\"", with: "\"user\":\"carol\"")
        #expect(try export("carol", db).out == expected)
        #expect(try export("alice", db).out == before.out)
        #expect(try export("bob", db).out == bob.out)

        // Bob's own round trip (his ids are alice's: per user) touches nothing of alice's.
        let bobFile = dir.appendingPathComponent("bob.json").path
        try bob.out.write(toFile: bobFile, atomically: true, encoding: .utf8)
        try run(["users", "delete", "bob", "--yes"], db: db)
        try run(["users", "import", bobFile], db: db)
        #expect(try export("bob", db).out == bob.out)
        #expect(try export("alice", db).out == before.out)
    }

    @Test func aCorruptFileIsRefusedWithThePathAndNothingIsWritten() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(onPostgreSQL: false)
        let before = try export("alice", db).out
        let bad = dir.appendingPathComponent("bad.json").path
        // x024's amount, at its place among the expenses.
        let lines = before.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let expenseLines = lines.indices.filter { lines[$0].hasPrefix("{\"id\":") && lines[$0].contains("\"occurred_at\":") }
        let n = try #require(expenseLines.firstIndex { lines[$0].hasPrefix("{\"id\":\"x024\"") })
        var broken = lines
        broken[expenseLines[n]] = broken[expenseLines[n]].replacingOccurrences(of: #""amount":""#, with: #""amount":"x"#)
        try broken.joined(separator: "\n").write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try geospend(["users", "import", bad, "--as", "dave", "--db", db])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("geospend: expenses[\(n)].amount: "), "\(r.err)")
        #expect(!(try geospend(["users", "list", "--db", db]).out.contains("dave")))
        let missing = try geospend(["users", "import", dir.appendingPathComponent("nope.json").path, "--db", db])
        #expect(missing.status == 2 && missing.err.contains("no such file"), "\(missing.err)")
        // A receipt with no fields, in a file whose other sections are good, refuses the whole
        // file with its path; dave is still not there.
        let emptyReceipt = dir.appendingPathComponent("empty-receipt.json").path
        try before.replacingOccurrences(of: "\"receipts\":[]", with: "\"receipts\":[{}]").write(toFile: emptyReceipt, atomically: true, encoding: .utf8)
        let refused = try geospend(["users", "import", emptyReceipt, "--as", "dave", "--db", db])
        #expect(refused.status == 2 && refused.err.hasPrefix("geospend: receipts[0].id: "), "\(refused.err)")
        #expect(!(try geospend(["users", "list", "--db", db]).out.contains("dave")))
    }
}
