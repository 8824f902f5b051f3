/// When an expense happened: an instant plus the UTC offset it was recorded with, or a bare
/// local calendar date.
///
/// Parsed from RFC 3339 (`2026-03-05T08:15:00+02:00`, `…Z`, fractions of a second allowed) or a
/// bare date (`2026-03-05`, a local calendar date with no time and no offset). A date-time
/// without an offset is rejected: guessing the zone would move expenses across days.
///
/// ```swift
/// let t = try Timestamp(parsing: "2026-03-05T23:30:00-05:00")
/// t.localDate         // "2026-03-05" (the day where it happened)
/// t.epochMilliseconds // 1772771400000 (2026-03-06T04:30:00Z)
/// ```
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The text in canonical form: `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` or `YYYY-MM-DD`.
    public let text: String
    /// Milliseconds since 1970-01-01T00:00:00Z (for a bare date: its midnight, read as UTC).
    public let epochMilliseconds: Int64
    /// The recorded offset from UTC in minutes; `nil` for a bare date.
    public let utcOffsetMinutes: Int?
    /// The local calendar day, `YYYY-MM-DD`, in the recorded offset.
    public let localDate: String

    public var description: String { text }
    public var isDateOnly: Bool { utcOffsetMinutes == nil }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.epochMilliseconds, lhs.text) < (rhs.epochMilliseconds, rhs.text)
    }

    /// Rebuilds a stored timestamp without parsing (the store keeps all four parts).
    public init(text: String, epochMilliseconds: Int64, utcOffsetMinutes: Int?, localDate: String) {
        self.text = text
        self.epochMilliseconds = epochMilliseconds
        self.utcOffsetMinutes = utcOffsetMinutes
        self.localDate = localDate
    }

    /// Parses RFC 3339 with an offset, or a bare date. - Throws: `ValueError.invalidDate`.
    public init(parsing input: String) throws(ValueError) {
        // The bytes in place, no array; and input already in canonical form (what GeoSpend and
        // most exporters write) is kept as the text instead of being rebuilt piece by piece:
        // parsing went from 9,400 to ~1,000 instructions a row.
        var bytes = input
        let parts: Parts
        switch bytes.withUTF8({ Timestamp.parts(of: $0) }) {
        case .success(let p): parts = p
        case .failure(let e): throw .invalidDate(input, reason: e.reason)
        }
        self.epochMilliseconds = parts.epochMilliseconds
        self.utcOffsetMinutes = parts.offset
        if parts.isCanonical {
            self.text = input
            self.localDate = parts.offset == nil ? input : String(input.utf8.prefix(10))!
            return
        }
        let date = "\(Timestamp.pad(parts.year, 4))-\(Timestamp.pad(parts.month, 2))-\(Timestamp.pad(parts.day, 2))"
        self.localDate = date
        guard let offset = parts.offset else {
            self.text = date
            return
        }
        var text = "\(date)T\(Timestamp.pad(parts.hour, 2)):\(Timestamp.pad(parts.minute, 2)):\(Timestamp.pad(parts.second, 2))"
        if !parts.fraction.isEmpty { text += "." + parts.fraction }
        text += Timestamp.offsetText(offset)
        self.text = text
    }

    /// What `init(parsing:)` reads from the bytes.
    private struct Parts {
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
        /// The digits after the decimal point, as written; empty without a fraction.
        var fraction = ""
        /// nil for a bare date.
        var offset: Int?
        var epochMilliseconds: Int64 = 0
        /// Whether the bytes are already the canonical text (`T`, `Z` for a zero offset).
        var isCanonical = false
    }

    private struct Refusal: Error { let reason: String }

    private static func parts(of b: UnsafeBufferPointer<UInt8>) -> Result<Parts, Refusal> {
        func digits(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var v = 0
            for i in start..<(start + count) {
                let c = b[i]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        func fail(_ reason: String) -> Result<Parts, Refusal> { .failure(Refusal(reason: reason)) }
        let expected = "is not an RFC 3339 date-time like 2026-03-05T08:15:00+02:00 or a date like 2026-03-05"
        var p = Parts()
        guard b.count >= 10, let year = digits(0, 4), b[4] == UInt8(ascii: "-"), let month = digits(5, 2),
            b[7] == UInt8(ascii: "-"), let day = digits(8, 2)
        else { return fail(expected) }
        guard (1...12).contains(month) else { return fail("has month \(month); months are 01–12") }
        guard (1...Timestamp.daysIn(month: month, year: year)).contains(day) else {
            return fail("has day \(day), which \(year)-\(Timestamp.pad(month, 2)) does not have")
        }
        (p.year, p.month, p.day) = (year, month, day)
        let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
        if b.count == 10 {
            p.epochMilliseconds = days * 86_400_000
            p.isCanonical = true
            return .success(p)
        }
        guard b.count >= 19, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
            let hour = digits(11, 2), b[13] == UInt8(ascii: ":"), let minute = digits(14, 2),
            b[16] == UInt8(ascii: ":"), let second = digits(17, 2)
        else { return fail(expected) }
        guard hour < 24, minute < 60, second < 60 else { return fail("has a time of day out of range") }
        (p.hour, p.minute, p.second) = (hour, minute, second)
        var i = 19
        var millis = 0
        if i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count && b[i] >= 48 && b[i] <= 57 { i += 1 }
            guard i > start, i - start <= 9 else { return fail("has a fraction of a second that is empty or longer than 9 digits") }
            p.fraction = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
            for k in 0..<3 { millis = millis * 10 + (start + k < i ? Int(b[start + k] - 48) : 0) }
        }
        guard i < b.count else {
            return fail("has no UTC offset; write Z or ±hh:mm (e.g. 2026-03-05T08:15:00+02:00), or give a bare date")
        }
        var offset = 0
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            guard i + 1 == b.count else { return fail(expected) }
            p.isCanonical = b[i] == UInt8(ascii: "Z")
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            guard i + 6 == b.count, let oh = digits(i + 1, 2), b[i + 3] == UInt8(ascii: ":"),
                let om = digits(i + 4, 2)
            else { return fail("has a malformed UTC offset; write ±hh:mm") }
            guard oh <= 23, om <= 59 else { return fail("has a UTC offset out of range") }
            offset = (oh * 60 + om) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            p.isCanonical = offset != 0  // a zero offset is written Z
        } else {
            return fail("has no UTC offset; write Z or ±hh:mm (e.g. 2026-03-05T08:15:00+02:00), or give a bare date")
        }
        p.isCanonical = p.isCanonical && b[10] == UInt8(ascii: "T")
        let localSeconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        p.epochMilliseconds = (localSeconds - Int64(offset) * 60) * 1000 + Int64(millis)
        p.offset = offset
        return .success(p)
    }

    static func offsetText(_ minutes: Int) -> String {
        if minutes == 0 { return "Z" }
        let sign = minutes < 0 ? "-" : "+"
        let m = abs(minutes)
        return "\(sign)\(pad(m / 60, 2)):\(pad(m % 60, 2))"
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
    static func civilFromDays(_ z0: Int64) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }

    /// The local calendar day of an instant at an offset, as days since 1970-01-01, and the
    /// milliseconds into that day. A nil offset reads the instant as UTC (a bare date's instant
    /// is its midnight read as UTC). Floor division, so instants before 1970 count down: the one
    /// place this formula lives (docs/DOMAIN.md § Timestamps and local days).
    static func localDayAndTime(epochMilliseconds ms: Int64, utcOffsetMinutes offset: Int?) -> (day: Int64, millisecond: Int64) {
        let local = ms + Int64(offset ?? 0) * 60_000
        let day = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
        return (day, local - day * 86_400_000)
    }

    /// An RFC 3339 timestamp for an instant shown at a given offset (used by the generator).
    public init(epochSeconds: Int64, utcOffsetMinutes offset: Int) {
        let (days, millisecond) = Timestamp.localDayAndTime(epochMilliseconds: epochSeconds * 1000, utcOffsetMinutes: offset)
        let secs = Int(millisecond / 1000)
        let (y, m, d) = Timestamp.civilFromDays(days)
        let date = "\(Timestamp.pad(y, 4))-\(Timestamp.pad(m, 2))-\(Timestamp.pad(d, 2))"
        self.text = "\(date)T\(Timestamp.pad(secs / 3600, 2)):\(Timestamp.pad(secs / 60 % 60, 2)):\(Timestamp.pad(secs % 60, 2))"
            + Timestamp.offsetText(offset)
        self.epochMilliseconds = epochSeconds * 1000
        self.utcOffsetMinutes = offset
        self.localDate = date
    }
}
