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
            closeFuture.whenComplete { _ in once.resume(with: .failure(PostGISError.connectionLost)) }
            Task {
                do { once.resume(with: .success(try await work())) } catch { once.resume(with: .failure(error)) }
            }
        }
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
