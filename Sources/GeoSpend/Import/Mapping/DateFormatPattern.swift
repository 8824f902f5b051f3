/// A date pattern such as `dd.MM.yyyy` or `MM/dd/yyyy HH:mm`, read strictly: every letter
/// field must be there with its digits, every other character must match itself, and
/// nothing may follow. (Foundation's `DateFormatter` is lenient: it reads `31.02.2025` as
/// 3 March and `1.2.25` under `dd.MM.yyyy` as the year 25.)
///
/// Fields: `yyyy` (4 digits), `yy` (2 digits, 2000–2099), `MM`/`dd`/`HH`/`mm`/`ss` (2 digits),
/// `M`/`d`/`H` (1 or 2 digits). Any other letter is refused, so a typo is not a literal.
///
/// ```swift
/// let p = try DateFormatPattern("dd.MM.yyyy")
/// try p.parse("05.03.2025")  // LocalDateTime(year: 2025, month: 3, day: 5, time: nil)
/// ```
public struct DateFormatPattern: Sendable, Equatable, CustomStringConvertible {
    enum Token: Sendable, Equatable {
        case field(Field, minDigits: Int, maxDigits: Int)
        case literal(Character)
    }
    enum Field: Sendable, Equatable { case year, shortYear, month, day, hour, minute, second }

    public let description: String
    let tokens: [Token]
    /// Whether the pattern has a time of day (`HH`, `H`).
    public var hasTime: Bool { tokens.contains { if case .field(.hour, _, _) = $0 { return true } else { return false } } }

    /// - Throws: `ValueError.invalidValue` for an unknown letter or a pattern without year, month and day.
    public init(_ pattern: String) throws(ValueError) {
        var tokens: [Token] = []
        let chars = Array(pattern)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            var run = 1
            while i + run < chars.count && chars[i + run] == c { run += 1 }
            guard c.isLetter else {
                tokens.append(.literal(c))
                i += 1
                continue
            }
            let token: Token
            switch (c, run) {
            case ("y", 4): token = .field(.year, minDigits: 4, maxDigits: 4)
            case ("y", 2): token = .field(.shortYear, minDigits: 2, maxDigits: 2)
            case ("M", 2): token = .field(.month, minDigits: 2, maxDigits: 2)
            case ("M", 1): token = .field(.month, minDigits: 1, maxDigits: 2)
            case ("d", 2): token = .field(.day, minDigits: 2, maxDigits: 2)
            case ("d", 1): token = .field(.day, minDigits: 1, maxDigits: 2)
            case ("H", 2): token = .field(.hour, minDigits: 2, maxDigits: 2)
            case ("H", 1): token = .field(.hour, minDigits: 1, maxDigits: 2)
            case ("m", 2): token = .field(.minute, minDigits: 2, maxDigits: 2)
            case ("s", 2): token = .field(.second, minDigits: 2, maxDigits: 2)
            default:
                throw .invalidValue(
                    pattern,
                    reason: "has \"\(String(repeating: c, count: run))\", which is not a field; use yyyy, yy, MM, M, dd, d, HH, H, mm, ss (e.g. dd.MM.yyyy)")
            }
            tokens.append(token)
            i += run
        }
        func has(_ f: Field...) -> Bool { tokens.contains { if case .field(let g, _, _) = $0 { return f.contains(g) } else { return false } } }
        guard has(.year, .shortYear), has(.month), has(.day) else {
            throw .invalidValue(pattern, reason: "needs a year (yyyy or yy), a month (MM) and a day (dd)")
        }
        if has(.minute) || has(.second), !has(.hour) {
            throw .invalidValue(pattern, reason: "has minutes or seconds but no hour (HH)")
        }
        self.tokens = tokens
        self.description = pattern
    }

    /// A calendar date with an optional time of day, no zone.
    public struct LocalDateTime: Sendable, Equatable {
        public var year: Int, month: Int, day: Int
        public var time: (hour: Int, minute: Int, second: Int)?

        public static func == (a: Self, b: Self) -> Bool {
            (a.year, a.month, a.day) == (b.year, b.month, b.day) && a.time?.hour == b.time?.hour
                && a.time?.minute == b.time?.minute && a.time?.second == b.time?.second
        }

        /// `2025-03-05` or `2025-03-05T08:15:00` (no offset).
        var text: String {
            let date = "\(Timestamp.pad(year, 4))-\(Timestamp.pad(month, 2))-\(Timestamp.pad(day, 2))"
            guard let t = time else { return date }
            return date + "T\(Timestamp.pad(t.hour, 2)):\(Timestamp.pad(t.minute, 2)):\(Timestamp.pad(t.second, 2))"
        }
    }

    /// - Throws: `ValueError.invalidDate` naming the pattern when `text` does not match it or is no date.
    public func parse(_ text: String) throws(ValueError) -> LocalDateTime {
        let chars = Array(text.trimmingSpaces())
        func fail() -> ValueError { .invalidDate(text, reason: "does not match the date format \(description)") }
        var values: [Field: Int] = [:]
        var i = 0
        for token in tokens {
            switch token {
            case .literal(let c):
                guard i < chars.count, chars[i] == c else { throw fail() }
                i += 1
            case .field(let field, let minDigits, let maxDigits):
                var n = 0, v = 0
                while n < maxDigits, i < chars.count, let d = chars[i].wholeNumberValue, chars[i].isASCII {
                    v = v * 10 + d
                    n += 1
                    i += 1
                }
                guard n >= minDigits else { throw fail() }
                values[field] = v
            }
        }
        guard i == chars.count else { throw fail() }
        let year = values[.year] ?? (2000 + (values[.shortYear] ?? 0))
        let month = values[.month]!, day = values[.day]!
        guard (1...12).contains(month) else { throw .invalidDate(text, reason: "has month \(month); months are 1–12 (format \(description))") }
        guard (1...Timestamp.daysIn(month: month, year: year)).contains(day) else {
            throw .invalidDate(text, reason: "has day \(day), which \(Timestamp.pad(year, 4))-\(Timestamp.pad(month, 2)) does not have (format \(description))")
        }
        var result = LocalDateTime(year: year, month: month, day: day, time: nil)
        if let hour = values[.hour] {
            let minute = values[.minute] ?? 0, second = values[.second] ?? 0
            guard hour < 24, minute < 60, second < 60 else { throw .invalidDate(text, reason: "has a time of day out of range") }
            result.time = (hour, minute, second)
        }
        return result
    }
}
