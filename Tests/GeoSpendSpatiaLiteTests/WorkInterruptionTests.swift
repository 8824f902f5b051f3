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
    /// for a pooled connection, say), does not start. The work waits until the test has
    /// cancelled: a sleep instead failed on a loaded machine, where the cancel came after it.
    @Test func aReadCancelledBeforeItStartsDoesNotRun() async throws {
        let scratch = Scratch()
        let store = try SpatiaLiteStore(path: scratch.path("early.sqlite"))
        let began = Mutex(false), cancelled = Mutex(false), ended = Mutex(false), ran = Mutex(false)
        let task = Task {
            try await offloaded {
                defer { ended.withLock { $0 = true } }
                began.withLock { $0 = true }
                while !cancelled.withLock({ $0 }) { usleep(1_000) }  // the caller is cancelled meanwhile
                try store.readDatabase { _ in ran.withLock { $0 = true } }
            }
        }
        try await waitUntil("the work began") { began.withLock { $0 } }
        task.cancel()
        cancelled.withLock { $0 = true }
        await #expect(throws: CancellationError.self) { try await task.value }
        try await waitUntil("the work ended") { ended.withLock { $0 } }
        #expect(!ran.withLock { $0 })
    }

    /// Polls `condition` every 10 ms; fails after 60 s (a hung test, not a slow one).
    private func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            try #require(ContinuousClock.now < deadline, "\(what): not after 60 s")
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
