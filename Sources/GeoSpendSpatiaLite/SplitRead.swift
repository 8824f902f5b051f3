import Foundation
import GRDB

/// A second connection that reads the upper half of a heavy user's rows on the other core, while
/// the store's own connection reads the lower half: SQLite's stepping was over half of insights'
/// time for 100k rows, and one connection can only use one core.
///
/// Both halves must come from one committed state. `sqlite3_snapshot_open` would pin it, but
/// Debian's SQLite is built without it, so the second connection checks instead: `PRAGMA
/// data_version` changes between two of its reads exactly when another connection committed in
/// between. The pin is read before the first connection's transaction starts and checked after
/// the second's has started; if they differ, a commit may lie between the two snapshots and the
/// first connection reads the second half too. A checkpoint in between also counts as a change:
/// that costs speed, never correctness.
///
/// - With a pool, the pin is read just before each read (`pin()`).
/// - With `snapshotReads`, it was read just before the store's snapshot was taken, so after any
///   commit since then every read stays on the snapshot's connection.
final class SplitRead: @unchecked Sendable {
    /// Fewer rowids than this are read on one connection: starting a thread and a transaction
    /// costs more than half of a small read (100k rows take ~60 ms on one connection).
    static let minimumSpan: Int64 = 16_384

    private let path: String
    private let meter: LockWaitMeter
    private let enabled: Bool
    private let lock = NSLock()
    // Guarded by `lock`.
    private var connection: DatabaseQueue?
    private var pinsSnapshot = false
    /// With `snapshotReads`: the version read before the store's snapshot was taken, or nil if
    /// that failed (then reads are not split).
    private var snapshotPin: Int64?

    /// `enabled` false: `pin()` is always nil, so no read is split.
    init(path: String, meter: LockWaitMeter, enabled: Bool = true) {
        self.path = path
        self.meter = meter
        self.enabled = enabled
    }

    /// Reads the pin now, just before the store's snapshot is taken (`snapshotReads`).
    func pinSnapshot() {
        guard enabled else { return }
        let version = try? version()
        lock.withLock {
            pinsSnapshot = true
            snapshotPin = version
        }
    }

    /// The version a read's second half must still see, read now, before the first connection
    /// starts its transaction (with `snapshotReads`, the snapshot's pin); nil: do not split.
    func pin() -> Int64? {
        guard enabled else { return nil }
        let (pinsSnapshot, snapshotPin) = lock.withLock { (self.pinsSnapshot, self.snapshotPin) }
        return pinsSnapshot ? snapshotPin : try? version()
    }

    /// Runs `body` in a read transaction on the second connection if it sees the state `pin` was
    /// read in; nil (and `body` not run) if another connection has committed since.
    func read<T>(ifUnchangedSince pin: Int64, _ body: (Database) throws -> T) throws -> T? {
        try queue().inDatabase { db in
            try db.execute(sql: "BEGIN DEFERRED")
            defer { try? db.execute(sql: "COMMIT") }
            guard try Int64.fetchOne(db, sql: "PRAGMA data_version") == pin else { return nil }
            return try body(db)
        }
    }

    private func version() throws -> Int64 {
        try queue().inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }

    /// Opened on first use, read-only (it never writes), with the store's busy handler and memory map.
    private func queue() throws -> DatabaseQueue {
        try lock.withLock {
            if let connection { return connection }
            var config = Configuration()
            config.readonly = true
            config.label = "geospend-split-read"
            config.prepareDatabase { [meter] db in
                meter.install(on: db)
                try db.execute(sql: "PRAGMA mmap_size = 1073741824")
            }
            let opened = try DatabaseQueue(path: path, configuration: config)
            connection = opened
            return opened
        }
    }

    /// How many rowids the ranges cover.
    static func span(of ranges: [ClosedRange<Int64>]) -> Int64 {
        ranges.reduce(0) { $0 &+ ($1.upperBound &- $1.lowerBound &+ 1) }
    }

    /// The ranges cut in two at the middle rowid: the lower half, then the upper.
    static func halves(of ranges: [ClosedRange<Int64>]) -> (lower: [ClosedRange<Int64>], upper: [ClosedRange<Int64>]) {
        var rest = span(of: ranges) / 2
        var lower: [ClosedRange<Int64>] = []
        for (k, range) in ranges.enumerated() {
            let count = range.upperBound - range.lowerBound + 1
            if count <= rest {
                lower.append(range)
                rest -= count
                continue
            }
            guard rest > 0 else { return (lower, Array(ranges[k...])) }
            let cut = range.lowerBound + rest
            lower.append(range.lowerBound...(cut - 1))
            return (lower, [cut...range.upperBound] + ranges[(k + 1)...])
        }
        return (lower, [])
    }
}
