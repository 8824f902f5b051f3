import Foundation
import GeoSpendTestSupport
import GRDB
import GeoSpend
import GeoSpendSpatiaLite
import Synchronization
import Testing

/// Issue 35, item 7: work stops when its caller is cancelled (the client left, the time is up),
/// not only the waiting for it. Before, `offloaded` resumed the caller and the read ran on to
/// its end — a `snap` kept a core busy 70 s after its client had gone.
@Suite struct WorkInterruptionTests {
    /// Counting to two billion in SQL: minutes of one core, unless interrupted.
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT count(*) FROM c"

    @Test func aCancelledCallersReadIsInterrupted() async throws {
        let scratch = Scratch()
        let store = try SpatiaLiteStore(path: scratch.path("interrupt.sqlite"))
        let ended = Mutex<(ContinuousClock.Instant, String)?>(nil)
        let started = Mutex(false)
        let task = Task {
            try await offloaded {
                do {
                    return try store.readDatabase { db in
                        started.withLock { $0 = true }
                        return try Int.fetchOne(db, sql: Self.endless)
                    }
                } catch {
                    ended.withLock { $0 = (.now, "\(type(of: error))") }
                    throw error
                }
            }
        }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // The read itself ends soon after; before, it counted on for minutes.
        while ended.withLock({ $0 }) == nil, ContinuousClock.now - cancelled < .seconds(30) { try await Task.sleep(for: .milliseconds(20)) }
        let end = try #require(ended.withLock { $0 }, "the read was still running 30 s after its caller was cancelled")
        #expect(end.0 - cancelled < .seconds(10))
        #expect(end.1 == "CancellationError", "\(end.1)")
        // Every pooled connection reads again afterwards: the interruption did not stay behind.
        for _ in 0..<8 {
            #expect(try await offloaded { try store.readDatabase { db in try Int.fetchOne(db, sql: "SELECT 41 + 1") } } == 42)
        }
    }

    /// A read whose caller was cancelled after the work began, but before the read (it waited
    /// for a pooled connection, say), does not start. The work cancels its caller itself, so
    /// the order does not hang on scheduling: a sleep in the work, and then a 60 s wait for the
    /// work to begin, both failed in whole runs on this machine (the second: the work had not
    /// begun after a minute).
    @Test func aReadCancelledBeforeItStartsDoesNotRun() async throws {
        let scratch = Scratch()
        let store = try SpatiaLiteStore(path: scratch.path("early.sqlite"))
        let caller = Mutex<Task<Void, any Error>?>(nil), ended = Mutex(false), ran = Mutex(false)
        let task = Task {
            try await offloaded {
                defer { ended.withLock { $0 = true } }
                var handle: Task<Void, any Error>?
                while handle == nil {  // stored as soon as `Task {}` returns
                    handle = caller.withLock { $0 }
                    if handle == nil { usleep(1_000) }
                }
                handle?.cancel()  // runs offloaded's cancellation handler on this thread, now
                try store.readDatabase { _ in ran.withLock { $0 = true } }
            }
        }
        caller.withLock { $0 = task }
        await #expect(throws: CancellationError.self) { try await task.value }
        // The work ends just after it cancelled; the limit only stops a hung test.
        let deadline = ContinuousClock.now + .seconds(300)
        while !ended.withLock({ $0 }) {
            try #require(ContinuousClock.now < deadline, "the work did not end")
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!ran.withLock { $0 })
    }

    /// An edit on GRDB's async API (issue 40) whose caller is cancelled half-way is rolled back:
    /// the caller, told "cancelled", finds nothing of it in the file. The body waits (on GRDB's
    /// writer queue, not a cooperative thread) until the task is cancelled, then writes again.
    @Test func aCancelledCallersEditIsRolledBack() async throws {
        let scratch = Scratch()
        let store = try SpatiaLiteStore(path: scratch.path("edit.sqlite"))
        let started = Mutex(false), cancelled = Mutex(false)
        let task = Task {
            try await store.writeTransaction { db in
                try db.execute(sql: "CREATE TABLE marks (x)")
                started.withLock { $0 = true }
                let deadline = ContinuousClock.now + .seconds(60)
                while !cancelled.withLock({ $0 }), ContinuousClock.now < deadline { usleep(1_000) }
                try db.execute(sql: "INSERT INTO marks VALUES (1)")
            }
        }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
        task.cancel()
        cancelled.withLock { $0 = true }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try store.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'marks'", as: Int.self) == 0)
    }
}
