import GeoSpend
import Testing

/// `BudgetThresholds`: what `--thresholds` and the HTTP `thresholds` accept, and how a budget's
/// thresholds decide its events (`BudgetThresholdEvents`): each reached one, no other.
@Suite struct BudgetThresholdsTests {
    @Test(arguments: [
        ("80,100", [80, 100] as [Int64]), ("100,50,80,80", [50, 80, 100]), (" 1 , 1000 ", [1, 1000]), ("150", [150]),
    ])
    func parses(text: String, expected: [Int64]) throws {
        #expect(try BudgetThresholds.parse(text, option: "--thresholds") == expected)
        #expect(BudgetThresholds.stored(BudgetThresholds.text(expected)) == expected)
    }

    @Test(arguments: ["", "0", "1001", "80,", "80;100", "8e1", "+80", "-1", "٨٠", "99999999999", "1,2,3,4,5,6,7,8,9,10,11"])
    func refuses(text: String) {
        #expect(throws: UsageError.self) { try BudgetThresholds.parse(text, option: "--thresholds") }
    }

    @Test func eventsFollowTheBudgetsThresholds() throws {
        let eur = try Currency(code: "EUR")
        let day = try LocalDay(parsing: "2026-03-05")
        let budget = Budget(
            id: 7, userID: "ann", name: "Food", amount: Money(minorUnits: 10_000, currency: eur), from: try LocalDay(parsing: "2026-03-01"),
            to: try LocalDay(parsing: "2026-03-31"), thresholds: [30, 60, 90])
        let spent = [BudgetExpense(amountMinor: 6_500, currency: "EUR", day: day, category: nil, coordinate: nil)]
        let events = BudgetThresholdEvents.events(budgets: [budget], days: [day]) { _ in spent }
        #expect(events.map(\.key) == ["budget:7:2026-03-01:30", "budget:7:2026-03-01:60"])
        #expect(events.allSatisfy { $0.payload.contains(#""level":"warning""#) })
    }
}
