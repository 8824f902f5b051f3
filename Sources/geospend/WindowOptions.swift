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
        try TimeWindow.parsed(from: from, to: to, options: ("--from", "--to"))
    }
}
