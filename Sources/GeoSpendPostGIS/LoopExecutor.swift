import NIOCore
import PostgresNIO

/// Runs a task's jobs on one NIO event loop: a statement's task preferring its connection's
/// loop (`waitFor`, `unlessClosed`) runs where postgres-nio completes the statement, so the
/// answer resumes it in the same turn of the loop instead of waking a thread of Swift's
/// cooperative pool, and back again for each step (docs/MEASUREMENTS.md § Prepared statements
/// on PostgreSQL). The task only awaits postgres-nio and decodes rows: nothing in it blocks
/// the loop.
final class LoopExecutor: TaskExecutor, @unchecked Sendable {  // immutable
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
