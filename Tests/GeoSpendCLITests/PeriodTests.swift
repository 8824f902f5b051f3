import Foundation
import GeoSpendTestSupport
import Testing

/// `geospend periods` and `--period`, through the built binary, one test per group of rules
/// (README "Periods"). The fixture is generated here (`PeriodFixture`); the expected figures
/// are computed from its rows in this file, not by GeoSpend's code.
@Suite(.serialized) struct PeriodTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-periods-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        environment["SOURCE_DATE_EPOCH"] = "1772000000"
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    /// Runs a command that must succeed.
    func ok(_ args: [String], _ db: String) throws -> String {
        let r = try geospend(args + ["--db", db])
        #expect(r.status == 0, "\(args): \(r.err)")
        return r.out
    }

    /// Runs a command that must fail with `status`, returning stderr.
    func fails(_ args: [String], _ db: String, status: Int32 = 2) throws -> String {
        let r = try geospend(args + ["--db", db])
        #expect(r.status == status, "\(args) exited \(r.status): \(r.out) \(r.err)")
        return r.err
    }

    func database() throws -> String {
        let db = dir.appendingPathComponent("periods.sqlite").path
        let csv = dir.appendingPathComponent("expenses.csv").path
        try PeriodFixture.csv.write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try ok(["import", "expenses", csv], db)
        return db
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// A list's periods without the times the store stamps (`created_at`, `updated_at`: issue 38),
    /// each checked to be there.
    static func withoutTimes(_ periods: Any?) throws -> NSArray {
        let rows = try #require(periods as? [[String: Any]])
        return rows.map { row -> [String: Any] in
            #expect(row["created_at"] is String && row["updated_at"] is String, "\(row)")
            return row.filter { $0.key != "created_at" && $0.key != "updated_at" }
        } as NSArray
    }

    @Test func addListEditFollowTheRules() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        let ann = ["--user", "ann"]
        // Name: trimmed, then 1–100 characters (grapheme clusters of its NFC form).
        let added = try Self.json(try ok(["periods", "add"] + ann + ["--name", "  Lisbon trip \n", "--from", "2025-03-01", "--to", "2025-03-10", "--format", "json"], db))
        #expect(added["id"] as? Int == 1 && added["name"] as? String == "Lisbon trip" && added["user"] as? String == "ann")
        #expect(added["from"] as? String == "2025-03-01" && added["to"] as? String == "2025-03-10" && added["expenses"] as? Int == 0)
        #expect(try fails(["periods", "add"] + ann + ["--name", "   ", "--from", "2025-03-01"], db).contains("--name"))
        #expect(try fails(["periods", "add"] + ann + ["--name", "", "--from", "2025-03-01"], db).contains("--name"))
        let decomposed = String(repeating: "e\u{301}", count: 100)  // 200 scalars, 100 characters
        #expect(try Self.json(try ok(["periods", "add"] + ann + ["--name", decomposed, "--from", "2025-03-01", "--format", "json"], db))["name"] as? String
            == String(repeating: "\u{e9}", count: 100))
        #expect(try fails(["periods", "add"] + ann + ["--name", String(repeating: "a", count: 101), "--from", "2025-03-01"], db).contains("at most 100"))
        #expect(try fails(["periods", "add"] + ann + ["--name", "two\nlines", "--from", "2025-03-01"], db).contains("one line"))
        // Start required and a bare date; end optional (ongoing), after the start (issue 17).
        #expect(try fails(["periods", "add"] + ann + ["--name", "x"], db).contains("--from"))
        #expect(try fails(["periods", "add"] + ann + ["--name", "x", "--from", "2025-03-01T10:00:00Z"], db).contains("bare date"))
        #expect(try fails(["periods", "add"] + ann + ["--name", "x", "--from", "2025-03-10", "--to", "2025-03-09"], db).contains("swap"))
        let sameDay = try fails(["periods", "add"] + ann + ["--name", "Wedding", "--from", "2025-03-10", "--to", "2025-03-10"], db)
        #expect(sameDay.contains("(--to) is not after --from 2025-03-10") && sameDay.contains("give a later --to"), "\(sameDay)")
        let twoDays = try Self.json(try ok(["periods", "add"] + ann + ["--name", "Wedding", "--from", "2025-03-10", "--to", "2025-03-11", "--format", "json"], db))
        #expect(twoDays["id"] as? Int == 3 && twoDays["to"] as? String == "2025-03-11")
        let list = try Self.json(try ok(["periods", "list"] + ann + ["--format", "json"], db))
        let periods = try #require(list["periods"] as? [[String: Any]])
        #expect(periods.map { $0["id"] as? Int } == [1, 2, 3])
        #expect(periods[1]["to"] is NSNull, "no --to: ongoing")
        #expect(try ok(["periods", "list"] + ann, db).contains("ongoing"))
        // Edit: the fields given change, the others stay; the same rules hold.
        let edited = try Self.json(try ok(["periods", "edit", "1"] + ann + ["--to", "2025-03-12", "--format", "json"], db))
        #expect(edited["name"] as? String == "Lisbon trip" && edited["from"] as? String == "2025-03-01" && edited["to"] as? String == "2025-03-12")
        #expect(try Self.json(try ok(["periods", "edit", "1"] + ann + ["--ongoing", "--format", "json"], db))["to"] is NSNull)
        #expect(try fails(["periods", "edit", "1"] + ann + ["--to", "2025-03-12", "--ongoing"], db).contains("not both"))
        #expect(try fails(["periods", "edit", "1"] + ann, db).contains("nothing to change"))
        #expect(try fails(["periods", "edit", "3"] + ann + ["--from", "2025-03-12"], db).contains("swap"))
        #expect(try fails(["periods", "edit", "3"] + ann + ["--from", "2025-03-11"], db).contains("is not after --from 2025-03-11"))
        #expect(try fails(["periods", "edit", "1"] + ann + ["--name", " "], db).contains("--name"))
        #expect(try Self.withoutTimes(try Self.json(try ok(["periods", "list"] + ann + ["--format", "json"], db))["periods"])
            == [
                ["id": 1, "user": "ann", "name": "Lisbon trip", "from": "2025-03-01", "to": NSNull(), "expenses": 0],
                ["id": 2, "user": "ann", "name": String(repeating: "\u{e9}", count: 100), "from": "2025-03-01", "to": NSNull(), "expenses": 0],
                ["id": 3, "user": "ann", "name": "Wedding", "from": "2025-03-10", "to": "2025-03-11", "expenses": 0],
            ] as NSArray, "refused edits changed nothing")
        #expect(try fails(["periods", "edit", "9"] + ann + ["--name", "x"], db).contains("no period 9 of user \"ann\""))
        #expect(try fails(["periods", "list", "--user", "nobody"], db).contains("no user \"nobody\""))
    }

    @Test func assignUnassignAndDeleteUnlink() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        let ann = ["--user", "ann"]
        _ = try ok(["periods", "add"] + ann + ["--name", "Trip", "--from", "2025-02-01"], db)
        _ = try ok(["periods", "add"] + ann + ["--name", "Term", "--from", "2025-02-01"], db)
        // Existing expenses have no period.
        #expect(try ok(["periods", "list"] + ann, db).contains("Trip") && Self.counts(try ok(["periods", "list"] + ann + ["--format", "json"], db)) == [0, 0])
        #expect(try Self.json(try ok(["summary"] + ann + ["--period", "1", "--format", "json"], db))["currencies"] as? [Any] != nil)
        #expect((try Self.json(try ok(["summary"] + ann + ["--period", "1", "--format", "json"], db))["currencies"] as? [Any])?.isEmpty == true)

        #expect(try ok(["periods", "assign"] + ann + ["--period", "1", "a1", "a2", "a3", "a3"], db)
            == "assigned 3 expenses to period 1 (0 moved from another period, 0 already in it)\n")
        #expect(try ok(["periods", "assign"] + ann + ["--period", "2", "a3", "a4"], db)
            == "assigned 2 expenses to period 2 (1 moved from another period, 0 already in it)\n")
        #expect(Self.counts(try ok(["periods", "list"] + ann + ["--format", "json"], db)) == [2, 2], "one period per expense")
        // All or nothing: one unknown id, nothing assigned.
        let unknown = try fails(["periods", "assign"] + ann + ["--period", "1", "a5", "zz9"], db)
        #expect(unknown.contains("no expense \"zz9\" of user \"ann\"; nothing was changed"))
        #expect(unknown.contains("`geospend expenses list --user ann` lists the user's expense ids"), "\(unknown)")
        #expect(try fails(["periods", "assign"] + ann + ["--period", "7", "a5"], db).contains("no period 7 of user \"ann\""))
        #expect(Self.counts(try ok(["periods", "list"] + ann + ["--format", "json"], db)) == [2, 2])
        #expect(try ok(["periods", "unassign"] + ann + ["a4", "a5"], db) == "unassigned 1 expense\n")
        #expect(try fails(["periods", "assign"] + ann + ["--period", "1"], db).contains("Missing expected argument '<expenses> ...'"))
        #expect(try fails(["periods", "unassign"] + ann, db).contains("Missing expected argument '<expenses> ...'"))
        #expect(try fails(["periods", "unassign"] + ann + ["a4", "nope"], db).contains("no expense \"nope\""))
        #expect(Self.counts(try ok(["periods", "list"] + ann + ["--format", "json"], db)) == [2, 1])

        // users export writes the periods with their expenses; the link is not an expense key.
        let export = try Self.json(try ok(["users", "export", "ann"], db))
        let exported = try #require(export["periods"] as? [[String: Any]])
        #expect(exported.map { $0["expenses"] as? [String] } == [["a1", "a2"], ["a3"]])
        #expect(exported.map { $0["name"] as? String } == ["Trip", "Term"] && exported[0]["to"] is NSNull)
        #expect((export["counts"] as? [String: Int])?["periods"] == 2)

        // Deleting a period unlinks its expenses: they stay, with no period; ids are not reused.
        let before = try #require(export["counts"] as? [String: Int])["expenses"]
        #expect(try ok(["periods", "delete", "1"] + ann, db) == "deleted period 1; 2 expenses unlinked (kept, with no period)\n")
        #expect(try fails(["periods", "delete", "1"] + ann, db).contains("no period 1 of user \"ann\""))
        let after = try Self.json(try ok(["users", "export", "ann"], db))
        #expect((after["counts"] as? [String: Int])?["expenses"] == before)
        #expect(try Self.json(try ok(["periods", "add"] + ann + ["--name", "Next", "--from", "2025-05-01", "--format", "json"], db))["id"] as? Int == 3)
        #expect(try ok(["periods", "assign"] + ann + ["--period", "3", "a1", "a2"], db).hasPrefix("assigned 2 expenses"), "a1 and a2 were free again")
        // Not even the newest id comes back: a script holding "period 4" never reaches another one.
        _ = try ok(["periods", "add"] + ann + ["--name", "Newest", "--from", "2025-05-01"], db)
        _ = try ok(["periods", "delete", "4"] + ann, db)
        #expect(try Self.json(try ok(["periods", "add"] + ann + ["--name", "After", "--from", "2025-05-01", "--format", "json"], db))["id"] as? Int == 5)
    }

    /// Another user's expense or period is "not found", word for word as one that does not
    /// exist: ann learns nothing about ben.
    @Test func anotherUsersPeriodsAndExpensesAreNotFound() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        // ann's period 1 first (so it also comes first by user), then ben's 1 and 2.
        _ = try ok(["periods", "add", "--user", "ann", "--name", "Ann's", "--from", "2025-01-01"], db)
        _ = try ok(["periods", "assign", "--user", "ann", "--period", "1", "a1", "a2"], db)
        _ = try ok(["periods", "add", "--user", "ben", "--name", "Ben's", "--from", "2025-01-01"], db)
        _ = try ok(["periods", "add", "--user", "ben", "--name", "Ben's too", "--from", "2025-01-01"], db)
        _ = try ok(["periods", "assign", "--user", "ben", "--period", "1", "b1"], db)
        // ben's period 2 is not ann's: the same words as a period nobody has.
        let missing = try fails(["summary", "--user", "ann", "--period", "2"], db)
        #expect(missing.contains("no period 2 of user \"ann\""))
        #expect(try fails(["summary", "--user", "ann", "--period", "9"], db) == missing.replacingOccurrences(of: "period 2", with: "period 9"))
        #expect(try fails(["near", "--user", "ann", "--lat", "60.17", "--lon", "24.94", "--radius", "1km", "--period", "2"], db).contains("no period 2 of user \"ann\""))
        #expect(try fails(["periods", "delete", "2", "--user", "ann"], db).contains("no period 2 of user \"ann\""))
        #expect(try fails(["periods", "edit", "2", "--user", "ann", "--name", "mine"], db).contains("no period 2 of user \"ann\""))
        // Her numbers are hers (ben's periods did not take 2), and ben's expense is unknown to her.
        #expect(try Self.json(try ok(["periods", "add", "--user", "ann", "--name", "Ann's 2", "--from", "2025-01-01", "--format", "json"], db))["id"] as? Int == 2)
        let foreign = try fails(["periods", "assign", "--user", "ann", "--period", "2", "b2"], db)
        let absent = try fails(["periods", "assign", "--user", "ann", "--period", "2", "zz2"], db)
        #expect(foreign.contains("no expense \"b2\" of user \"ann\""))
        #expect(foreign == absent.replacingOccurrences(of: "zz2", with: "b2"))
        #expect(try fails(["periods", "unassign", "--user", "ann", "b1"], db).split(separator: "\n").first
            == absent.replacingOccurrences(of: "zz2", with: "b1").split(separator: "\n").first)
        #expect(Self.counts(try ok(["periods", "list", "--user", "ben", "--format", "json"], db)) == [1, 0], "ben's link untouched")
        // Both have a period 1: each --period 1 is the user's own (a lookup of "period 1" that
        // forgot the user would find ann's for ben).
        let bens = try Self.json(try ok(["summary", "--user", "ben", "--period", "1", "--format", "json"], db))
        let line = try #require((bens["currencies"] as? [[String: Any]])?.first)
        #expect((bens["currencies"] as? [Any])?.count == 1 && line["expenses_count"] as? Int == 1 && line["first_day"] as? String
            == PeriodFixture.rows.first { $0.id == "b1" }.map { String($0.occurredAt.prefix(10)) })
        // Without --user a period means nothing.
        #expect(try fails(["export", "points", "--all-users", "--allow-raw-positions", "--period", "1"], db).contains("--period needs --user"))
    }

    /// `--period` selects exactly the assigned expenses: the same answers as an explicit
    /// selection of the same expenses (here all of ann's "Travel" ones, whatever their dates),
    /// and summary's figures as computed from the fixture's rows.
    @Test func periodSelectsTheAssignedExpenses() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        let ann = ["--user", "ann"]
        _ = try ok(["periods", "add"] + ann + ["--name", "Travel", "--from", "2025-03-01", "--to", "2025-03-31"], db)
        let travel = PeriodFixture.rows.filter { $0.user == "ann" && $0.category == "Travel" }
        #expect(travel.count >= 8 && Set(travel.map { String($0.occurredAt.prefix(7)) }).count >= 2, "dates outside the period's days too")
        _ = try ok(["periods", "assign"] + ann + ["--period", "1"] + travel.map(\.id), db)

        let near = ["near"] + ann + ["--lat", "60.17", "--lon", "24.94", "--radius", "3km", "--format", "json"]
        let byPeriod = try ok(near + ["--period", "1"], db)
        #expect(byPeriod == (try ok(near + ["--category", "Travel"], db)))
        #expect(byPeriod != (try ok(near, db)), "the selection is not everything")
        let insights = ["insights"] + ann + ["--format", "json"]
        #expect(try ok(insights + ["--period", "1"], db) == (try ok(insights + ["--category", "Travel"], db)))
        // expenses list: exactly the assigned ids, newest first (issue 17: every command with --from/--to).
        let list = ["expenses", "list"] + ann + ["--limit", "1000", "--format", "json"]
        let listed = try #require(try Self.json(try ok(list + ["--period", "1"], db))["expenses"] as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["id"] as? String }) == Set(travel.map(\.id)) && listed.count == travel.count)
        #expect(try ok(list + ["--period", "1"], db) == (try ok(list + ["--category", "Travel"], db)))
        #expect(try fails(["expenses", "list"] + ann + ["--period", "9"], db).contains("no period 9 of user \"ann\""))
        // Exports: the same features; the header records the filter used.
        let points = ["export", "points"] + ann + ["--currency", "EUR"]
        let exported = try ok(points + ["--period", "1"], db).split(separator: "\n")
        #expect(exported.dropFirst() == (try ok(points + ["--category", "Travel"], db)).split(separator: "\n").dropFirst())
        #expect(exported.count > 3 && exported[0].contains("\"period\":1"))

        // Summary: per currency, totals, count and first/last local day of the assigned rows.
        for window in [[], ["--from", "2025-03-01", "--to", "2025-03-31"]] {
            let summary = try Self.json(try ok(["summary"] + ann + ["--period", "1", "--format", "json"] + window, db))
            let rows = travel.filter { window.isEmpty || $0.occurredAt.prefix(7) == "2025-03" }
            #expect(summary["currencies"] as? NSArray == PeriodFixture.summaryLines(rows) as NSArray, "window \(window)")
            #expect((summary["period"] as? [String: Any])?["name"] as? String == "Travel")
        }
    }

    /// Issue 38: a period given when an expense is written — `expenses add|edit --period ID|NAME`
    /// and an import's `period` column — by id or name; an unknown one is a usage error naming
    /// the option, or the file, line and column, and nothing is written.
    @Test func aPeriodGivenWhenAnExpenseIsWritten() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        let ann = ["--user", "ann"]
        _ = try ok(["periods", "add"] + ann + ["--name", "Lisbon trip", "--from", "2025-03-01"], db)
        _ = try ok(["periods", "add", "--user", "ben", "--name", "Skiing", "--from", "2025-02-01"], db)
        let expense = ["expenses", "add"] + ann + ["--amount", "12.90", "--currency", "EUR", "--at", "2025-03-04"]
        let added = try Self.json(try ok(expense + ["--period", "lisbon trip", "--format", "json"], db))
        let id = try #require(added["id"] as? String)
        func assigned(_ period: String) throws -> [String] {
            let doc = try Self.json(try ok(["expenses", "list"] + ann + ["--period", period, "--limit", "1000", "--format", "json"], db))
            return (doc["expenses"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted()
        }
        #expect(try assigned("1") == [id])
        let before = try ok(["expenses", "list"] + ann + ["--limit", "1000", "--format", "json"], db)
        let unknown = try fails(expense + ["--period", "Skiing"], db)
        #expect(unknown.contains("--period: \"Skiing\" is not a period of user \"ann\"") && unknown.contains("geospend periods list --user ann"), "\(unknown)")
        #expect(try ok(["expenses", "list"] + ann + ["--limit", "1000", "--format", "json"], db) == before, "nothing added")
        _ = try ok(["expenses", "edit", id] + ann + ["--period", ""], db)
        #expect(try assigned("1").isEmpty)

        // import: a `period` column; an unknown period refuses the file, naming file, line, column.
        let good = dir.appendingPathComponent("with-period.csv").path
        try "id,user,amount,currency,occurred_at,period\np1,ann,3.00,EUR,2025-03-05,Lisbon trip\np2,ann,4.00,EUR,2025-03-06,1\n"
            .write(toFile: good, atomically: true, encoding: .utf8)
        _ = try ok(["import", "expenses", good], db)
        #expect(try assigned("1") == ["p1", "p2"])
        let bad = dir.appendingPathComponent("bad-period.csv").path
        try "id,user,amount,currency,occurred_at,period\np3,ann,3.00,EUR,2025-03-05,Lisbon trip\np4,ann,4.00,EUR,2025-03-06,Skiing\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let r = try geospend(["import", "expenses", bad, "--db", db])
        #expect(r.status != 0 && r.err.contains("\(bad):3: period: \"Skiing\" is not a period of user \"ann\""), "\(r.status) \(r.err)")
        #expect(try assigned("1") == ["p1", "p2"], "all or nothing: p3 is not written")
    }

    static func counts(_ listJSON: String) -> [Int] {
        guard let doc = try? JSONSerialization.jsonObject(with: Data(listJSON.utf8)) as? [String: Any],
            let periods = doc["periods"] as? [[String: Any]]
        else { return [] }
        return periods.map { $0["expenses"] as? Int ?? -1 }
    }

    /// The cross-user reports take `--period ID --user U` as the period's days: the same
    /// report as `--from START --to END`, not the whole history; with --from/--to, or
    /// without --user, it is a usage error.
    @Test func reportsTakeAPeriodAsItsDays() throws {
        let db = try CLITests().demoDatabase()
        let add = try geospend(["periods", "add", "--user", "user1", "--name", "March", "--from", "2025-03-01", "--to", "2025-03-31", "--db", db])
        try #require(add.status == 0, "\(add.err)")
        for report in [["report", "store", "317766538"], ["report", "stores"]] {
            let base = report + ["--min-users", "1", "--format", "json", "--db", db]
            let byPeriod = try geospend(base + ["--period", "1", "--user", "user1"])
            let byDays = try geospend(base + ["--from", "2025-03-01", "--to", "2025-03-31"])
            let whole = try geospend(base)
            #expect(byPeriod.status == 0 && byPeriod.out == byDays.out, "\(byPeriod.err)")
            #expect(byPeriod.out != whole.out, "the period narrows the report")
            let both = try geospend(base + ["--period", "1", "--user", "user1", "--from", "2025-03-01"])
            #expect(both.status == 2 && both.err.contains("--period gives the days; drop --from/--to"))
            let alone = try geospend(base + ["--period", "1"])
            #expect(alone.status == 2 && alone.err.contains("--period and --user go together"))
            let other = try geospend(base + ["--period", "1", "--user", "user2"])
            #expect(other.status == 2, "user2 has no period 1")
        }
    }
}

