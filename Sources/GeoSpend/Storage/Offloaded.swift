import Foundation

/// Runs blocking work — SQLite calls, a file rewrite — on a dispatch queue and suspends the
/// caller until it is done, so an async caller (the server) does not hold one of the async
/// runtime's few threads while SQLite works. The scopes get the same from GRDB's own queues.
///
/// A caller cancelled while it waits (its request's time is up, its client left) resumes at once
/// with `CancellationError`. Waiting instead held the request — and the time limit's 503 —
/// until a read blocked behind a full pool ended (issue 35, item 3). The work is told too
/// (`WorkInterruption`): a database read running then is interrupted, one not started yet
/// does not start; other work goes on to its end on its thread and its result is dropped.
package func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let work = Work(body)
    let waiter = Waiter<T>()
    let interruption = WorkInterruption()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            guard waiter.wait(continuation) else { return }
            DispatchQueue.global(qos: .userInitiated).async { waiter.resume(with: interruption.installed { work.run() }) }
        }
    } onCancel: {
        interruption.cancel()
        waiter.resume(with: .failure(CancellationError()))
    }
}

/// One continuation resumed once, by the work or by a cancellation, whichever comes first.
private final class Waiter<T: Sendable>: @unchecked Sendable {  // state behind `lock`
    private enum State { case idle, waiting(CheckedContinuation<T, any Error>), cancelled, done }
    private let lock = NSLock()
    private var state = State.idle

    /// False when cancelled before: the continuation is resumed with `CancellationError`.
    func wait(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let go: Bool = lock.withLock {
            guard case .idle = state else { return false }
            state = .waiting(continuation)
            return true
        }
        if !go { continuation.resume(throwing: CancellationError()) }
        return go
    }

    func resume(with result: Result<T, any Error>) {
        let continuation: CheckedContinuation<T, any Error>? = lock.withLock {
            switch state {
            case .waiting(let c):
                state = .done
                return c
            case .idle:
                state = .cancelled  // only a cancellation gets here first
                return nil
            case .cancelled, .done:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}

/// `offloaded`, on a thread of its own at the lowest CPU priority (nice 19, Linux): for a bulk
/// write beside a busy service, whose readers then run first; idle CPU still goes to it. On 2
/// cores at 1M expenses, near with 50 m at 8 connections beside a looping 100k-row import:
/// 5,154 requests per second with the import posted to the service, 3,599 with the same import
/// from the CLI at equal priority (Benchmarks/RESULTS.md, session 16). A new thread each time:
/// an unprivileged process cannot raise a thread's priority again, so a pooled thread must never
/// be lowered. Threads the work starts inherit the priority.
package func offloadedInBackground<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let work = Work(body)
    return try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            #if os(Linux)
            // Linux keeps a nice value per thread; `who` 0 is the calling thread.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, backgroundNice)
            #endif
            continuation.resume(with: work.run())
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// The nice value of `offloadedInBackground`'s threads: the lowest priority there is.
package let backgroundNice: Int32 = 19

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
