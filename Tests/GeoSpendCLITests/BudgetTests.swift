import Foundation
import GeoSpendTestSupport
import GeoSpend
import Testing

/// `geospend budgets` end to end through the built binary (issue 17, "Budgets"): each rule of
/// the issue has a test here; the summary figures are checked against an independent Python
/// computation (Tests/validators/check_budget_summary.py) on generated data.
@Suite(.serialized) struct BudgetTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-budgets-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    /// A database holding `csv` (the import format of Data/README.md), written by the test.
    func database(_ csv: String, name: String = "b") throws -> String {
        let db = dir.appendingPathComponent("\(name).sqlite").path
        let file = dir.appendingPathComponent("\(name).csv").path
        try csv.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try geospend(["import", "expenses", file, "--db", db])
        try #require(r.status == 0, "\(r.err)")
        return db
    }

    static let header = "id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes\n"

    /// Rows for `user`: (id, amount, currency, occurred_at, category, lat, lon), kind expense.
    static func csv(_ user: String, _ rows: [(String, String, String, String, String, Double?, Double?)], kind: String = "expense") -> String {
        rows.map { r in
            "\(r.0),\(user),\(kind),\(r.1),\(r.2),\(r.3),,\(r.4),,\(r.5.map { "\($0)" } ?? ""),\(r.6.map { "\($0)" } ?? ""),,,\n"
        }.joined()
    }

    func json(_ r: (status: Int32, out: String, err: String)) throws -> Any {
        try #require(r.status == 0, "\(r.err)")
        return try JSONSerialization.jsonObject(with: Data(r.out.utf8))
    }

    func add(_ db: String, _ user: String, _ args: [String]) throws -> [String: Any] {
        let r = try geospend(["budgets", "add", "--db", db, "--user", user, "--currency", "EUR", "--format", "json"] + args)
        return try #require(try json(r) as? [String: Any])
    }

    func summary(_ db: String, _ user: String, _ id: Any, asOf: String) throws -> [String: Any] {
        try #require(try json(try geospend(["budgets", "summary", "--db", db, "--user", user, "--id", "\(id)", "--as-of", asOf, "--format", "json"])) as? [String: Any])
    }

    func listed(_ db: String, _ user: String, all: Bool = false) throws -> [[String: Any]] {
        try #require(try json(try geospend(["budgets", "list", "--db", db, "--user", user, "--format", "json"] + (all ? ["--all"] : []))) as? [[String: Any]])
    }

    static let basic = header + csv("ann", [
        ("a1", "30.00", "EUR", "2025-03-02T12:00:00+02:00", "Food", 60.1699, 24.9384),
        ("a2", "20.00", "EUR", "2025-03-03T12:00:00+02:00", "Transport", nil, nil),
        ("a3", "35.50", "EUR", "2025-03-05T12:00:00+02:00", "Food", 60.2000, 24.9000),
        ("a4", "99.00", "SEK", "2025-03-05T13:00:00+02:00", "Food", 60.1699, 24.9384),
        ("a5", "10.00", "EUR", "2025-04-01T12:00:00+03:00", "Food", 60.1699, 24.9384),
    ]) + csv("ann", [("a6", "500.00", "EUR", "2025-03-04T09:00:00+02:00", "Salary", nil, nil)], kind: "income")

    @Test func addPrintsTheBudgetWithItsIdAndRefusesBadInput() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        let b = try add(db, "ann", ["--name", "March", "--amount", "100.00", "--from", "2025-03-01", "--to", "2025-03-31", "--category-limit", "Food=50.00"])
        #expect(b["id"] as? Int == 1 && b["amount"] as? String == "100.00" && b["from"] as? String == "2025-03-01" && b["active"] as? Bool == true)
        #expect((b["category_limits"] as? [[String: String]]) == [["category": "Food", "amount": "50.00"]])
        let table = try geospend(["budgets", "list", "--db", db, "--user", "ann"])
        #expect(table.status == 0 && table.out.contains("March") && table.out.contains("100.00"), "\(table.out)")

        let common = ["--db", db, "--user", "ann", "--name", "X", "--currency", "EUR"]
        let bad: [([String], String)] = [
            (["--amount", "0", "--from", "2025-03-01", "--to", "2025-03-31"], "is zero"),
            (["--amount", "-5", "--from", "2025-03-01", "--to", "2025-03-31"], "negative"),
            (["--amount", "5", "--from", "2025-03-31", "--to", "2025-03-01"], "is not after --from"),
            (["--amount", "5", "--from", "2025-03-01", "--to", "2025-03-01"], "is not after --from"),
            (["--amount", "5", "--from", "2025-03-01", "--to", "2025-03-32"], "--to"),
            (["--amount", "5", "--from", "2025-03-01", "--to", "2025-03-31", "--category", "Fod"], "did you mean \"Food\""),
            (["--amount", "5", "--from", "2025-03-01", "--to", "2025-03-31", "--zone-around", "60.1,24.9"], "go together"),
            (["--amount", "5", "--from", "2025-03-01", "--to", "2025-03-31", "--category-limit", "Food"], "CATEGORY=AMOUNT"),
            (["--amount", "5", "--from", "2025-03-01", "--to", "2025-03-31", "--zone-geojson", "/nonexistent.geojson"], "/nonexistent.geojson"),
        ]
        for (args, reason) in bad {
            let r = try geospend(["budgets", "add"] + common + args)
            #expect(r.status == 2 && r.err.contains(reason), "\(args): \(r.status) \(r.err)")
        }
        // A polygon crossing the antimeridian uncut, and a self-intersecting one, are refused with the fix.
        for (name, coords, reason) in [
            ("uncut", "[[179.9,-16.9],[-179.9,-16.9],[-179.9,-16.7],[179.9,-16.7],[179.9,-16.9]]", "antimeridian"),
            ("bowtie", "[[0,0],[1,1],[1,0],[0,1],[0,0]]", "not a valid polygon"),
        ] {
            let file = dir.appendingPathComponent("\(name).geojson").path
            try "{\"type\":\"Polygon\",\"coordinates\":[\(coords)]}".write(toFile: file, atomically: true, encoding: .utf8)
            let r = try geospend(["budgets", "add"] + common + ["--amount", "5", "--from", "2025-03-01", "--to", "2025-03-31", "--zone-geojson", file])
            #expect(r.status == 2 && r.err.contains(file) && r.err.contains(reason), "\(name): \(r.err)")
        }
        #expect(try listed(db, "ann", all: true).count == 1, "nothing refused was saved")
    }

    /// Phase 3's overlap rule: a new budget deactivates the active, overlapping budgets of its
    /// scope only (same user, currency, category or none, zone or none).
    @Test func overlapDeactivatesOnlyTheSameScope() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic + Self.csv("ben", [("b1", "1.00", "EUR", "2025-03-02T12:00:00+02:00", "Food", nil, nil)]))
        let march = ["--from", "2025-03-01", "--to", "2025-03-31"]
        let general = try add(db, "ann", ["--name", "General", "--amount", "100"] + march)
        let food = try add(db, "ann", ["--name", "Food", "--amount", "50", "--category", "Food"] + march)
        let zone = try add(db, "ann", ["--name", "Zone", "--amount", "50", "--zone-around", "60.1699,24.9384", "--zone-radius", "400m"] + march)
        let sek = try add(db, "ann", ["--name", "Kronor", "--amount", "50", "--currency", "SEK"] + march)
        let bens = try add(db, "ben", ["--name", "Ben", "--amount", "50"] + march)
        for b in [food, zone, sek, bens] { #expect((b["deactivated"] as? [Int]) == [], "\(b)") }
        // April does not overlap March; the boundary day does (a.from <= b.to && a.to >= b.from).
        let april = try add(db, "ann", ["--name", "April", "--amount", "100", "--from", "2025-04-01", "--to", "2025-04-30"])
        #expect((april["deactivated"] as? [Int]) == [])
        let late = try add(db, "ann", ["--name", "Late", "--amount", "100", "--from", "2025-03-31", "--to", "2025-04-01"])
        #expect(Set(late["deactivated"] as? [Int] ?? []) == Set([general["id"] as! Int, april["id"] as! Int]))
        let active = try listed(db, "ann")
        // Active first, newest `from` first (ties: newest id first); --all adds inactive ones after.
        #expect(active.map { $0["name"] as! String } == ["Late", "Kronor", "Zone", "Food"])
        #expect(try listed(db, "ann", all: true).map { $0["name"] as! String } == ["Late", "Kronor", "Zone", "Food", "April", "General"])
        #expect(try listed(db, "ben").map { $0["name"] as! String } == ["Ben"], "another user's budgets are another scope")
        // The same zone again does deactivate the zone budget; a zone budget never the general one.
        let zone2 = try add(db, "ann", ["--name", "Zone2", "--amount", "60", "--zone-around", "60.1699,24.9384", "--zone-radius", "400m"] + march)
        #expect((zone2["deactivated"] as? [Int]) == [zone["id"] as! Int])
    }

    /// Firefly III issue #3418: one expense counted against a monthly and a weekly budget at
    /// once. Here budgets of one scope never overlap while active, so an expense counts against
    /// exactly one budget per scope; budgets of different scopes (the general one and a
    /// category one) each count it, by design, and `alerts` shows which.
    @Test func fireflyIII3418AnExpenseCountsOncePerScope() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.header + Self.csv("ann", [("f1", "90.00", "EUR", "2025-03-05T12:00:00+02:00", "Food", nil, nil)]))
        let monthly = try add(db, "ann", ["--name", "Month", "--amount", "100", "--from", "2025-03-01", "--to", "2025-03-31"])
        let weekly = try add(db, "ann", ["--name", "Week", "--amount", "100", "--from", "2025-03-01", "--to", "2025-03-31", "--every", "week"])
        #expect((weekly["deactivated"] as? [Int]) == [monthly["id"] as! Int], "the weekly budget of the same scope replaces the monthly one")
        let food = try add(db, "ann", ["--name", "Groceries", "--amount", "100", "--category", "Food", "--from", "2025-03-01", "--to", "2025-03-31"])
        #expect((food["deactivated"] as? [Int]) == [])
        let alerts = try #require(try json(try geospend(["budgets", "alerts", "--db", db, "--user", "ann", "--as-of", "2025-03-06", "--format", "json"])) as? [[String: Any]])
        #expect(Set(alerts.map { $0["name"] as! String }) == ["Week", "Groceries"], "not the deactivated monthly budget: \(alerts)")
        #expect(try summary(db, "ann", weekly["id"]!, asOf: "2025-03-06")["spent"] as? String == "90.00")
        #expect(try summary(db, "ann", weekly["id"]!, asOf: "2025-03-10")["spent"] as? String == "0.00", "next week's window")
    }

    @Test func alertsLevelsAndTheSeedsMessage() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.header + Self.csv("ann", [
            ("g1", "85.50", "EUR", "2025-03-05T12:00:00+02:00", "Food", nil, nil),
            ("g2", "800.00", "SEK", "2025-03-05T12:00:00+02:00", "Shopping", nil, nil),
            ("g3", "120.00", "USD", "2025-03-05T12:00:00+02:00", "Shopping", nil, nil),
        ]))
        let march = ["--from", "2025-03-01", "--to", "2025-03-31"]
        let groceries = try add(db, "ann", ["--name", "Groceries", "--amount", "100.00"] + march)
        _ = try add(db, "ann", ["--name", "Almost", "--amount", "1000.05", "--currency", "SEK"] + march)  // 79.996 %: no alert
        let usd = try add(db, "ann", ["--name", "Trip", "--amount", "100.00", "--currency", "USD"] + march)
        _ = try add(db, "ann", ["--name", "Later", "--amount", "1.00", "--currency", "USD", "--category", "Shopping", "--from", "2025-03-06", "--to", "2025-03-31"])
        let alerts = try #require(try json(try geospend(["budgets", "alerts", "--db", db, "--user", "ann", "--as-of", "2025-03-05", "--format", "json"])) as? [[String: Any]])
        #expect(alerts.count == 2, "\(alerts)")
        let g = try #require(alerts.first { $0["budget_id"] as? Int == groceries["id"] as? Int })
        #expect(g["level"] as? String == "warning" && g["message"] as? String == "You've used 85% of your Groceries budget")
        #expect((g["percentage_used"] as? NSNumber)?.doubleValue == 85.5)
        let t = try #require(alerts.first { $0["budget_id"] as? Int == usd["id"] as? Int })
        #expect(t["level"] as? String == "exceeded" && t["message"] as? String == "You've used 120% of your Trip budget")
        let almost = try summary(db, "ann", 2, asOf: "2025-03-05")
        #expect((almost["percentage_used"] as? NSNumber)?.doubleValue == 80.0, "79.996 rounds to 80.00 but is under 80 %")
        // Other currencies are listed as not counted, never converted.
        let nc = try #require(try summary(db, "ann", groceries["id"]!, asOf: "2025-03-05")["not_counted"] as? [[String: Any]])
        #expect(nc.map { "\($0["currency"]!) \($0["total"]!) \($0["expenses"]!)" } == ["SEK 800.00 1", "USD 120.00 1"])
    }

    @Test func editAndDeleteStayWithinTheUser() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic + Self.csv("ben", [("b1", "1.00", "EUR", "2025-03-02T12:00:00+02:00", "Food", nil, nil)]))
        let a = try add(db, "ann", ["--name", "March", "--amount", "100", "--from", "2025-03-01", "--to", "2025-03-15"])
        let b = try add(db, "ann", ["--name", "Late March", "--amount", "100", "--from", "2025-03-16", "--to", "2025-03-31"])
        // Ids are per user: ben's third budget is one ann has no id for.
        for n in 1...2 { _ = try add(db, "ben", ["--name", "Ben \(n)", "--amount", "100", "--from", "2025-0\(n)-01", "--to", "2025-0\(n)-28"]) }
        let ben = try add(db, "ben", ["--name", "Ben", "--amount", "100", "--from", "2025-03-01", "--to", "2025-03-31"])
        try #require(ben["id"] as? Int == 3)
        let edited = try #require(try json(try geospend([
            "budgets", "edit", "--db", db, "--user", "ann", "--id", "\(a["id"]!)", "--amount", "120.50", "--to", "2025-03-20",
            "--category-limit", "Food=30", "--format", "json",
        ])) as? [String: Any])
        #expect(edited["amount"] as? String == "120.50" && edited["to"] as? String == "2025-03-20")
        #expect((edited["deactivated"] as? [Int]) == [b["id"] as! Int], "an edit that now overlaps deactivates like an add")
        for command in ["edit", "delete"] {
            let r = try geospend(["budgets", command, "--db", db, "--user", "ann", "--id", "\(ben["id"]!)"] + (command == "edit" ? ["--name", "Mine"] : []))
            #expect(r.status == 2 && r.err.contains("no budget \(ben["id"]!) of user \"ann\""), "\(command): \(r.err)")
        }
        let s = try geospend(["budgets", "summary", "--db", db, "--user", "ann", "--id", "\(ben["id"]!)", "--as-of", "2025-03-05"])
        #expect(s.status == 2, "ben's budget is not ann's to read")
        let d = try geospend(["budgets", "delete", "--db", db, "--user", "ann", "--id", "\(a["id"]!)"])
        #expect(d.status == 0 && d.out == "deleted budget \(a["id"]!)\n")
        #expect(try listed(db, "ann", all: true).map { $0["name"] as! String } == ["Late March"])
        #expect(try listed(db, "ben").map { $0["name"] as! String } == ["Ben", "Ben 2", "Ben 1"])
        // users export writes budgets; users delete leaves none.
        let export = try geospend(["users", "export", "ann", "--db", db])
        #expect(export.out.contains("\"budgets\":[\n{\"id\":\(b["id"]!),\"user\":\"ann\",\"name\":\"Late March\""), "\(export.out)")
        #expect(export.out.contains("\"budgets\":1,"))
        let deleted = try geospend(["users", "delete", "ann", "--yes", "--db", db])
        #expect(deleted.status == 0 && deleted.out.contains("budgets 1"), "\(deleted.out)")
        let left = try runProgram("/usr/bin/sqlite3", [db, "SELECT count(*) FROM budgets WHERE user_id = 'ann'; SELECT count(*) FROM budget_category_limits WHERE user_id = 'ann'; SELECT count(*) FROM budgets;"])
        #expect(left.out == "0\n0\n3\n", "\(left.out) \(left.err)")
    }

    /// Ids are each user's own count, never reused: a deleted budget's id is not given to the
    /// next, and a user's first budget is 1 however many budgets other users have.
    @Test func idsAreNumberedPerUserAndNeverReused() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic + Self.csv("ben", [("b1", "1.00", "EUR", "2025-03-02T12:00:00+02:00", "Food", nil, nil)]))
        let a1 = try add(db, "ann", ["--name", "One", "--amount", "10", "--from", "2025-01-01", "--to", "2025-01-31"])
        let a2 = try add(db, "ann", ["--name", "Two", "--amount", "10", "--from", "2025-02-01", "--to", "2025-02-28"])
        let b1 = try add(db, "ben", ["--name", "Ben", "--amount", "10", "--from", "2025-01-01", "--to", "2025-01-31"])
        #expect([a1["id"] as? Int, a2["id"] as? Int, b1["id"] as? Int] == [1, 2, 1], "ben's first budget is his 1")
        #expect(try geospend(["budgets", "delete", "--db", db, "--user", "ann", "--id", "2"]).status == 0)
        let a3 = try add(db, "ann", ["--name", "Three", "--amount", "10", "--from", "2025-03-01", "--to", "2025-03-31"])
        #expect(a3["id"] as? Int == 3, "2 was deleted: never given again")
        let b2 = try add(db, "ben", ["--name", "Ben 2", "--amount", "10", "--from", "2025-02-01", "--to", "2025-02-28"])
        #expect(b2["id"] as? Int == 2)
        // Edit, summary and delete reach the user's own budget of that number, not ann's.
        let edited = try geospend(["budgets", "edit", "--db", db, "--user", "ben", "--id", "1", "--name", "Ben one", "--format", "json"])
        #expect(edited.status == 0 && edited.out.contains("\"name\": \"Ben one\""), "\(edited.out) \(edited.err)")
        #expect(try listed(db, "ann", all: true).map { $0["name"] as! String }.sorted() == ["One", "Three"])
        let left = try runProgram("/usr/bin/sqlite3", [db, "SELECT user_id, last FROM budget_numbers ORDER BY user_id"])
        #expect(left.out == "ann|3\nben|2\n", "\(left.out) \(left.err)")
    }

    /// A category rename reaches the budgets and limits naming it, so they keep counting; a
    /// deleted category's budgets are deactivated (README, Budgets).
    @Test func categoryRenameAndDeleteReachBudgets() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        let food = try add(db, "ann", ["--name", "Food", "--amount", "100", "--from", "2025-03-01", "--to", "2025-03-31", "--category", "Food"])
        let general = try add(db, "ann", ["--name", "All", "--amount", "100", "--from", "2025-03-01", "--to", "2025-03-31", "--category-limit", "food=50"])
        let r = try geospend(["categories", "edit", "Food", "--user", "ann", "--name", "Meals", "--db", db])
        try #require(r.status == 0, "\(r.err)")
        let budgets = try listed(db, "ann")
        #expect(budgets.first { $0["id"] as? Int == food["id"] as? Int }?["category"] as? String == "Meals")
        #expect((budgets.first { $0["id"] as? Int == general["id"] as? Int }?["category_limits"] as? [[String: String]]) == [["category": "Meals", "amount": "50.00"]])
        // a1 30.00 + a3 35.50 (a4 is SEK, a5 April): still counted under the new name.
        #expect(try summary(db, "ann", food["id"]!, asOf: "2025-03-31")["spent"] as? String == "65.50")
        let meals = try add(db, "ann", ["--name", "Meals", "--amount", "90", "--from", "2025-03-15", "--to", "2025-04-15", "--category", "meals"])
        #expect((meals["deactivated"] as? [Int]) == [food["id"] as! Int], "same scope under the new name")

        _ = try geospend(["categories", "add", "--user", "ann", "--name", "Snacks", "--db", db])
        let snacks = try add(db, "ann", ["--name", "Snacks", "--amount", "20", "--from", "2025-03-01", "--to", "2025-03-31", "--category", "Snacks"])
        #expect(try geospend(["categories", "delete", "snacks", "--user", "ann", "--db", db]).status == 0)
        let after = try listed(db, "ann", all: true).first { $0["id"] as? Int == snacks["id"] as? Int }
        #expect(after?["active"] as? Bool == false && after?["category"] as? String == "Snacks")
    }

    /// Budget names follow the period rule (`DisplayName`): trimmed NFC, 1–100 characters, one
    /// line, no control or bidi characters.
    @Test func namesFollowThePeriodRule() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        let days = ["--amount", "5", "--currency", "EUR", "--from", "2025-03-01", "--to", "2025-03-31"]
        for (name, reason) in [("   ", "is not a budget name"), ("two\nlines", "one line"), ("evil\u{202E}txt", "U+202E"),
                               (String(repeating: "x", count: 101), "at most 100")] {
            let r = try geospend(["budgets", "add", "--db", db, "--user", "ann", "--name", name] + days)
            #expect(r.status == 2 && r.err.contains(reason), "\(name.debugDescription): \(r.status) \(r.err)")
            let p = try geospend(["periods", "add", "--db", db, "--user", "ann", "--name", name, "--from", "2025-03-01"])
            #expect(p.status == 2, "periods refuse it too: \(name.debugDescription) \(p.err)")
        }
        let ok = try add(db, "ann", ["--name", "  Cafe\u{301}  "] + days.filter { $0 != "--currency" && $0 != "EUR" })
        #expect(ok["name"] as? String == "Caf\u{E9}", "trimmed and NFC")
        let edit = try geospend(["budgets", "edit", "--db", db, "--user", "ann", "--id", "1", "--name", "a\u{2066}b"])
        #expect(edit.status == 2 && edit.err.contains("U+2066"), "\(edit.err)")
    }

    /// Tables escape each cell once (TextTable): an invisible character shows as one escape.
    @Test func tablesEscapeOnce() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        _ = try add(db, "ann", ["--name", "Zero\u{200B}Width", "--amount", "5", "--from", "2025-03-01", "--to", "2025-03-31"])
        for args in [["list"], ["summary", "--id", "1", "--as-of", "2025-03-05"]] {
            let r = try geospend(["budgets", args[0], "--db", db, "--user", "ann"] + args.dropFirst())
            #expect(r.status == 0 && r.out.contains("Zero\\u{200B}Width") && !r.out.contains("\\\\u{"), "\(args): \(r.out)")
        }
    }

    /// The category is stored by its name, the option at fault is named, a lower-case currency
    /// gets its code suggested.
    @Test func categoryCurrencyAndOptionNames() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        let b = try add(db, "ann", ["--name", "F", "--amount", "5", "--from", "2025-03-01", "--to", "2025-03-31", "--category", "food", "--category-limit", "FOOD=2"])
        #expect(b["category"] as? String == "Food" && (b["category_limits"] as? [[String: String]]) == [["category": "Food", "amount": "2.00"]])
        let common = ["budgets", "add", "--db", db, "--user", "ann", "--name", "X", "--amount", "5", "--from", "2025-03-01", "--to", "2025-03-31"]
        let typo = try geospend(common + ["--currency", "EUR", "--category-limit", "Fod=1"])
        #expect(typo.status == 2 && typo.err.contains("--category-limit Fod:") && typo.err.contains("did you mean \"Food\""), "\(typo.err)")
        let usd = try geospend(common + ["--currency", "usd"])
        #expect(usd.status == 2 && usd.err.contains("did you mean \"USD\""), "\(usd.err)")
    }

    /// Contradictory pairs on edit are a usage error, and nothing changes.
    @Test func editRefusesContradictions() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        _ = try add(db, "ann", ["--name", "M", "--amount", "50", "--from", "2025-03-01", "--to", "2025-06-30", "--every", "month", "--category-limit", "Food=20"])
        for pair in [["--every", "week", "--once"], ["--category-limit", "Food=10", "--no-category-limits"]] {
            let r = try geospend(["budgets", "edit", "--db", db, "--user", "ann", "--id", "1"] + pair)
            #expect(r.status == 2 && r.err.contains("contradict"), "\(pair): \(r.status) \(r.err)")
        }
        let b = try #require(try listed(db, "ann").first)
        #expect(b["every"] as? String == "month" && (b["category_limits"] as? [[String: String]])?.count == 1)
    }

    /// An expense whose stored local day does not parse stops the summary with the reason
    /// (it used to be skipped, and the figures were silently wrong).
    @Test func aDamagedLocalDayIsAnErrorNotASkip() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        _ = try add(db, "ann", ["--name", "M", "--amount", "50", "--from", "2025-03-01", "--to", "2025-03-31"])
        let broken = try runProgram("/usr/bin/sqlite3", [db, "UPDATE expenses SET local_date = '2025-03-0x' WHERE id = 'a2'"])
        try #require(broken.status == 0, "\(broken.err)")
        let r = try geospend(["budgets", "summary", "--db", db, "--user", "ann", "--id", "1", "--as-of", "2025-03-10"])
        #expect(r.status == 1 && r.err.contains("a2") && r.err.contains("2025-03-0x"), "\(r.status) \(r.out) \(r.err)")
    }

    /// The summary is a record: `key  value` lines, no empty header or dash line.
    @Test func summaryTableIsARecord() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        _ = try add(db, "ann", ["--name", "March", "--amount", "100", "--from", "2025-03-01", "--to", "2025-03-31"])
        let r = try geospend(["budgets", "summary", "--db", db, "--user", "ann", "--id", "1", "--as-of", "2025-03-05"])
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(r.status == 0 && lines.first?.wholeMatch(of: /budget +1 March/) != nil && lines[1].hasPrefix("days "), "\(r.out)")
        #expect(lines.contains { $0.wholeMatch(of: /spent +85\.50 EUR/) != nil } && !r.out.contains("--"), "\(r.out)")
        // Values start in one column.
        let columns = Set(lines.filter { !$0.isEmpty }.map { line in line.distance(from: line.startIndex, to: line.firstRange(of: #/  +/#)!.upperBound) })
        #expect(columns.count == 1, "\(r.out)")
    }

    /// `budgets alerts` and `insights` pick the same budgets on a day: those whose days hold it.
    @Test func alertsAndInsightsAgreeOnTheDay() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        _ = try add(db, "ann", ["--name", "Office", "--amount", "30.00", "--from", "2025-03-01", "--to", "2025-03-31", "--zone-around", "60.1699,24.9384", "--zone-radius", "400m"])
        for (day, expected) in [("2025-03-31", ["Office"]), ("2025-04-15", []), ("2025-02-15", [])] {
            let insights = try #require(try json(try geospend(["insights", "--db", db, "--user", "ann", "--to", day, "--format", "json"])) as? [String: Any])
            let zones = (insights["budgets"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            let alerts = try #require(try json(try geospend(["budgets", "alerts", "--db", db, "--user", "ann", "--as-of", day, "--format", "json"])) as? [[String: Any]])
            let alerted = alerts.compactMap { $0["name"] as? String }
            #expect(zones == expected && alerted == expected, "\(day): insights \(zones), alerts \(alerted)")
        }
    }

    /// "Shown in insights": each active zone budget with its zone and percentage, as of --to.
    @Test func insightsShowZoneBudgets() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        let zone = try add(db, "ann", ["--name", "Office", "--amount", "80.00", "--from", "2025-03-01", "--to", "2025-03-31", "--zone-around", "60.1699,24.9384", "--zone-radius", "400m"])
        _ = try add(db, "ann", ["--name", "General", "--amount", "80.00", "--from", "2025-03-01", "--to", "2025-03-31"])
        let insights = try #require(try json(try geospend(["insights", "--db", db, "--user", "ann", "--to", "2025-03-31", "--format", "json"])) as? [String: Any])
        let budgets = try #require(insights["budgets"] as? [[String: Any]])
        #expect(budgets.map { $0["name"] as? String } == ["Office"], "zone budgets only")
        // a1 (30.00) is at the centre; a3 is ~3.6 km away; a4 is SEK: 30.00 of 80.00 = 37.5 %.
        #expect((budgets.first?["percentage_used"] as? NSNumber)?.doubleValue == 37.5 && budgets.first?["spent"] as? String == "30.00")
        #expect(((budgets.first?["zone"] as? [String: Any])?["radius_m"] as? NSNumber)?.doubleValue == 400)
        #expect(budgets.first?["budget_id"] as? Int == zone["id"] as? Int && budgets.first?["as_of"] as? String == "2025-03-31")
        let table = try geospend(["insights", "--db", db, "--user", "ann", "--to", "2025-03-31"])
        #expect(table.out.contains("Zone budgets as of 2025-03-31:\n  Office: 37.5 % of 80.00 EUR within 400 m of 60.1699,24.9384\n"), "\(table.out)")
    }

    /// "Shown on the map page": the bundle's budgets.geojson holds each zone budget with its
    /// percentage, and the page draws them in Chromium without a script error.
    @Test func mapPageShowsZoneBudgets() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database(Self.basic)
        let square = dir.appendingPathComponent("square.geojson").path
        try #"{"type":"Polygon","coordinates":[[[24.93,60.165],[24.95,60.165],[24.95,60.175],[24.93,60.175],[24.93,60.165]]]}"#
            .write(toFile: square, atomically: true, encoding: .utf8)
        _ = try add(db, "ann", ["--name", "Office", "--amount", "80.00", "--from", "2025-03-01", "--to", "2025-03-31", "--zone-around", "60.1699,24.9384", "--zone-radius", "400m"])
        _ = try add(db, "ann", ["--name", "Centre", "--amount", "200.00", "--from", "2025-03-01", "--to", "2025-03-31", "--zone-geojson", square])
        let bundle = dir.appendingPathComponent("map").path
        let r = try geospend(["export", "bundle", "--db", db, "--user", "ann", "--to", "2025-03-31", "--out", bundle])
        try #require(r.status == 0, "\(r.err)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle + "/budgets.geojson"))) as? [String: Any])
        let props = try #require((doc["features"] as? [[String: Any]])?.compactMap { $0["properties"] as? [String: Any] })
        // Office: a1 30.00 of 80.00; Centre: a1 (30.00) only, a3 is outside: 15 %.
        #expect(props.map { "\($0["name"]!) \($0["percentage_used"]!)" }.sorted() == ["Centre 15", "Office 37.5"])
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let dom = try runProgram(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", "--dump-dom",
                                              URL(fileURLWithPath: bundle + "/index.html").absoluteString])
        let status = try #require(dom.out.range(of: #"<pre id="geospend-status">[^<]*</pre>"#, options: .regularExpression).map {
            String(dom.out[$0]).replacingOccurrences(of: "&quot;", with: "\"")
        })
        #expect(status.contains(#""budgets":2"#) && status.contains(#""errors":[]"#), "\(status)")
        #expect(dom.out.contains("Office: 37.5 %") && dom.out.contains("Centre: 15 %"), "the zones' labels are on the page")
    }

    /// The summary against an independent computation (Python: its own date, decimal and
    /// GeographicLib/Shapely logic) on generated data, including a window straddling the
    /// Helsinki DST change (2025-03-30, +02:00 → +03:00) and zones across ±180° at Taveuni, Fiji.
    @Test func summaryMatchesAnIndependentComputation() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = Self.header + Self.generated()
        let csvFile = dir.appendingPathComponent("generated.csv").path
        let db = try database(csv, name: "generated")
        try csv.write(toFile: csvFile, atomically: true, encoding: .utf8)
        // Cut at the antimeridian as RFC 7946 §3.1.9 asks: two polygons meeting at ±180°.
        let polygon = dir.appendingPathComponent("taveuni.geojson").path
        try """
            {"type":"Feature","properties":{"name":"Taveuni"},"geometry":{"type":"MultiPolygon","coordinates":[
            [[[179.9,-16.9],[180,-16.9],[180,-16.7],[179.9,-16.7],[179.9,-16.9]]],
            [[[-180,-16.9],[-179.92,-16.9],[-179.92,-16.7],[-180,-16.7],[-180,-16.9]]]]}}
            """.write(toFile: polygon, atomically: true, encoding: .utf8)
        let cases: [([String], [String])] = [
            (["--name", "DST week", "--amount", "300.00", "--from", "2025-03-24", "--to", "2025-03-30"], ["2025-03-27", "2025-03-30", "2025-04-02", "2025-03-01"]),
            (["--name", "Weekly", "--amount", "150.00", "--from", "2025-03-01", "--to", "2025-04-30", "--every", "week"], ["2025-03-30", "2025-04-01", "2025-03-03"]),
            (["--name", "Lunch zone", "--amount", "80.00", "--category", "Food", "--from", "2025-03-01", "--to", "2025-12-31", "--every", "month", "--zone-around", "60.1699,24.9384", "--zone-radius", "400m"], ["2025-03-31", "2025-04-05"]),
            (["--name", "Limits", "--amount", "400.00", "--from", "2025-03-20", "--to", "2025-04-12", "--category-limit", "Food=40.00", "--category-limit", "Transport=25.00"], ["2025-04-01", "2025-04-20", "2025-03-01"]),
            (["--name", "Taveuni circle", "--amount", "250.00", "--currency", "FJD", "--from", "2025-03-01", "--to", "2025-04-30", "--zone-around", "-16.80,179.99", "--zone-radius", "8km"], ["2025-04-10"]),
            (["--name", "Taveuni polygon", "--amount", "250.00", "--currency", "FJD", "--from", "2025-03-01", "--to", "2025-04-30", "--zone-geojson", polygon], ["2025-04-10"]),
        ]
        for (args, days) in cases {
            let added = try add(db, "gen", args)
            let budget = try #require(try listed(db, "gen", all: true).first { $0["id"] as? Int == added["id"] as? Int })
            let budgetFile = dir.appendingPathComponent("budget.json").path
            try JSONSerialization.data(withJSONObject: budget).write(to: URL(fileURLWithPath: budgetFile))
            for day in days {
                let r = try geospend(["budgets", "summary", "--db", db, "--user", "gen", "--id", "\(added["id"]!)", "--as-of", day, "--format", "json"])
                try #require(r.status == 0, "\(r.err)")
                let summaryFile = dir.appendingPathComponent("summary.json").path
                try r.out.write(toFile: summaryFile, atomically: true, encoding: .utf8)
                let check = try runProgram(
                    CLITests.repo.appendingPathComponent(".venv/bin/python").path,
                    ["Tests/validators/check_budget_summary.py", csvFile, budgetFile, summaryFile, "gen"], directory: CLITests.repo)
                #expect(check.status == 0 && check.out == "ok\n", "\(args[1]) as of \(day): \(check.out)\(check.err)")
            }
        }
        // The data really tests what it claims: expenses at the DST week's edges whose UTC day
        // differs from their local day, and zone expenses on both sides of ±180°.
        let dst = try summary(db, "gen", 1, asOf: "2025-03-30")
        #expect(dst["expenses"] as? Int ?? 0 > 20)
        let circle = try summary(db, "gen", 5, asOf: "2025-04-10"), poly = try summary(db, "gen", 6, asOf: "2025-04-10")
        #expect((circle["expenses"] as? Int ?? 0) > 5 && (poly["expenses"] as? Int ?? 0) > 5)
    }

    /// Generated by this code (seeded, nothing hand-edited): user `gen` in Helsinki from
    /// 2025-03-20 to 2025-04-12 at the offset Europe/Helsinki had (+02:00 until 2025-03-30
    /// 03:00, then +03:00; tzdata), often just before or after midnight; EUR and some SEK;
    /// Food, Transport, Shopping or no category; within ~700 m of the centre or without a
    /// position; some income and transfers. Plus FJD expenses at Taveuni, Fiji (+12:00, no DST
    /// in 2025), at longitudes 179.8°E…179.8°W. Fixed rows pin the DST week's edges.
    static func generated() -> String {
        var rng = SplitMix64(seed: 17_2025)
        func u() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
        func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
        var out = ""
        func row(_ id: String, _ kind: String, _ amount: String, _ currency: String, _ at: String, _ category: String, _ lat: Double?, _ lon: Double?) {
            out += "\(id),gen,\(kind),\(amount),\(currency),\(at),,\(category),,\(lat.map { "\($0)" } ?? ""),\(lon.map { "\($0)" } ?? ""),,,\n"
        }
        for k in 0..<600 {
            let day = 20 + Int(rng.next() % 24)  // March 20 … April 12
            let (month, dom) = day <= 31 ? (3, day) : (4, day - 31)
            var hour = pick([0, 0, 1, 23, 23, 22, 8, 12, 13, 18])
            if month == 3 && dom == 30 && hour == 3 { hour = 4 }
            let afterChange = month == 4 || (dom == 30 && hour >= 4) || dom == 31
            let at = String(format: "2025-%02d-%02dT%02d:%02d:00%@", month, dom, hour, Int(rng.next() % 60), afterChange ? "+03:00" : "+02:00")
            let cents = 50 + Int(rng.next() % 6000)
            let positioned = rng.next() % 5 != 0
            row(String(format: "h%04d", k), pick(["expense", "expense", "expense", "expense", "expense", "income", "transfer"]),
                Money.decimalString(Int64(cents), digits: 2), pick(["EUR", "EUR", "EUR", "EUR", "SEK"]), at,
                pick(["Food", "Food", "Transport", "Shopping", ""]),
                positioned ? 60.1699 + (u() - 0.5) * 0.012 : nil, positioned ? 24.9384 + (u() - 0.5) * 0.024 : nil)
        }
        for k in 0..<200 {
            var lon = 179.8 + u() * 0.4
            if lon > 180 { lon -= 360 }
            let at = String(format: "2025-04-%02dT%02d:%02d:00+12:00", 1 + Int(rng.next() % 12), Int(rng.next() % 24), Int(rng.next() % 60))
            row(String(format: "f%04d", k), "expense", Money.decimalString(Int64(100 + Int(rng.next() % 9000)), digits: 2), pick(["FJD", "FJD", "FJD", "USD"]),
                at, pick(["Food", "Transport", ""]), -16.9 + u() * 0.2, lon)
        }
        // Local day 2025-03-24, UTC day 03-23: counts in the DST week. Local 03-31, UTC 03-30: does not.
        row("p1", "expense", "11.11", "EUR", "2025-03-24T00:15:00+02:00", "Food", nil, nil)
        row("p2", "expense", "22.22", "EUR", "2025-03-31T00:30:00+03:00", "Food", nil, nil)
        row("p3", "expense", "33.33", "EUR", "2025-03-30T23:50:00+03:00", "Food", nil, nil)
        return out
    }
}