/// Expenses of ann and ben, written for these tests (the CSV columns of Data/README.md): two
/// currencies, income among them, offsets east and west of UTC (a row whose local day is not
/// its UTC day), some without a position.
enum PeriodFixture {
    struct Row {
        let id, user, kind, currency, occurredAt, category: String
        let minor: Int
        let lat, lon: Double?
    }

    static let rows: [Row] = (0..<60).map { k in
        let user = k % 2 == 0 ? "ann" : "ben"
        let n = k / 2
        let month = 2 + (n / 2) % 3, day = 1 + (n * 7) % 27
        // 23:30 at −05:00 is the next day in UTC: the local day is the recorded one.
        let time = n % 5 == 0 ? "23:30:00-05:00" : String(format: "%02d:15:00+0%d:00", 8 + n % 10, month >= 4 ? 3 : 2)
        let located = n % 6 != 5
        return Row(
            id: (user == "ann" ? "a" : "b") + String(n), user: user, kind: n == 6 ? "income" : "expense",
            currency: n % 4 == 3 ? "SEK" : "EUR", occurredAt: String(format: "2025-%02d-%02dT", month, day) + time,
            category: n % 3 == 0 ? "Travel" : "Food", minor: 120 + (n * 379) % 5000,
            lat: located ? 60.17 + Double(n % 7) * 0.001 : nil, lon: located ? 24.94 - Double(n % 5) * 0.001 : nil)
    }

