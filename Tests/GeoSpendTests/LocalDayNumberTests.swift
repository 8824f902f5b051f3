import Foundation
import Testing

@testable import GeoSpend

/// `SpendingPoint.localDayNumber` (arithmetic on the instant and offset) names the same day as
/// the recorded `localDate` text, which insights count visit days by.
@Suite struct LocalDayNumberTests {
    static func point(_ t: Timestamp) -> SpendingPoint {
        SpendingPoint(
            id: "e", userID: "u", storeID: nil, coordinate: nil, kind: .expense, amountMinor: 1,
            currency: try! Currency(code: "EUR"), occurredMilliseconds: t.epochMilliseconds,
            utcOffsetMinutes: t.utcOffsetMinutes, category: nil)
    }

    /// Instants a second either side of local midnight, at every offset in use (−12:00 to +14:00,
    /// half and quarter hours), before and after 1970, parsed from text as an import would.
    @Test func agreesWithTheLocalDateAtMidnights() throws {
        var rng = SplitMix64(seed: 7)
        let offsets = [-720, -570, -180, -1, 0, 1, 330, 345, 525, 765, 840]
        for _ in 0..<2_000 {
            let day = Int64.random(in: -40_000...60_000, using: &rng)  // 1860 to 2134
            let offset = offsets.randomElement(using: &rng)!
            for second in [-1, 0, 1, 43_200, 86_399] as [Int64] {
                let localSeconds = day * 86_400 + second
                let text = Timestamp(epochSeconds: localSeconds - Int64(offset) * 60, utcOffsetMinutes: offset).text
                let t = try Timestamp(parsing: text)
                #expect(Self.point(t).localDayNumber == Timestamp.days(of: t.localDate), "\(text)")
                #expect(Self.point(t).localDate == t.localDate, "\(text)")
            }
        }
    }

    /// The one local-day formula (`Timestamp.localDayAndTime`) and everything built on it — the
    /// day number, the weekday and hour of store reports, RFC 3339 text of exports — against an
    /// outside oracle: Foundation's Gregorian `Calendar` at a fixed-offset time zone. Instants
    /// are whole milliseconds, many a few milliseconds before a local hour before 1970, where
    /// dividing seconds that were truncated toward zero used to give the next hour.
    @Test func agreesWithFoundationsCalendar() throws {
        var rng = SplitMix64(seed: 16)
        let offsets = [-720, -570, -180, -1, 0, 1, 330, 345, 525, 765, 840]
        var instants: [(ms: Int64, offset: Int)] = []
        for _ in 0..<3_000 {
            // 1601 to 2399: Foundation's Gregorian calendar is Julian before October 1582.
            let offset = offsets.randomElement(using: &rng)!
            let localHour = Int64.random(in: (-134_000 * 24)...(156_000 * 24), using: &rng)
            let before = [1, 500, 999, 0, Int64.random(in: 0..<3_600_000, using: &rng)].randomElement(using: &rng)!
            instants.append((localHour * 3_600_000 - before - Int64(offset) * 60_000, offset))
        }
        var calendar = Calendar(identifier: .gregorian)
        for (ms, offset) in instants {
            calendar.timeZone = TimeZone(secondsFromGMT: offset * 60)!
            // Whole seconds plus whole milliseconds: no rounding in the Double across the second.
            let date = Date(timeIntervalSince1970: Double(ms.floorDiv(1000)) + Double(ms.floorMod(1000)) / 1000)
            let c = calendar.dateComponents([.year, .month, .day, .hour, .weekday], from: date)
            let (day, millisecond) = Timestamp.localDayAndTime(epochMilliseconds: ms, utcOffsetMinutes: offset)
            let civil = Timestamp.civilFromDays(day)
            let expectedDay: [Int] = [c.year!, c.month!, c.day!]
            #expect([civil.year, civil.month, civil.day] == expectedDay, "\(ms) at \(offset)")
            #expect(Int(millisecond / 3_600_000) == c.hour!, "\(ms) at \(offset)")
            let point = SpendingPoint(
                id: "e", userID: "u", storeID: nil, coordinate: nil, kind: .expense, amountMinor: 1,
                currency: try Currency(code: "EUR"), occurredMilliseconds: ms, utcOffsetMinutes: offset, category: nil)
            let wh = try #require(point.localWeekdayHour)
            // Calendar's weekday is 1 = Sunday … 7 = Saturday; the point's 0 = Monday … 6 = Sunday.
            let weekday: Int = (c.weekday! + 5) % 7
            #expect(wh.weekday == weekday && wh.hour == c.hour!, "\(ms) at \(offset)")
            #expect(point.localDayNumber == day)
            let text = Timestamp.rfc3339(epochMilliseconds: ms, utcOffsetMinutes: offset)
            let expected = String(format: "%04d-%02d-%02dT%02d", c.year!, c.month!, c.day!, c.hour!)
            #expect(text.hasPrefix(expected), "\(text) for \(ms) at \(offset)")
        }
    }

    @Test func agreesWithBareDates() throws {
        for text in ["1969-12-31", "1970-01-01", "2024-02-29", "2025-12-31", "1900-03-01"] {
            let t = try Timestamp(parsing: text)
            #expect(Self.point(t).localDayNumber == Timestamp.days(of: text), "\(text)")
            #expect(Self.point(t).localDate == text)
        }
    }
}


extension Int64 {
    fileprivate func floorDiv(_ d: Int64) -> Int64 { self >= 0 ? self / d : (self - d + 1) / d }
    fileprivate func floorMod(_ d: Int64) -> Int64 { self - floorDiv(d) * d }
}
