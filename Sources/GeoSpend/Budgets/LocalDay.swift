import Foundation

/// A calendar day where the spending happened (`YYYY-MM-DD`), as budgets count them: an
/// expense's day is the local date of its recorded offset (the store's `local_date`), never
/// the UTC date, so a purchase at 00:30 in Helsinki is on the Helsinki day.
public struct LocalDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01 (proleptic Gregorian).
    public let dayNumber: Int64

    public init(dayNumber: Int64) { self.dayNumber = dayNumber }

    /// Parses a bare date `2025-03-01`. - Throws: `ValueError.invalidDate` for anything else.
    public init(parsing text: String) throws(ValueError) {
        let t = try Timestamp(parsing: text)
        guard t.isDateOnly else {
            throw .invalidDate(text, reason: "is a date-time; budgets take days like 2025-03-01")
        }
        dayNumber = Timestamp.days(of: t.localDate)
    }

    public var civil: (year: Int, month: Int, day: Int) { Timestamp.civilFromDays(dayNumber) }

    /// `YYYY-MM-DD`.
    public var description: String { Timestamp(localDay: dayNumber).localDate }

    /// 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday).
    public var weekdayFromMonday: Int { Int(((dayNumber + 3) % 7 + 7) % 7) }

    /// Today in `zone` (`ReproducibleClock`: now, or `$SOURCE_DATE_EPOCH` when set).
    public static func today(in zone: TimeZone) -> LocalDay { day(of: ReproducibleClock.now(), in: zone) }

    /// The day `instant` falls on in `zone`.
    public static func day(of instant: Date, in zone: TimeZone) -> LocalDay {
        let seconds = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(zone.secondsFromGMT(for: instant))
        return LocalDay(dayNumber: seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    }

    public func adding(days: Int64) -> LocalDay { LocalDay(dayNumber: dayNumber + days) }

    public static func < (a: LocalDay, b: LocalDay) -> Bool { a.dayNumber < b.dayNumber }
}
