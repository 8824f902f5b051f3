import Foundation

/// The deadlines of the reads in flight, watched by one task that wakes once per `resolution`
/// while any read is waiting, instead of a `Task.sleep` per request. Cancelling a sleeping task
/// does not remove its timer on Linux: each request's timer still fired `limit` (30 s) later, so
/// a server had as many timer firings per second as requests 30 s before — 20–33 s after a
/// 10 s burst at 64 connections the idle server still used 4–5 ticks of 10 ms per half second
/// (Benchmarks/RESULTS.md, session 15).
final class DeadlineWatch: @unchecked Sendable {  // state behind `lock`
    private enum Entry {
        case pending  // registered, its continuation not yet made
        case waiting(ContinuousClock.Instant, CheckedContinuation<Bool, Never>)
        case cancelled  // cancelled before its continuation was made
    }

    let resolution: Duration
    private let lock = NSLock()
    private var entries: [UInt64: Entry] = [:]
    private var lastID: UInt64 = 0
    private var ticking = false

    init(resolution: Duration) { self.resolution = resolution }

    /// Waits registered and not yet over, and whether the watching task runs (for the tests:
    /// a finished request must leave nothing behind).
    var state: (waits: Int, ticking: Bool) { lock.withLock { (entries.count, ticking) } }

    /// Returns once `deadline` has passed (within `resolution`): true; or as soon as the calling
    /// task is cancelled: false.
    @discardableResult
    func wait(until deadline: ContinuousClock.Instant) async -> Bool {
        let id: UInt64 = lock.withLock {
            lastID += 1
            entries[lastID] = .pending
            return lastID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = lock.withLock {
                    guard case .pending = entries[id] else {
                        entries[id] = nil
                        return false  // cancelled before it got here
                    }
                    guard deadline > .now else {
                        entries[id] = nil
                        return true
                    }
                    entries[id] = .waiting(deadline, continuation)
                    if !ticking {
                        ticking = true
                        tick()
                    }
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Bool, Never>? = lock.withLock {
                switch entries[id] {
                case .pending:
                    entries[id] = .cancelled
                    return nil
                case .waiting(_, let continuation):
                    entries[id] = nil
                    return continuation
                case .cancelled, nil:
                    return nil  // resumed already
                }
            }
            continuation?.resume(returning: false)
        }
    }

    /// The watching task: ends when nothing waits (and starts again with the next wait).
    private func tick() {
        Task.detached { [self] in
            while true {
                try? await Task.sleep(for: resolution)
                if !expire() { return }
            }
        }
    }

    /// One round of the watch: ends the waits whose deadline has passed. False when nothing
    /// waits any more, and the watching task then stops.
    func expire() -> Bool {
        let (expired, more): ([CheckedContinuation<Bool, Never>], Bool) = lock.withLock {
            let now = ContinuousClock.now
            var expired: [CheckedContinuation<Bool, Never>] = []
            for (id, entry) in entries {
                if case .waiting(let deadline, let continuation) = entry, deadline <= now {
                    entries[id] = nil
                    expired.append(continuation)
                }
            }
            ticking = !entries.isEmpty
            return (expired, ticking)
        }
        for continuation in expired { continuation.resume(returning: true) }
        return more
    }
}
