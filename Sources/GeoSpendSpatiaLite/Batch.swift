import GeoSpend

/// Rows gathered into batches of `ReadBatch.size` for a reader's `body`.
struct Batch<Row> {
    private var rows: [Row] = []

    init() { rows.reserveCapacity(ReadBatch.size) }

    @inline(__always)
    mutating func add(_ row: Row, to body: ([Row]) throws -> Void) throws {
        rows.append(row)
        if rows.count == ReadBatch.size { try flush(to: body) }
    }

    /// Hands over what is gathered (the last, partial batch).
    mutating func flush(to body: ([Row]) throws -> Void) throws {
        guard !rows.isEmpty else { return }
        try body(rows)
        rows.removeAll(keepingCapacity: true)
    }
}
