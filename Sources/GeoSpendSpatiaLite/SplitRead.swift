import Foundation
import GeoSpend
import GRDB

/// A second connection that reads the upper half of a heavy user's rowid ranges on the other
/// core while the store's own connection reads the lower half: stepping SQLite was most of
/// insights' time for 100k rows, and one connection uses one core.
///
/// Both halves must come from one committed state. `sqlite3_snapshot_open` would pin it, but
/// Debian's SQLite is built without it, so the second connection checks instead: `PRAGMA
/// data_version` differs between two of its reads exactly when the WAL header changed in between,
/// which every commit by another connection does (so does a WAL restart: that costs speed, never
/// correctness). The order that makes this sound, and that callers must keep:
///
/// 1. `pin()` reads the version on the second connection;
/// 2. the first connection's transaction reads (a deferred transaction's state is fixed by its
///    first read, not by BEGIN) — the rowid ranges to split come from this read;
/// 3. only then `start` runs the second connection, which begins its transaction and compares.
///
/// If the versions differ, a commit may lie between the two states; the second connection
/// declines and the first reads both halves. With `snapshotReads`, step 1 happened just before
/// the store's snapshot was taken (`pinSnapshot()`), so after any commit since, every read stays
/// on the snapshot's connection.
final class SplitRead: @unchecked Sendable {
    /// What became of a second half: read there, declined (a commit since the pin), or failed
    /// (the first connection read it instead).
    enum Outcome: Hashable { case split, declined, failed }

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
    private var minimum: Int64 = 16_384
    private var counts: [Outcome: Int] = [:]
    private var hook: (@Sendable () -> Void)?

    /// `enabled` false: `pin()` is always nil, so no read is split.
    init(path: String, meter: LockWaitMeter, enabled: Bool = true) {
        self.path = path
        self.meter = meter
        self.enabled = enabled
    }

    /// Ranges spanning fewer rowids than this are read on one connection: a thread and a second
    /// transaction cost more than they save on a small read (100k rows take ~60 ms on one). On
    /// the table-scan path the span is the whole table's. Tests lower it.
    var minimumSpan: Int64 {
        get { lock.withLock { minimum } }
        set { lock.withLock { minimum = newValue } }
    }

    /// How many second halves ended each way (tests check that a read was split).
    var outcomes: [Outcome: Int] { lock.withLock { counts } }

    /// Runs on the second half's thread just before it begins its transaction (tests commit a
    /// change there).
    var beforeSecondHalf: (@Sendable () -> Void)? {
        get { lock.withLock { hook } }
        set { lock.withLock { hook = newValue } }
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

    /// Step 1: the version the second half must still see, read now, before the first
    /// connection's transaction reads (with `snapshotReads`, the snapshot's pin); nil: no split.
    func pin() -> Int64? {
        guard enabled else { return nil }
        let (pinsSnapshot, snapshotPin) = lock.withLock { (self.pinsSnapshot, self.snapshotPin) }
        return pinsSnapshot ? snapshotPin : try? version()
    }

    /// The ranges cut in two if they span enough rowids to be worth it; nil otherwise.
    func halves(ofLarge ranges: [ClosedRange<Int64>]) -> (lower: [ClosedRange<Int64>], upper: [ClosedRange<Int64>])? {
        guard let span = Self.span(of: ranges), span >= minimumSpan, span >= 2 else { return nil }
        return Self.halves(of: ranges)
    }

    /// Step 3: runs `body` on the second connection on another thread, if it sees the pinned
    /// state; `collect` waits for it.
    func start<T: Sendable>(ifUnchangedSince pin: Int64, _ body: @escaping @Sendable (Database) throws -> T) -> BackgroundWork<T?> {
        BackgroundWork { [self] in
            beforeSecondHalf?()
            return try read(ifUnchangedSince: pin, body)
        }
    }

    /// The second half, or nil when it was declined or failed: then the caller reads it.
    func collect<T>(_ work: BackgroundWork<T?>) -> T? {
        let outcome: Outcome, value: T?
        do {
            value = try work.value()
            outcome = value == nil ? .declined : .split
        } catch {
            (value, outcome) = (nil, .failed)
        }
        lock.withLock { counts[outcome, default: 0] += 1 }
        return value
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

    /// How many rowids the ranges cover; nil if that overflows 64 bits.
    static func span(of ranges: [ClosedRange<Int64>]) -> Int64? {
        var total: Int64 = 0
        for range in ranges {
            let (width, o1) = range.upperBound.subtractingReportingOverflow(range.lowerBound)
            let (count, o2) = width.addingReportingOverflow(1)
            let (sum, o3) = total.addingReportingOverflow(count)
            guard !o1, !o2, !o3 else { return nil }
            total = sum
        }
        return total
    }

    /// The ranges cut in two at the middle rowid: the lower half, then the upper. Their span
    /// must fit in 64 bits (`span(of:)`).
    static func halves(of ranges: [ClosedRange<Int64>]) -> (lower: [ClosedRange<Int64>], upper: [ClosedRange<Int64>]) {
        var rest = (span(of: ranges) ?? 0) / 2
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
