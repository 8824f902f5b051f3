import Dispatch
import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendTestStores
import Synchronization
import Testing

/// What a PostgreSQL scope does around its body (`PostGISStore.scope`) when its caller goes
/// away: `offloaded` returns at once with `CancellationError` while the body still runs on its
/// thread, so the scope must not hand the body's connection to the next scope.
@Suite struct PostGISScopeTests {
    /// The body's statement after the cancellation fails (its connection was closed), instead of
    /// running outside any transaction on a connection the next scope took from the pool; the
    /// store goes on serving scopes on a new connection.
    @Test func aCancelledScopesConnectionIsClosedNotShared() async throws {
        guard PostGISTestServer.address != nil else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let store = try await PostGISTestServer.freshStore()
        let entered = Mutex(false)
        let late = Mutex<Result<StoreCounts, any Error>?>(nil)
        let release = DispatchSemaphore(value: 0)
        let task = Task {
            try await store.read { r -> Int in
                _ = try r.counts()  // the transaction has begun
                entered.withLock { $0 = true }
                _ = release.wait(timeout: .now() + 600)  // the body's own thread, not a cooperative one
                let again = Result { try r.counts() }
                late.withLock { $0 = again }
                return 0
            }
        }
        try await Self.until { entered.withLock { $0 } }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }

        #expect(try await store.read { try $0.counts() }.expenses == 0)
        release.signal()
        try await Self.until { late.withLock { $0 != nil } }
        let outcome = try #require(late.withLock { $0 })
        #expect(throws: (any Error).self) { try outcome.get() }
        await store.close()
    }

    struct TimedOut: Error {}

    /// Polls `condition` every 10 ms; throws `TimedOut` after 600 s. In a whole `make test` run
    /// the read scope's body once took over 60 s to start (a clean-clone CI, 4 December 2026).
    static func until(_ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(600)
        while !condition() {
            guard clock.now < deadline else { throw TimedOut() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
