import Foundation
import GeoSpendTestSupport
@testable import GeoSpendService
import Synchronization
import Testing

/// `OGCLayerCache`'s builds on their own (issue 35, item 24): a waiter that gives up (its time is
/// up: cancelled) does not stop the build, whose layer the next request gets without building.
///
/// In `make reliability` only: it needs its tasks to run within a minute, and under `make test`
/// (every suite at once on 2 cores, many blocking the async threads on child processes) the
/// first one did not start in five (a clean-clone run, session 19).
@Suite(.enabled(if: ReliabilityFigures.isLong)) struct OGCLayerBuildTests {
    @Test func aCancelledWaiterLeavesTheBuildToFinishAndBeKept() async throws {
        let f = try ServiceFixture()
        let cache = OGCLayerCache(store: try f.store())
        let key = OGCLayerCache.Key(user: "ann", collection: .density, from: nil, to: nil)
        let feature = OGCFeature(id: "1", json: "{}", box: (0, 0, 0, 0))
        let released = Atomic(false)
        let waiter = Task {
            try await cache.features(key) {
                // A slow layer: it ends when the test lets it.
                while !released.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }
                return [feature]
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while cache.builds.started < 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(cache.builds.started == 1 && cache.builds.finished == 0, "the waiter gave up at once, the build runs on")
        released.store(true, ordering: .releasing)
        while cache.builds.finished < 1 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let kept = try await cache.features(key) {
            Issue.record("built again")
            return []
        }
        #expect(kept.map(\.id) == ["1"])
        #expect(cache.builds.started == 1)
    }
}
