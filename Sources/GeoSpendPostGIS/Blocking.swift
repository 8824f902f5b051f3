import Dispatch
import Foundation
import Logging
import PostgresNIO

/// Runs async work on `connection` (postgres-nio's calls) from a scope's synchronous body and
/// waits for it: its result, or `connectionLost` as soon as the connection closes
/// (`PostgresConnection.unlessClosed` says why that cannot wait for the statement).
///
/// The seam's bodies are synchronous and run on a thread of the store's own (`offloaded`'s
/// dispatch thread), never on one of Swift's cooperative threads, so blocking that thread while
/// the query runs on the event loop starves nothing. One task per statement, on the
/// connection's event loop (`LoopExecutor`), which sends the scope's `BEGIN` first when it is
/// the scope's first statement (`DeferredBegin`); the close watch settles the same outcome the
/// task does.
func waitFor<T: Sendable>(on connection: PostgresConnection, _ work: @escaping @Sendable () async throws -> T) throws -> T {
    try SentAhead.shared.settle(connection)
    return try started(on: connection, work).wait()
}

/// Starts `work` on `connection` and returns without waiting for it (a COPY of an import's
/// batch: the scope's thread prepares the next batch meanwhile). The connection's next
/// `waitFor`, or the end of its scope, waits for it first and throws its error, so a failure
/// is never lost and nothing of the scope runs after a statement that failed.
func sendAhead(on connection: PostgresConnection, _ work: @escaping @Sendable () async throws -> Void) throws {
    try SentAhead.shared.settle(connection)
    SentAhead.shared.hold(started(on: connection, work), on: connection)
}

/// `waitFor`'s first half: `work` is on its way when this returns, and `wait()` on the result
/// waits for it. `waitFor` and `sendAhead` wait for what was sent ahead before they start
/// anything, so a connection never has two statements of a scope's body on their way at once.
private func started<T: Sendable>(on connection: PostgresConnection, _ work: @escaping @Sendable () async throws -> T) -> FirstOutcome<T> {
    let outcome = FirstOutcome<T>()
    guard !connection.isClosed else {
        outcome.settle(.failure(PostGISError.connectionLost))
        return outcome
    }
    let ticket = CloseWatch.shared.add(connection) { outcome.settle(.failure(PostGISError.connectionLost)) }
    let begin = DeferredBegin.shared.take(connection)
    Task(executorPreference: LoopExecutor(connection.eventLoop)) {
        let result: Result<T, any Error>
        do {
            if let begin { try await connection.run(statements: begin.sql, logger: begin.logger) }
            result = .success(try await work())
        } catch { result = .failure(error) }
        CloseWatch.shared.remove(connection, ticket)
        outcome.settle(result)
    }
    return outcome
}

/// Sends `sql` on `connection` and does not wait for its answer, which is dropped (a lost
/// connection fails the next statement instead). The task is queued on the connection's event
/// loop before this returns, and writes `sql` in its first step; postgres-nio runs a
/// connection's statements in the order they were written, and whatever the connection runs
/// next is written by a later job on that loop, so it runs after `sql`.
func send(_ sql: String, on connection: PostgresConnection, logger: Logger) {
    Task(executorPreference: LoopExecutor(connection.eventLoop)) {
        _ = try? await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }
}

/// What `sendAhead` started on each connection and no one has waited for yet: at most one.
final class SentAhead: @unchecked Sendable {  // state behind `lock`
    static let shared = SentAhead()
    private let lock = NSLock()
    private var waiting: [ObjectIdentifier: FirstOutcome<Void>] = [:]

    fileprivate func hold(_ outcome: FirstOutcome<Void>, on connection: PostgresConnection) {
        lock.withLock { waiting[ObjectIdentifier(connection)] = outcome }
    }

    /// Waits for what was sent ahead on `connection`, if anything, and throws its error.
    func settle(_ connection: PostgresConnection) throws {
        try lock.withLock { waiting.removeValue(forKey: ObjectIdentifier(connection)) }?.wait()
    }
}

/// The first of the results handed to it, for the thread waiting on it.
private final class FirstOutcome<T>: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    func settle(_ result: Result<T, any Error>) {
        let first = lock.withLock {
            guard self.result == nil else { return false }
            self.result = result
            return true
        }
        if first { done.signal() }
    }

    func wait() throws -> T {
        done.wait()
        return try lock.withLock { result! }.mapError { PostGISError.wrap($0) }.get()
    }
}
