import Foundation
import GeoSpend
import GeoSpendTestSupport
import Testing

/// Issue 38, "the seed details": `budgets summary` and `budgets alerts` measure on today when
/// no `--as-of` is given — today in the user's time zone, on the shared clock that honours
/// `SOURCE_DATE_EPOCH` — and a budget's days passed are counted from its start day through the
/// as-of day, both included (docs/DOMAIN.md, "Budgets: days passed"), checked here against an
/// independent count with Foundation's Gregorian calendar.
@Suite(.serialized) struct BudgetAsOfTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-budget-asof-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// 2026-02-25T06:13:20Z: still 24 February in Honolulu (UTC−10).
    static let epoch = "1772000000"

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        environment["SOURCE_DATE_EPOCH"] = Self.epoch
        environment["TZ"] = "UTC"
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    func ok(_ args: [String]) throws -> String {
        let r = try geospend(args)
        #expect(r.status == 0, "\(args): \(r.err)")
        return r.out
    }

    @Test func summaryAndAlertsDefaultToTodayInTheUsersZone() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("b.sqlite").path
        let csv = dir.appendingPathComponent("e.csv").path
        try """
            id,user,amount,currency,occurred_at,category
            e1,ann,90.00,EUR,2026-02-24T10:00:00-10:00,Food
            e2,ann,20.00,EUR,2026-02-25T10:00:00+00:00,Food

            """.write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try ok(["import", "expenses", csv, "--db", db])
        _ = try ok(["budgets", "add", "--user", "ann", "--name", "Food", "--amount", "100", "--currency", "EUR",
                    "--from", "2026-02-01", "--to", "2026-02-28", "--db", db])
        let summary = ["budgets", "summary", "--user", "ann", "--id", "1", "--format", "json", "--db", db]
        let alerts = ["budgets", "alerts", "--user", "ann", "--format", "json", "--db", db]
        // No zone set: the machine's (TZ=UTC here), so 25 February: 110.00 spent, exceeded.
        #expect(try ok(summary) == (try ok(summary + ["--as-of", "2026-02-25"])))
        #expect(try ok(summary) != (try ok(summary + ["--as-of", "2026-02-24"])), "the two days differ")
        #expect(try ok(alerts) == (try ok(alerts + ["--as-of", "2026-02-25"])))
        #expect(try ok(alerts).contains("\"exceeded\""))
        // In Honolulu it is still the 24th: 90.00 spent, a warning.
        _ = try ok(["users", "settings", "--user", "ann", "--timezone", "Pacific/Honolulu", "--db", db])
        #expect(try ok(summary) == (try ok(summary + ["--as-of", "2026-02-24"])))
        #expect(try ok(alerts) == (try ok(alerts + ["--as-of", "2026-02-24"])))
        #expect(try ok(alerts).contains("\"warning\""))
        let table = try ok(["budgets", "summary", "--user", "ann", "--id", "1", "--db", db])
        #expect(table.contains("24 of 28 (4 left)"), "\(table)")
        // A bad --as-of is still a usage error.
        let bad = try geospend(summary + ["--as-of", "yesterday"])
        #expect(bad.status == 2 && bad.err.contains("--as-of"))
    }

    /// The independent count: whole days from the window's start to the as-of day by
    /// Foundation's calendar, plus the start day itself, clamped to the window.
    static func daysPassed(from: String, to: String, asOf: String) -> (passed: Int, total: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let f = DateFormatter()
        f.calendar = calendar
        f.timeZone = calendar.timeZone
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd"
        let (a, b, d) = (f.date(from: from)!, f.date(from: to)!, f.date(from: asOf)!)
        let total = calendar.dateComponents([.day], from: a, to: b).day! + 1
        let since = calendar.dateComponents([.day], from: a, to: d).day! + 1
        return (min(total, max(0, since)), total)
    }

    @Test func daysPassedAreCountedFromTheStartDay() throws {
        let eur = try Currency(code: "EUR")
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<400 {
            let start = LocalDay(dayNumber: Int64.random(in: 19_000...21_000, using: &generator))
            let end = start.adding(days: Int64.random(in: 1...400, using: &generator))
            let asOf = start.adding(days: Int64.random(in: -30...430, using: &generator))
            let spent = Int64.random(in: 0...500_000, using: &generator)
            let budget = Budget(userID: "u", name: "b", amount: Money(minorUnits: 100_000, currency: eur), from: start, to: end)
            let expenses = asOf >= start
                ? [BudgetExpense(amountMinor: spent, currency: "EUR", day: start, category: nil, coordinate: nil)] : []
            let s = BudgetSummary(budget: budget, asOf: asOf, expenses: expenses)
            let (passed, total) = Self.daysPassed(from: start.description, to: end.description, asOf: asOf.description)
            #expect(s.daysPassed == Int64(passed) && s.totalDays == Int64(total), "\(start) … \(end) as of \(asOf)")
            #expect(s.daysRemaining == Int64(total - passed))
            // daily average = spent / max(1, days passed), rounded half away from zero (exact decimals).
            let divisor = Decimal(max(1, passed))
            var average = Decimal(asOf >= start ? spent : 0) / divisor
            var rounded = Decimal()
            NSDecimalRound(&rounded, &average, 0, .plain)
            #expect(s.dailyAverageMinor == NSDecimalNumber(decimal: rounded).int64Value, "\(spent) over \(passed) days")
            checked += 1
        }
        #expect(checked == 400)
        // The first day counts as one day passed (not zero), the last day as all of them.
        let day = try LocalDay(parsing: "2025-03-01")
        let march = Budget(userID: "u", name: "m", amount: Money(minorUnits: 3100, currency: eur), from: day, to: try LocalDay(parsing: "2025-03-31"))
        #expect(BudgetSummary(budget: march, asOf: day, expenses: []).daysPassed == 1)
        #expect(BudgetSummary(budget: march, asOf: try LocalDay(parsing: "2025-03-31"), expenses: []).daysPassed == 31)
        #expect(BudgetSummary(budget: march, asOf: try LocalDay(parsing: "2025-02-28"), expenses: []).daysPassed == 0)
    }
}
