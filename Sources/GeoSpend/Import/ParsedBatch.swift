/// Parsed rows in file order, gathered by the parsing side for one `ExpenseWriter.insert`: the
/// good rows in an array the writer takes as it is, and each row's place among the bad and
/// skipped ones. The writing side copies no row: picking the good rows out of a batch of mixed
/// entries there was 45 % of the write thread's time outside SQLite during a 1M-row import
/// (perf), and the write thread is the one the import waits for.
struct ParsedBatch<Record: Sendable>: Sendable {
    /// The good rows, for the writer.
    private(set) var rows: [HashedRow<Record>] = []
    /// Where each good row came from (a line, a feature), for an error about its outcome.
    private(set) var locations: [String] = []
    /// Every row, in file order.
    private(set) var entries: [Entry] = []

    enum Entry: Sendable {
        /// The next of `rows`.
        case row
        case failure(RowError)
        /// A row a preset leaves out on purpose.
        case skipped
    }

    init(capacity: Int) {
        rows.reserveCapacity(capacity)
        locations.reserveCapacity(capacity)
        entries.reserveCapacity(capacity)
    }

    var count: Int { entries.count }

    mutating func append(_ row: HashedRow<Record>, location: String) {
        rows.append(row)
        locations.append(location)
        entries.append(.row)
    }

    mutating func append(failure: RowError) { entries.append(.failure(failure)) }

    mutating func appendSkipped() { entries.append(.skipped) }
}
