import Foundation
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

/// `ExpenseStore.quickRead` (the service's near and nearest-stores): the same answers as `read`
/// on every store; on the SpatiaLite file, also when a read outgrows its budget of SQLite steps
/// and starts over through `read`, and when more reads ask at once than it has connections.
@Suite struct QuickReadTests {
    static func radiusQueries() -> [(Coordinate, Distance)] {
        var rng = SplitMix64(seed: 16)
        return (0..<20).map { k in
            (Coordinate(uncheckedLatitude: 60.164 + rng.unit() * 0.016, longitude: 24.933 + rng.unit() * 0.022),
             Distance(meters: [50, 300, 2_000][k % 3]))
        }
    }

    @Test(arguments: StoreKind.allCases) func answersAsRead(kind: StoreKind) async throws {
        let data = try await StoreContractTests.Loaded(kind)
        for (center, radius) in Self.radiusQueries() {
            let filter = ExpenseFilter(userID: "user1")
            let quick = try await data.store.quickRead { try $0.expenses(within: radius, of: center, filter: filter) }
            let read = try await data.store.read { try $0.expenses(within: radius, of: center, filter: filter) }
            #expect(quick == read)
        }
    }

    /// With a budget of 1,000 steps, the 2 km queries (hundreds of rows) stop and start over
    /// through `read`; the interrupted connections serve the next reads as before.
    @Test func aReadPastItsBudgetStartsOverThroughRead() async throws {
        let data = try await StoreContractTests.Loaded(.spatiaLite)
        let store = try #require(data.store as? SpatiaLiteStore)
        store.quickReaders.steps = 1_000
        var large = 0
        for (center, radius) in Self.radiusQueries() {
            let filter = ExpenseFilter(userID: nil)
            let quick = try await store.quickRead { try $0.expenses(within: radius, of: center, filter: filter) }
            let read = try await store.read { try $0.expenses(within: radius, of: center, filter: filter) }
            #expect(quick == read)
            if read.count > 100 { large += 1 }
        }
        #expect(large >= 5)  // the budget was passed, not only small answers checked
        // Within the budget, a small query answers on the quick connection itself.
        let budgetHit = try? store.quickReaders.read { db in try Int.fetchOne(db, sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) SELECT count(*) FROM n") }
        #expect(budgetHit == nil)  // thrown: StepBudget.Exceeded
        #expect(try store.quickReaders.read { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }

    /// More reads at once than quick connections: the rest go through `read`, none waits for a
    /// connection (which could deadlock the async threads), every one answers.
    @Test func moreReadsThanConnectionsAllAnswer() async throws {
        let data = try await StoreContractTests.Loaded(.spatiaLite)
        let (store, queries) = (data.store, Self.radiusQueries())
        let expected = try await withThrowingTaskGroup(of: [ExpenseHit].self) { group in
            for (center, radius) in queries { group.addTask { try await store.read { try $0.expenses(within: radius, of: center, filter: ExpenseFilter(userID: nil)) } } }
            return try await group.reduce(0) { $0 + $1.count }
        }
        let got = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                for (center, radius) in queries {
                    group.addTask { try await store.quickRead { try $0.expenses(within: radius, of: center, filter: ExpenseFilter(userID: nil)) }.count }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(got == 8 * expected)
    }
}