    static var csv: String {
        "id,user,kind,amount,currency,occurred_at,category,lat,lon\n" + rows.map { r in
            [r.id, r.user, r.kind, String(format: "%d.%02d", r.minor / 100, r.minor % 100), r.currency, r.occurredAt, r.category,
             r.lat.map { "\($0)" } ?? "", r.lon.map { "\($0)" } ?? ""].joined(separator: ",")
        }.joined(separator: "\n") + "\n"
    }

    /// Summary's `currencies` for these rows, by currency code: money as decimal strings, days
    /// as written in `occurred_at` (its local date).
    static func summaryLines(_ rows: [Row]) -> [[String: Any]] {
        func money(_ minor: Int) -> String { (minor < 0 ? "-" : "") + String(format: "%d.%02d", abs(minor) / 100, abs(minor) % 100) }
        return Dictionary(grouping: rows, by: \.currency).sorted { $0.key < $1.key }.map { currency, rows in
            let income = rows.filter { $0.kind == "income" }, expenses = rows.filter { $0.kind == "expense" }
            let inc = income.map(\.minor).reduce(0, +), exp = expenses.map(\.minor).reduce(0, +)
            let days = rows.map { String($0.occurredAt.prefix(10)) }.sorted()
            return [
                "currency": currency, "income": money(inc), "income_count": income.count, "expenses": money(exp),
                "expenses_count": expenses.count, "balance": money(inc - exp), "transfers": "0.00", "transfers_count": 0,
                "first_day": days.first!, "last_day": days.last!,
            ]
        }
    }
}
