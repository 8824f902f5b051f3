import Foundation
import Testing

@testable import GeoSpendService

/// The time limit's watch: a deadline ends a wait, a cancellation ends it without waiting for
/// the deadline, and neither leaves anything behind (the `Task.sleep` it replaced left a timer
/// per request, firing 30 s later). No upper time bounds: under the whole suite the cooperative
/// pool can be busy for minutes.
@Suite struct DeadlineWatchTests {
    @Test func aWaitEndsAtItsDeadline() async {
        let watch = DeadlineWatch(resolution: .milliseconds(10))
        let start = ContinuousClock.now
        let byDeadline = await watch.wait(until: start + .milliseconds(50))
        #expect(byDeadline)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(watch.state.waits == 0)
        #expect(!watch.expire())  // nothing left: the watching task stops
        #expect(!watch.state.ticking)
    }

    @Test func cancelledWaitsEndWithoutTheirDeadlineAndLeaveNothing() async {
        let watch = DeadlineWatch(resolution: .milliseconds(10))
        let ends = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 { group.addTask { await watch.wait(until: .now + .seconds(600)) } }
            try? await Task.sleep(for: .milliseconds(20))
            group.cancelAll()
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(ends == [Bool](repeating: false, count: 100))  // none waited for its deadline
        #expect(watch.state.waits == 0)
        #expect(!watch.expire())
        #expect(!watch.state.ticking)
    }

    @Test func aDeadlineAlreadyPastEndsTheWaitAtOnce() async {
        let watch = DeadlineWatch(resolution: .seconds(1))
        #expect(await watch.wait(until: .now - .seconds(1)))
        #expect(watch.state.waits == 0)
        #expect(!watch.state.ticking)  // no watching task was needed
    }
}
