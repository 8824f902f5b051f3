import Foundation

/// Assigns geotagged expenses without a store to the nearest store (docs/DOMAIN.md § Snapping).
///
/// For each expense the search radius is `tolerance`, or its `accuracy_m` when larger, at most
/// `SnapRequest.maxTolerance` (1 km). Among the stores within it:
/// 1. a store whose name equals the expense's `merchant` text (case- and accent-insensitive) wins,
///    the nearest such one when a chain has several branches;
/// 2. otherwise the nearest store wins, unless the second nearest is less than
///    `ambiguityMargin` farther away: then the expense is *ambiguous* and left alone;
/// 3. no store within the radius: *unmatched*.
/// Only expenses without a store are considered, so running it twice changes nothing more.
///
/// ```swift
/// let plan = try await Snapping.plan(SnapRequest(userID: "user1"), store: store)
/// try await Snapping.apply(plan, to: store)
/// ```
public struct SnapRequest: Sendable {
    /// The widest search: a store farther than a kilometre from where the money was spent is no
    /// evidence of where it was, and a wider search costs every store in the box per expense
    /// (a 100 km tolerance kept a core busy for minutes). Also the cap on an `accuracy_m` radius.
    public static let maxTolerance = Distance.meters(1000)
    /// In NFC, as ids are stored (`Identity`).
    public var userID: String? { didSet { userID = userID.map(Identity.normalized) } }
    public var tolerance: Distance
    public var ambiguityMargin: Distance
    public var storeKind: String?

    public init(userID: String? = nil, tolerance: Distance = .meters(50), ambiguityMargin: Distance = .meters(3), storeKind: String? = nil) {
        self.userID = userID.map(Identity.normalized)
        self.tolerance = tolerance
        self.ambiguityMargin = ambiguityMargin
        self.storeKind = storeKind
    }
}

public struct SnapPlan: Sendable {
    public struct Assignment: Sendable, Hashable {
        public let expenseID: String
        /// The expense's user: ids are unique per user, so the link names both.
        public let userID: String
        public let store: Store
        public let distanceMeters: Double
        /// True when the merchant text named the store.
        public let byMerchantName: Bool
    }
    public struct Ambiguity: Sendable, Hashable {
        public let expenseID: String
        /// The two nearest candidates, nearest first.
        public let candidates: [StoreHit]
    }
    public struct Miss: Sendable, Hashable {
        public let expenseID: String
        /// The radius searched (tolerance or accuracy).
        public let searchedMeters: Double
    }
    public let assigned: [Assignment]
    public let ambiguous: [Ambiguity]
    public let unmatched: [Miss]
}

public enum Snapping {
    /// Decides, without writing, what `apply` would do.
    /// - Complexity: O(n · c) for n expenses with c stores in each search box.
    public static func plan(_ request: SnapRequest, store: some ExpenseStore) async throws -> SnapPlan {
        try await store.read { try plan(request, reader: $0) }
    }

    /// `plan` inside a read scope.
    public static func plan(_ request: SnapRequest, reader: some ExpenseReader) throws -> SnapPlan {
        guard request.tolerance <= SnapRequest.maxTolerance else {
            throw UsageError("tolerance \(request.tolerance) is wider than \(SnapRequest.maxTolerance), the most snap searches; give 1km or less")
        }
        let stores = try reader.allStores(kind: request.storeKind)
        let grid = StoreGrid(stores: stores)
        let names = stores.map { $0.name.map(normalizedName) }
        var assigned: [SnapPlan.Assignment] = []
        var ambiguous: [SnapPlan.Ambiguity] = []
        var unmatched: [SnapPlan.Miss] = []
        for e in try reader.expensesWithoutStore(userID: request.userID) {
            let radius = min(max(request.tolerance.meters, e.accuracyMeters ?? 0), SnapRequest.maxTolerance.meters)
            var hits: [(distance: Double, index: Int)] = []
            grid.forEachCandidate(around: e.coordinate, radius: radius) { i in
                guard Geodesic.isWithin(e.coordinate, stores[i].coordinate, meters: radius) else { return }
                hits.append((Geodesic.distance(e.coordinate, stores[i].coordinate), i))
            }
            hits.sort { ($0.distance, stores[$0.index].id) < ($1.distance, stores[$1.index].id) }
            if let merchant = e.merchant.map(normalizedName), let named = hits.first(where: { names[$0.index] == merchant }) {
                assigned.append(.init(expenseID: e.id, userID: e.userID, store: stores[named.index], distanceMeters: named.distance, byMerchantName: true))
            } else if let first = hits.first {
                if hits.count > 1, hits[1].distance - first.distance < request.ambiguityMargin.meters {
                    ambiguous.append(.init(
                        expenseID: e.id,
                        candidates: hits.prefix(2).map { StoreHit(store: stores[$0.index], distanceMeters: $0.distance) }))
                } else {
                    assigned.append(.init(expenseID: e.id, userID: e.userID, store: stores[first.index], distanceMeters: first.distance, byMerchantName: false))
                }
            } else {
                unmatched.append(.init(expenseID: e.id, searchedMeters: radius))
            }
        }
        return SnapPlan(assigned: assigned, ambiguous: ambiguous, unmatched: unmatched)
    }

    /// Writes a plan's assignments in one transaction, as one batch of links.
    /// - Returns: how many expenses changed (an expense given a store meanwhile is left alone).
    @discardableResult
    public static func apply(_ plan: SnapPlan, to store: some ExpenseStore) async throws -> Int {
        let links = plan.assigned.map { StoreLink(userID: $0.userID, expenseID: $0.expenseID, storeID: $0.store.id) }
        return try await store.write { writer in try writer.assignStores(links).count { $0 } }
    }

    /// Lower-case, accents and surrounding spaces removed: "Café Ekberg " → "cafe ekberg".
    /// ASCII text (most names) is lower-cased directly, which is what folding does to it:
    /// Foundation's folding was 16 % of a snap's instructions.
    public static func normalizedName(_ s: String) -> String {
        if s.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return s.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Stores bucketed on a fixed latitude/longitude grid (0.0005° × 0.001°, about 55 m square at
/// 60° N); a radius query visits the cells under the circle's `SearchBox` boxes.
struct StoreGrid {
    private static let cellLatitude = 0.0005, cellLongitude = 0.001
    private var buckets: [Key: [Int]] = [:]
    private struct Key: Hashable { let x: Int32, y: Int32 }

    init(stores: [Store]) {
        for (i, s) in stores.enumerated() { buckets[Self.key(s.coordinate.latitude, s.coordinate.longitude), default: []].append(i) }
    }

    private static func key(_ lat: Double, _ lon: Double) -> Key {
        Key(x: Int32((lon / cellLongitude).rounded(.down)), y: Int32((lat / cellLatitude).rounded(.down)))
    }

    func forEachCandidate(around center: Coordinate, radius: Double, _ body: (Int) -> Void) {
        for box in SearchBox.boxes(around: center, radius: .meters(radius)) {
            let low = Self.key(box.south, box.west), high = Self.key(box.north, box.east)
            if Int64(high.x - low.x + 1) * Int64(high.y - low.y + 1) > Int64(buckets.count) {
                // A huge box: scanning the buckets is cheaper than scanning the cells.
                for (k, list) in buckets where k.x >= low.x && k.x <= high.x && k.y >= low.y && k.y <= high.y {
                    list.forEach(body)
                }
                continue
            }
            for y in low.y...high.y {
                for x in low.x...high.x { buckets[Key(x: x, y: y)]?.forEach(body) }
            }
        }
    }
}
