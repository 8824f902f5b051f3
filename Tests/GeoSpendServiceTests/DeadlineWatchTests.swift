import Foundation
import Testing

@testable import GeoSpendService

/// The time limit's watch: a deadline ends a wait, a cancellation ends it at once, and neither
/// leaves anything behind (the `Task.sleep` it replaced left a timer per request, firing 30 s later).
@Suite struct DeadlineWatchTests {
    @Test func aWaitEndsAtItsDeadline() async {
        let watch = DeadlineWatch(resolution: .milliseconds(10))
        let start = ContinuousClock.now
        await watch.wait(until: start + .milliseconds(50))
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(50))
        #expect(waited < .seconds(5))
        try? await Task.sleep(for: .milliseconds(50))  // the watching task's last round
        #expect(watch.state.waits == 0)
        #expect(!watch.state.ticking)
    }

    @Test func cancelledWaitsEndAtOnceAndLeaveNothing() async {
        let watch = DeadlineWatch(resolution: .milliseconds(10))
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { await watch.wait(until: .now + .seconds(600)) } }
            try? await Task.sleep(for: .milliseconds(20))
            group.cancelAll()
        }
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(watch.state.waits == 0)
        try? await Task.sleep(for: .milliseconds(50))
        #expect(!watch.state.ticking)
    }

    @Test func aDeadlineAlreadyPastEndsTheWaitAtOnce() async {
        let watch = DeadlineWatch(resolution: .seconds(1))
        let start = ContinuousClock.now
        await watch.wait(until: start - .seconds(1))
        #expect(ContinuousClock.now - start < .milliseconds(500))
        #expect(watch.state.waits == 0)
    }
}
