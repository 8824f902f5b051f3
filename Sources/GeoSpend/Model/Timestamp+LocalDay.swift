/// Local calendar days as day numbers: what windows and visit days count in.
extension Timestamp {
    /// 0000-01-01 in days since 1970-01-01: the first day a four-digit year can write.
    static let firstDay = daysFromCivil(year: 0, month: 1, day: 1)

    /// The local calendar day of an instant at an offset, as days since 1970-01-01 (a bare
    /// date's instant is its midnight read as UTC, as `Timestamp(parsing:)` makes it, with no
    /// offset): floor division, so days before 1970 count down.
    static func localDayNumber(epochMilliseconds ms: Int64, utcOffsetMinutes offset: Int?) -> Int64 {
        localDayAndTime(epochMilliseconds: ms, utcOffsetMinutes: offset).day
    }

    /// Days since 1970-01-01 of a `YYYY-MM-DD` text (already validated).
    static func days(of date: String) -> Int64 {
        let parts = date.split(separator: "-").map { Int($0)! }
        return daysFromCivil(year: parts[0], month: parts[1], day: parts[2])
    }

    /// A bare local date from a day count since 1970-01-01.
    init(localDay days: Int64) {
        let (y, m, d) = Timestamp.civilFromDays(days)
        let date = "\(Timestamp.pad(y, 4))-\(Timestamp.pad(m, 2))-\(Timestamp.pad(d, 2))"
        self.init(text: date, epochMilliseconds: days * 86_400_000, utcOffsetMinutes: nil, localDate: date)
    }
}
