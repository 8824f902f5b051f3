/// "What did I spend within r metres of here?": the hits, nearest first, and totals per currency.
public struct RadiusResult: Sendable, Hashable {
    public let center: Coordinate
    public let radius: Distance
    public let hits: [ExpenseHit]
    /// Count, total and average per currency, over `hits`.
    public let totals: [MoneyTotal]

    /// The radius when none is given: 1000 m, MONO's "near" (its plan's L360), for the CLI and
    /// the service alike.
    public static let defaultRadius = Distance(meters: 1000)

    public init(center: Coordinate, radius: Distance, hits: [ExpenseHit]) {
        self.center = center
        self.radius = radius
        self.hits = hits
        var totals = MoneyTotals()
        for h in hits { totals.add(h.expense.amount) }
        self.totals = totals.totals
    }
}

public struct NearestStoresResult: Sendable, Hashable {
    public let center: Coordinate
    public let stores: [StoreHit]
    public init(center: Coordinate, stores: [StoreHit]) {
        self.center = center
        self.stores = stores
    }
}

extension ExpenseStore {
    /// A radius query with its per-currency summary, in one read scope.
    ///
    /// ```swift
    /// let result = try await store.radiusSearch(
    ///     center: Coordinate(latitude: 60.1710, longitude: 24.9414), radius: .meters(300),
    ///     filter: ExpenseFilter(userID: "alice"))
    /// ```
    /// - Complexity: O(log n + c) with c the candidates in the circle's bounding box.
    public func radiusSearch(center: Coordinate, radius: Distance, filter: ExpenseFilter) async throws -> RadiusResult {
        try await read { RadiusResult(center: center, radius: radius, hits: try $0.expenses(within: radius, of: center, filter: filter)) }
    }

    /// The `limit` stores nearest to `center`, in one read scope.
    public func nearestStores(to center: Coordinate, limit: Int, maxDistance: Distance?, kind: String?) async throws -> NearestStoresResult {
        try await read { NearestStoresResult(center: center, stores: try $0.nearestStores(to: center, limit: limit, maxDistance: maxDistance, kind: kind)) }
    }
}

/// Sorting and ranking rules shared by every store implementation and by test oracles.
public enum Ranking {
    /// Nearest first; equal distances by id, so results are reproducible.
    public static func byDistance(_ a: ExpenseHit, _ b: ExpenseHit) -> Bool {
        (a.distanceMeters, a.expense.id) < (b.distanceMeters, b.expense.id)
    }

    public static func byDistance(_ a: StoreHit, _ b: StoreHit) -> Bool {
        (a.distanceMeters, a.store.id) < (b.distanceMeters, b.store.id)
    }

    /// Sorts `hits` as `byDistance` orders them, moving each hit once: the sort orders their
    /// positions, then the hits are put in that order. Sorting the hits themselves moved whole
    /// expenses (eight strings each) at every step, 8 % of a small `near` request's server CPU
    /// (perf, 1M service bench, session 16).
    public static func sortByDistance(_ hits: inout [ExpenseHit]) {
        guard hits.count > 1 else { return }
        let order = hits.indices.sorted { i, j in
            let (a, b) = (hits[i].distanceMeters, hits[j].distanceMeters)
            return a != b ? a < b : hits[i].expense.id < hits[j].expense.id
        }
        hits = order.map { hits[$0] }
    }
}
