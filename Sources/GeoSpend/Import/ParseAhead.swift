import Foundation

/// The hand-off between an import's two stages: the parser, on a dispatch thread (`offloaded`),
/// puts batches of parsed rows; the write scope, on the store's own thread, takes them. At most
/// `capacity` batches wait, so memory stays flat whatever the file's size.
///
/// Only imports use it, and both sides block only on threads of their own (a dispatch worker,
/// the store's writer queue), never on the async runtime's: the parsing stage runs as an
/// awaited child of the import, not as a thread of its own. What it buys: parsing on one core
/// while the other writes (100k-row import, paired with session 8's two-thread pipeline: wall
/// 1.20× with both stages in the write scope's thread, 0.94× with this).
final class ParseAhead<Batch: Sendable>: @unchecked Sendable {
    // All mutable state is guarded by `condition`.
    private let condition = NSCondition()
    private var waiting: [Batch] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private let capacity: Int

    init(capacity: Int = 8) { self.capacity = capacity }

    /// Parser: hands over a batch, waiting while `capacity` are waiting already.
    /// - Throws: `CancellationError` once the writer has given up (`cancel`).
    func put(_ batch: Batch) throws {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw CancellationError() }
        waiting.append(batch)
        condition.broadcast()
    }

    /// Parser: no more batches; with an error, `take` throws it after the batches before it.
    func finish(throwing error: (any Error)? = nil) {
        condition.lock()
        finished = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// Writer: the next batch, nil after the last.
    func take() throws -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !finished { condition.wait() }
        if !waiting.isEmpty {
            condition.broadcast()
            return waiting.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// Writer: stops the parser (its next `put` throws) and drops what waits.
    func cancel() {
        condition.lock()
        cancelled = true
        waiting.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
