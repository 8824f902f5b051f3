import Foundation
import GeoSpend
import GRDB
import GRDBSQLite

/// Read-only connections for `SpatiaLiteStore.quickRead`, each used on the thread that asks: a
/// small read (the service's `near` and `nearest-stores`) runs where its request runs, without
/// GRDB's hand-off to a reader queue and back. At 1M expenses, near with 50 m at 8 connections
/// went from 5,592 / 5,349 to 6,643 / 7,003 requests per second (old and new alternating;
/// Benchmarks/RESULTS.md, session 16).
///
/// Two rules keep the threads that ask (the async runtime's few) from waiting:
/// - a connection is taken without waiting: none free, the caller reads through `read` instead.
///   (Waiting for the pool's readers could deadlock: an async read gives its reader back only
///   once its task runs again, on one of those very threads.)
/// - a read gets a budget of SQLite steps (`StepBudget`); past it, it stops, and the caller
///   starts it again through `read`, so a large answer does not hold an async thread for long.
final class QuickReaders: @unchecked Sendable {
    private let open: () throws -> DatabaseQueue
    private let lock = NSLock()
    private var free: [DatabaseQueue] = []
    private var opened = 0
    private var budget = StepBudget.defaultSteps
    /// The budget of SQLite steps per read (tests set a small one).
    var steps: Int {
        get { lock.withLock { budget } }
        set { lock.withLock { budget = newValue } }
    }
    /// Connections opened at most: one per async thread and one more (a test's main thread).
    let limit = ProcessInfo.processInfo.activeProcessorCount + 1

    init(open: @escaping () throws -> DatabaseQueue) { self.open = open }

    /// Runs `body` on a free connection, in one read transaction, on this thread, within the
    /// budget of steps; nil when no connection is free. Connections open when first needed.
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        let steps = self.steps
        guard let connection = try take() else { return nil }
        defer { lock.withLock { free.append(connection) } }
        return try connection.read { db in try StepBudget.run(db, steps: steps) { try body(db) } }
    }

    private func take() throws -> DatabaseQueue? {
        let (connection, mayOpen): (DatabaseQueue?, Bool) = lock.withLock {
            if let connection = free.popLast() { return (connection, false) }
            guard opened < limit else { return (nil, false) }
            opened += 1
            return (nil, true)
        }
        if let connection { return connection }
        guard mayOpen else { return nil }
        do { return try open() } catch {
            lock.withLock { opened -= 1 }
            throw error
        }
    }
}

/// A limit on the SQLite work of one read: SQLite calls a progress handler every 1,000 virtual
/// machine steps, and past `steps` the handler interrupts the statement. The read then throws
/// `Exceeded` (not SQLite's interrupt error), for its caller to run it another way.
enum StepBudget {
    struct Exceeded: Error {}

    /// Room for the largest 500 m answers of the service bench's radius query (1M expenses, 200
    /// random points, Python's sqlite3 counting every step): 50 m, median 980 steps (2 rows),
    /// largest 19,129 (402 rows); 500 m, median 75,542 (1,744 rows), largest 178,997 (4,260 rows).
    static let defaultSteps = 200_000

    static func run<T>(_ db: Database, steps: Int, _ body: () throws -> T) throws -> T {
        let left = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        left.initialize(to: steps / 1000)
        defer {
            sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil)
            left.deallocate()
        }
        sqlite3_progress_handler(db.sqliteConnection, 1000, { context in
            let left = context!.assumingMemoryBound(to: Int.self)
            left.pointee -= 1
            return left.pointee < 0 ? 1 : 0
        }, left)
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT && left.pointee < 0 {
            throw Exceeded()
        }
    }
}
