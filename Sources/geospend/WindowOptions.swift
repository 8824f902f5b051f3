import ArgumentParser
import GeoSpend

/// `--from`/`--to`, shared by every command with a time window.
struct WindowOptions: ParsableArguments {
    @Option(help: "From this date (a bare date is a local day) or RFC 3339 instant; inclusive.")
    var from: String?
    @Option(help: "To this date (a bare date is a local day, inclusive) or RFC 3339 instant (exclusive).")
    var to: String?

    var isEmpty: Bool { from == nil && to == nil }

    /// - Throws: a usage error when the window can hold nothing: --from later than --to.
    func parsed() throws -> (from: Timestamp?, to: Timestamp?) {
        let window = (from: try Parse.timestamp(from, option: "--from"), to: try Parse.timestamp(to, option: "--to"))
        if let f = window.from, let t = window.to, Self.isEmpty(from: f, to: t) {
            throw ValidationError("--from \(f) is later than --to \(t), so nothing can match: swap them")
        }
        return window
    }

    /// Whether no expense can fall in [from, to] (a bare date is a local day, inclusive; an
    /// instant's --to is exclusive). A bare date's day starts within a day of its UTC midnight
    /// (offsets are less than 24 h), so mixed forms are only refused when no offset could help.
    static func isEmpty(from: Timestamp, to: Timestamp) -> Bool {
        let day: Int64 = 86_400_000
        switch (from.isDateOnly, to.isDateOnly) {
        case (true, true): return from.localDate > to.localDate
        case (false, false): return from.epochMilliseconds >= to.epochMilliseconds
        case (true, false): return to.epochMilliseconds <= from.epochMilliseconds - day
        case (false, true): return from.epochMilliseconds >= to.epochMilliseconds + 2 * day
        }
    }
}
