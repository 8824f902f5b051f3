import Foundation

/// Runs blocking work — SQLite calls, a file rewrite — on a dispatch queue and suspends the
/// caller until it is done, so an async caller (the server) does not hold one of the async
/// runtime's few threads while SQLite works. The scopes get the same from GRDB's own queues.
func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result(catching: body)) }
    }
}
