import Dispatch

/// Runs async work (postgres-nio's calls) from a scope's synchronous body and waits for it.
///
/// The seam's bodies are synchronous and run on a thread of the store's own (`offloaded`'s
/// dispatch thread), never on one of Swift's cooperative threads, so blocking that thread while
/// the query runs on the event loop starves nothing.
func waitFor<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Outcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { outcome.result = .success(try await work()) } catch { outcome.result = .failure(PostGISError.wrap(error)) }
        done.signal()
    }
    done.wait()
    return try outcome.result!.get()
}

/// The result handed from the task to the waiting thread; the semaphore orders the two accesses.
private final class Outcome<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
