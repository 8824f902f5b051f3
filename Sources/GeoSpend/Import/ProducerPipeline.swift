import Foundation

/// Runs a producer on its own thread and hands its items to the calling thread in batches,
/// with a bounded queue between them: imports parse and validate rows on one core while the
/// other writes them to SQLite.
final class ProducerPipeline<Item: Sendable>: @unchecked Sendable {
    // All mutable state is guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [[Item]] = []
    private var producerDone = false
    private var producerError: (any Error)?
    private var producerResult: Int64 = 0
    private var cancelled = false
    private let capacity: Int
    private let batchSize: Int
    private var producer: (@Sendable (_ emit: (Item) throws -> Void) throws -> Int64)?

    private struct Cancelled: Error {}

    init(capacity: Int = 8, batchSize: Int = 4096) {
        self.capacity = capacity
        self.batchSize = batchSize
    }

    /// Starts `produce` on a new thread; it calls `emit` for each item and returns a count
    /// (bytes read) that `finish()` hands back.
    func start(_ produce: @escaping @Sendable (_ emit: (Item) throws -> Void) throws -> Int64) {
        producer = produce
        let thread = Thread { [self] in
            let (result, error) = produceAll()
            end(result: result, error: error)
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Runs the producer and lets go of it before `end` wakes the consumer: what it captured (a
    /// store, whose closing writes a log line) must not outlive the consumer's wait.
    private func produceAll() -> (Int64, (any Error)?) {
        let produce = producer!
        producer = nil
        var batch: [Item] = []
        batch.reserveCapacity(batchSize)
        do {
            let result = try produce { item in
                batch.append(item)
                if batch.count == self.batchSize {
                    try self.push(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try push(batch) }
            return (result, nil)
        } catch {
            return (0, error)
        }
    }

    private func push(_ batch: [Item]) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        queue.append(batch)
        condition.broadcast()
    }

    private func end(result: Int64, error: (any Error)?) {
        condition.lock()
        producerDone = true
        producerResult = result
        producerError = error is Cancelled ? nil : error
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, waiting for the producer; nil once it has finished and all was taken.
    func next() -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !producerDone { condition.wait() }
        guard !queue.isEmpty else { return nil }
        condition.broadcast()
        return queue.removeFirst()
    }

    /// After `next()` returned nil: the producer's result, or its error rethrown.
    func finish() throws -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        while !producerDone { condition.wait() }
        if let producerError { throw producerError }
        return producerResult
    }

    /// Stops the producer at its next batch (the consumer failed) and waits for it to end.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}

/// Work started on another thread now and collected later: an independent lookup overlaps with
/// computing on this thread (2 cores here).
package final class BackgroundWork<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written by the worker before `done` is signalled; read after waiting on it.
    private var work: (@Sendable () throws -> Value)?
    private var result: Result<Value, any Error>?

    package init(_ work: @escaping @Sendable () throws -> Value) {
        self.work = work
        Thread { [self] in
            result = Result { try self.work!() }
            // Let go of what the work captured (a store, whose closing writes a log line) before
            // the waiter goes on.
            self.work = nil
            done.signal()
        }.start()
    }

    /// Waits for the work and returns its value, or rethrows its error. Call once.
    package func value() throws -> Value {
        done.wait()
        return try result!.get()
    }
}
