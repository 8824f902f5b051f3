import Foundation
import PostgresNIO

extension PostgresConnection {
    /// `work` (statements on this connection), or an error as soon as the connection closes.
    ///
    /// postgres-nio 1.33 never answers a statement written to a connection that has already
    /// closed (the channel's write fails, and nothing completes the statement's promise), so
    /// after a server crash the next statement — the ROLLBACK of the failed import, say — waited
    /// forever (PostGISCLITests.serverKilledDuringImportLeavesNoneOrAll). Here the close ends
    /// the wait instead; the abandoned statement's task stays suspended until the process ends.
    func unlessClosed<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !isClosed else { throw PostGISError.connectionLost }
        return try await withCheckedThrowingContinuation { continuation in
            let once = ResumeOnce(continuation)
            let ticket = CloseWatch.shared.add(self) { once.resume(with: .failure(PostGISError.connectionLost)) }
            Task(executorPreference: LoopExecutor(eventLoop)) {
                let result: Result<T, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                CloseWatch.shared.remove(self, ticket)
                once.resume(with: result)
            }
        }
    }
}

/// The statements waiting on each open connection, failed together when it closes: one close
/// callback per connection, not per statement (a pooled connection runs millions of them).
final class CloseWatch: @unchecked Sendable {
    static let shared = CloseWatch()
    private let lock = NSLock()
    private var waiting: [ObjectIdentifier: [Int: @Sendable () -> Void]] = [:]
    private var nextTicket = 0

    /// Registers `onClose`. On a connection closed already, the close callback (registered on a
    /// completed future) runs at once; entries go when their connection closes, so a later
    /// connection at the same address starts afresh.
    func add(_ connection: PostgresConnection, _ onClose: @escaping @Sendable () -> Void) -> Int {
        let key = ObjectIdentifier(connection)
        let (ticket, first): (Int, Bool) = lock.withLock {
            nextTicket += 1
            let first = waiting[key] == nil
            waiting[key, default: [:]][nextTicket] = onClose
            return (nextTicket, first)
        }
        if first {
            connection.closeFuture.whenComplete { [self] _ in
                let pending = lock.withLock { Array((waiting.removeValue(forKey: key) ?? [:]).values) }
                pending.forEach { $0() }
            }
        }
        return ticket
    }

    func remove(_ connection: PostgresConnection, _ ticket: Int) {
        lock.withLock { _ = waiting[ObjectIdentifier(connection)]?.removeValue(forKey: ticket) }
    }
}

/// A continuation resumed by whichever comes first, the statement or the close.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?

    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = continuation }

    func resume(with result: Result<T, any Error>) {
        lock.withLock { defer { continuation = nil }; return continuation }?.resume(with: result)
    }
}
