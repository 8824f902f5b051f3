import Foundation
import GeoSpend
import Testing

/// `RecurringSchedule` against Foundation's Gregorian calendar, an independent computation:
/// adding k months (or years) to the anchor with `Calendar.date(byAdding:)` also falls to the
/// month's last day where the anchor's day is missing.
@Suite struct RecurringScheduleTests {
    static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    static func day(_ text: String) throws -> LocalDay { try LocalDay(parsing: text) }

    static func oracle(_ anchor: LocalDay, _ component: Calendar.Component, _ k: Int) -> String {
        let start = Date(timeIntervalSince1970: TimeInterval(anchor.dayNumber * 86_400))
        let d = calendar.date(byAdding: component, value: k, to: start)!
        let c = calendar.dateComponents([.year, .month, .day], from: d)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    @Test func theSeedsMonthEndRule() throws {
        let s = RecurringSchedule(every: .monthly, anchor: try Self.day("2025-01-31"))
        #expect((0..<5).map { s.occurrence($0).description } == ["2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30", "2025-05-31"])
        let leap = RecurringSchedule(every: .yearly, anchor: try Self.day("2024-02-29"))
        #expect((0..<5).map { leap.occurrence($0).description } == ["2024-02-29", "2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"])
        let fortnight = RecurringSchedule(every: .days(14), anchor: try Self.day("2025-12-26"))
        #expect(fortnight.occurrence(1).description == "2026-01-09")
    }

    /// Every anchor day of 2023–2025 (a leap year among them), 40 months and 10 years on.
    @Test func monthsAndYearsAgreeWithFoundation() throws {
        let first = try Self.day("2023-01-01")
        for offset in stride(from: Int64(0), to: 3 * 366, by: 1) {
            let anchor = first.adding(days: offset)
            let monthly = RecurringSchedule(every: .monthly, anchor: anchor), yearly = RecurringSchedule(every: .yearly, anchor: anchor)
            for k in 0..<40 { #expect(monthly.occurrence(Int64(k)).description == Self.oracle(anchor, .month, k), "\(anchor) +\(k) months") }
            for k in 0..<10 { #expect(yearly.occurrence(Int64(k)).description == Self.oracle(anchor, .year, k), "\(anchor) +\(k) years") }
        }
    }

    /// `firstIndex(onOrAfter:)` against a scan from occurrence 0.
    @Test func firstIndexAgreesWithAScan() throws {
        var rng = SystemRandomNumberGenerator()
        let base = try Self.day("1990-01-01")
        for every in [RecurringSchedule.Every.days(1), .days(3), .days(29), .weekly, .monthly, .yearly] {
            for _ in 0..<200 {
                let anchor = base.adding(days: Int64.random(in: 0..<15_000, using: &rng))
                let s = RecurringSchedule(every: every, anchor: anchor)
                let target = anchor.adding(days: Int64.random(in: -50..<4_000, using: &rng))
                var k: Int64 = 0
                while s.occurrence(k) < target { k += 1 }
                #expect(s.firstIndex(onOrAfter: target) == k, "\(every) from \(anchor), on or after \(target)")
            }
        }
    }

    @Test func scheduleTexts() throws {
        for (text, shown) in [("daily", "1d"), ("weekly", "weekly"), ("Monthly", "monthly"), ("yearly", "yearly"), ("14d", "14d"), ("14 days", "14d")] {
            #expect(try RecurringSchedule.Every(parsing: text).description == shown)
        }
        for bad in ["", "0d", "fortnightly", "-3d", "99999d", "3.5d", "3661d"] {
            #expect(throws: ValueError.self, "\(bad)") { try RecurringSchedule.Every(parsing: bad) }
        }
    }
}
