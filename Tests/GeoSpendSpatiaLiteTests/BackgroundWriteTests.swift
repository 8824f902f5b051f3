import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// `ExpenseStore.writeInBackground` (the service's imports): on every store a write scope like
/// `write`, and on the SpatiaLite file one run at the lowest CPU priority.
@Suite struct BackgroundWriteTests {
    @Test(arguments: StoreKind.allCases) func commitsWholeOrRollsBack(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let places = try Importer.readStores(from: Repo.path("Data/helsinki-places.geojson"))
        let rows = places.map { HashedRow($0, contentHash: $0.contentHash) }
        let center = try Coordinate(latitude: 60.1710, longitude: 24.9414)
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await store.writeInBackground { w in
                _ = try w.insert(rows)
                throw Stop()
            }
        }
        #expect(try await store.read { try $0.nearestStores(to: center, limit: 10_000, maxDistance: nil, kind: nil) }.isEmpty)
        let outcomes = try await store.writeInBackground { w in try w.insert(rows) }
        #expect(outcomes.count == places.count && outcomes.allSatisfy { $0 == .inserted })
        #expect(try await store.read { try $0.nearestStores(to: center, limit: 10_000, maxDistance: nil, kind: nil) }.count == places.count)
    }

    #if os(Linux)
    @Test func theFileRunsItAtTheLowestPriority() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let before = getpriority(which, 0)
        let inside = try await store.writeInBackground { _ in getpriority(which, 0) }
        #expect(inside == 19)
        // The caller's threads (the async runtime's) keep theirs, and plain writes run above it
        // (on GRDB's queue, whose QoS libdispatch maps to a nice value of its own: -2 here).
        #expect(getpriority(which, 0) == before)
        let plain = try await store.write { _ in getpriority(which, 0) }
        #expect(plain < inside, "plain write at \(plain)")
    }
    #endif
}
