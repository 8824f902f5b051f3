import Foundation

/// How `offloaded` stops the work of a caller that was cancelled (its client left, its time is
/// up), not only stops waiting for it: the work's thread carries the interruption
/// (`WorkInterruption.current`), a database read registers how to stop its statement
/// (SQLite's `sqlite3_interrupt` on its connection) for as long as it runs, and the
/// cancellation calls it. Before, a `snap` whose client had gone kept a core busy for 70 s
/// (issue 35, item 7).
///
/// ```swift
/// try WorkInterruption.current?.whileRunning(stop: { sqlite3_interrupt(connection) }) {
///     try statement.execute()
/// }
/// ```
package final class WorkInterruption: @unchecked Sendable {  // state behind `lock`
    private let lock = NSLock()
    private var cancelled = false
    private var stop: (() -> Void)?

    package init() {}

    private static let key = "geospend.work-interruption"

    /// The interruption of the work running on this thread (set by `offloaded`), or nil.
    package static var current: WorkInterruption? {
        Thread.current.threadDictionary[key] as? WorkInterruption
    }

    /// Runs `body` with this interruption as the thread's `current`.
    func installed<T>(_ body: () -> T) -> T {
        Thread.current.threadDictionary[Self.key] = self
        defer { Thread.current.threadDictionary[Self.key] = nil }
        return body()
    }

    package var isCancelled: Bool { lock.withLock { cancelled } }

    /// Cancels: runs the registered `stop`, if any, under the lock, so it never reaches a
    /// connection `whileRunning` has already given back.
    func cancel() {
        lock.withLock {
            cancelled = true
            stop?()
        }
    }

    /// Runs `body` with `stop` registered; throws `CancellationError` instead when cancelled
    /// before, or when `body` failed because it was stopped.
    package func whileRunning<T>(stop: @escaping () -> Void, _ body: () throws -> T) throws -> T {
        try lock.withLock {
            if cancelled { throw CancellationError() }
            self.stop = stop
        }
        defer { lock.withLock { self.stop = nil } }
        do {
            return try body()
        } catch {
            if isCancelled { throw CancellationError() }
            throw error
        }
    }
}
