import Foundation

/// Runs blocking work — SQLite calls, a file rewrite — on a dispatch queue and suspends the
/// caller until it is done, so an async caller (the server) does not hold one of the async
/// runtime's few threads while SQLite works. The scopes get the same from GRDB's own queues.
package func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let work = Work(body)
    return try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: work.run()) }
    }
}

/// The work, let go of before the caller resumes: what it captured (a store, whose closing
/// writes the lock-wait log line) is released then, not later on the dispatch thread while the
/// process may already be exiting (ConcurrencyTests counted a line missing now and then).
private final class Work<T: Sendable>: @unchecked Sendable {
    private var body: (@Sendable () throws -> T)?

    init(_ body: @escaping @Sendable () throws -> T) { self.body = body }

    /// Runs once, on one thread.
    func run() -> Result<T, any Error> {
        let body = self.body!
        self.body = nil
        return Result(catching: body)
    }
}
