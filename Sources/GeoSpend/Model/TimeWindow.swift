/// A query's `from`/`to` window as typed (`--from`/`--to` on the command line, `from`/`to` in a
/// request), parsed and checked the same way for both.
public enum TimeWindow {
    /// - Throws: `UsageError` naming the option when a bound is no date or instant, or when the
    ///   window can hold nothing (from later than to).
    public static func parsed(from: String?, to: String?, options: (from: String, to: String)) throws -> (from: Timestamp?, to: Timestamp?) {
        let window = (from: try timestamp(from, option: options.from), to: try timestamp(to, option: options.to))
        if let f = window.from, let t = window.to, isEmpty(from: f, to: t) {
            throw UsageError("\(options.from) \(f) is later than \(options.to) \(t), so nothing can match: swap them")
        }
        return window
    }

    static func timestamp(_ text: String?, option: String) throws -> Timestamp? {
        guard let text else { return nil }
        do { return try Timestamp(parsing: text) } catch { throw UsageError("\(option): \(error)") }
    }

    /// Whether no expense can fall in [from, to] (a bare date is a local day, inclusive; an
    /// instant's --to is exclusive). A bare date's day starts within a day of its UTC midnight
    /// (offsets are less than 24 h), so mixed forms are only refused when no offset could help.
    public static func isEmpty(from: Timestamp, to: Timestamp) -> Bool {
        let day: Int64 = 86_400_000
        switch (from.isDateOnly, to.isDateOnly) {
        case (true, true): return from.localDate > to.localDate
        case (false, false): return from.epochMilliseconds >= to.epochMilliseconds
        case (false, true): return from.epochMilliseconds >= to.epochMilliseconds + 2 * day
        case (true, false): return to.epochMilliseconds <= from.epochMilliseconds - day
        }
    }
}
