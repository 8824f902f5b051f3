import Foundation

/// Map rollups: per-cell aggregates of the geotagged expenses — count and exact total per
/// (cell, user, kind, currency) — that a store keeps inside the same transaction as every write
/// that adds, changes or removes a positioned expense, so the H3 grid layer and the tiles' heat
/// layer read O(rows of the rollup) instead of every expense (docs/ROLLUPS.md).
///
/// A cell's users are its rows, which is what `--min-users` and complementary suppression need;
/// kind and currency are keys so that a kind or currency filter is answered too.
public enum MapRollup {
    /// A grid the rollups keep: H3 at one resolution, or the Web Mercator quadtree at one level.
    public struct Level: Sendable, Hashable, CustomStringConvertible {
        public enum Grid: String, Sendable { case h3, tile }
        public let grid: Grid
        public let level: Int

        public static func h3(_ resolution: Int) -> Level { Level(grid: .h3, level: resolution) }
        /// The tiles' quadtree at its finest kept level.
        public static let tiles = Level(grid: .tile, level: MapRollup.tileLevel)
        public var description: String { "\(grid.rawValue) \(level)" }
    }

    /// H3 does not nest exactly (a point's cell at r + 1 can have a parent other than its cell at
    /// r), so each resolution is its own rollup. 5 (~250 km² cells, a region) to 10 (~0.015 km²,
    /// a block) are the city-to-country maps the layers are made for; the others scan.
    public static let h3Resolutions = 5...10
    /// The quadtree nests exactly: one finest level serves every coarser one. 22 = the highest
    /// `--max-zoom` (16) + the heat layer's 6 cell levels, so every tiles export can use it.
    public static let tileLevel = 22
    public static let levels: [Level] = h3Resolutions.map(Level.h3) + [.tiles]

    /// The cell of a position at `level`, computed as the layers compute it: an H3 index as in
    /// `MetricGrid.cell`, or a quadtree cell (`WebMercator.cell`) as y << 32 | x.
    public static func cell(latitude: Double, longitude: Double, at level: Level) -> Int64 {
        switch level.grid {
        case .h3:
            return Int64(bitPattern: H3.cell(latitude: latitude * .pi / 180, longitude: longitude * .pi / 180, res: level.level).bits)
        case .tile:
            let c = WebMercator.cell(latitude: latitude, longitude: longitude, level: level.level)
            return Int64(c.y) << 32 | Int64(c.x)
        }
    }

    /// The cell of a position at `level`, as `cell(…)` gives it bit for bit, reusing the point's
    /// H3 face projection (`polar`, made on first need) across resolutions: one projection for
    /// the six kept, not six.
    static func cell(latitude: Double, longitude: Double, at level: Level, polar: inout H3Face.Polar?) -> Int64 {
        guard level.grid == .h3 else { return cell(latitude: latitude, longitude: longitude, at: level) }
        let p = polar ?? H3Face.polar(latitude: latitude * .pi / 180, longitude: longitude * .pi / 180)
        polar = p
        return Int64(bitPattern: H3.cell(p, res: level.level).bits)
    }

    /// The place of a level in `levels` (a kept level; H3 resolutions first, in order).
    static func levelIndex(_ level: Level) -> UInt8 {
        assert(levels.contains(level), "\(level) is not a kept level")
        return UInt8(level.grid == .h3 ? level.level - h3Resolutions.lowerBound : h3Resolutions.count)
    }

    /// A stored row as the layers read it.
    public struct Row: Sendable {
        public let cell: Int64
        public let userKey: UInt64
        public let currencyKey: UInt32
        public let count: Int
        public let totalMinor: Int64

        public init(cell: Int64, userKey: UInt64, currencyKey: UInt32, count: Int, totalMinor: Int64) {
            self.cell = cell
            self.userKey = userKey
            self.currencyKey = currencyKey
            self.count = count
            self.totalMinor = totalMinor
        }
    }

    /// A row of the cells' rollups (`map_cell_rollups`): one cell, kind and currency summed over
    /// every user, with the number of distinct users there, so an all-users layer reads O(cells).
    /// Who those users are is listed only where suppression needs it: when they are fewer than
    /// the layer's `--min-users`, complementary suppression takes the union of hidden cells'
    /// users, which a count cannot give; a cell that reaches the threshold needs no names.
    public struct CellRow: Sendable {
        public let cell: Int64
        public let currencyKey: UInt32
        public let count: Int
        public let totalMinor: Int64
        public let users: Int
        /// The users' keys (`LocatedAmount.userKey`) when `users` is below the threshold asked for, else empty.
        public let userKeys: [UInt64]

        public init(cell: Int64, currencyKey: UInt32, count: Int, totalMinor: Int64, users: Int, userKeys: [UInt64]) {
            self.cell = cell
            self.currencyKey = currencyKey
            self.count = count
            self.totalMinor = totalMinor
            self.users = users
            self.userKeys = userKeys
        }
    }

    /// A row's key.
    public struct Key: Sendable, Hashable {
        public let level: Level
        public let cell: Int64
        public let userID: String
        public let kind: String
        public let currency: String

        public init(level: Level, cell: Int64, userID: String, kind: String, currency: String) {
            self.level = level
            self.cell = cell
            self.userID = userID
            self.kind = kind
            self.currency = currency
        }
    }

    /// A count and an exact total.
    public struct Sums: Sendable, Hashable {
        public var count: Int64
        public var totalMinor: Int64

        public init(count: Int64, totalMinor: Int64) {
            self.count = count
            self.totalMinor = totalMinor
        }

        mutating func add(count: Int64, totalMinor: Int64) {
            self.count += count
            self.totalMinor += totalMinor
        }
    }

    /// What a write does to the rollups, summed per key before it is stored (an import's 4,096
    /// rows in one city are a few hundred rows at the coarse levels). Keyed by integers: the
    /// (user, kind, currency) of an expense is interned once, not hashed as three strings at
    /// each of the seven levels (a String-keyed dictionary was 21 % of an import's samples, perf).
    public struct Changes: Sendable {
        /// An interned (user, kind, currency).
        struct Owner: Hashable, Sendable {
            let userID: String
            let kind: String
            let currency: String
        }

        /// A row's key as integers: the level's index in `MapRollup.levels`, the owner's number.
        struct Slot: Hashable, Sendable {
            let cell: Int64
            let owner: UInt32
            let level: UInt8
        }

        private var owners: [Owner: UInt32] = [:]
        private var ownerList: [Owner] = []
        private var slots: [Slot: Sums] = [:]

        public init() {}

        public var isEmpty: Bool { slots.isEmpty }
        /// Rows held (the bulk writer stores them past a bound).
        public var count: Int { slots.count }

        /// Every key with its sums (cancelled ones included).
        public var sums: [Key: Sums] {
            Dictionary(uniqueKeysWithValues: slots.map { (key($0.key), $0.value) })
        }

        private func key(_ slot: Slot) -> Key { Self.key(slot, ownerList) }

        fileprivate static func key(_ slot: Slot, _ owners: [Owner]) -> Key {
            let o = owners[Int(slot.owner)]
            return Key(level: MapRollup.levels[Int(slot.level)], cell: slot.cell, userID: o.userID, kind: o.kind, currency: o.currency)
        }

        private mutating func owner(_ o: Owner) -> UInt32 {
            if let n = owners[o] { return n }
            let n = UInt32(ownerList.count)
            owners[o] = n
            ownerList.append(o)
            return n
        }

        private mutating func add(_ slot: Slot, count: Int64, totalMinor: Int64) {
            slots[slot, default: Sums(count: 0, totalMinor: 0)].add(count: count, totalMinor: totalMinor)
        }

        /// Counts an expense in (`sign` 1) or out (−1) at every level (or at `levels`).
        public mutating func add(
            userID: String, kind: String, currency: String, latitude: Double, longitude: Double, amountMinor: Int64, sign: Int64,
            levels: [Level] = MapRollup.levels
        ) {
            let o = owner(Owner(userID: userID, kind: kind, currency: currency))
            var polar: H3Face.Polar?
            for level in levels {
                let cell = MapRollup.cell(latitude: latitude, longitude: longitude, at: level, polar: &polar)
                add(Slot(cell: cell, owner: o, level: MapRollup.levelIndex(level)), count: sign, totalMinor: sign * amountMinor)
            }
        }

        public mutating func add(_ key: Key, _ change: Sums) {
            let o = owner(Owner(userID: key.userID, kind: key.kind, currency: key.currency))
            add(Slot(cell: key.cell, owner: o, level: MapRollup.levelIndex(key.level)), count: change.count, totalMinor: change.totalMinor)
        }

        /// Counts an expense in or out (nothing when it has no position).
        public mutating func add(_ expense: Expense, sign: Int64) {
            guard let c = expense.location?.coordinate else { return }
            add(userID: expense.userID, kind: expense.kind.rawValue, currency: expense.amount.currency.code,
                latitude: c.latitude, longitude: c.longitude, amountMinor: expense.amount.minorUnits, sign: sign)
        }

        /// The changes in the table's key order — grid, level, cell, then user, kind and currency
        /// compared as SQLite compares text (bytes) — none that cancel out. In key order a B-tree
        /// takes each row on the leaf it just wrote, and the rows of one cell come together, so the
        /// bulk writer sums a cell's users as they pass (`MapRollupStorage.applyKeepingCells`).
        /// Sorted as integers: sorting the keys themselves (three strings each, copied per
        /// comparison and move) was a fifth of an import's samples (perf); the owners, a few per
        /// user, are ranked once. Sendable, so the sort can run on another thread than the store.
        public func sorted() -> Sorted {
            var rank = [UInt32](repeating: 0, count: ownerList.count)
            let byBytes = ownerList.indices.sorted { a, b in
                let (x, y) = (ownerList[a], ownerList[b])
                if x.userID != y.userID { return x.userID.utf8.lexicographicallyPrecedes(y.userID.utf8) }
                if x.kind != y.kind { return x.kind.utf8.lexicographicallyPrecedes(y.kind.utf8) }
                return x.currency.utf8.lexicographicallyPrecedes(y.currency.utf8)
            }
            for (n, owner) in byBytes.enumerated() { rank[owner] = UInt32(n) }
            var kept: [(slot: Slot, sums: Sums)] = []
            kept.reserveCapacity(slots.count)
            for (slot, sums) in slots where sums.count != 0 || sums.totalMinor != 0 { kept.append((slot, sums)) }
            // `levels` lists the H3 resolutions in order, then the quadtree: the index is the place.
            kept.sort { ($0.slot.level, $0.slot.cell, rank[Int($0.slot.owner)]) < ($1.slot.level, $1.slot.cell, rank[Int($1.slot.owner)]) }
            return Sorted(rows: kept, owners: ownerList)
        }

        /// `sorted()`'s changes in key order, their keys made one at a time as they are read (a
        /// million keys' strings are never held at once).
        public struct Sorted: Sendable, Sequence {
            fileprivate let rows: [(slot: Slot, sums: Sums)]
            fileprivate let owners: [Owner]

            public var isEmpty: Bool { rows.isEmpty }

            public func makeIterator() -> Iterator { Iterator(rows: rows.makeIterator(), owners: owners) }

            public struct Iterator: IteratorProtocol {
                fileprivate var rows: IndexingIterator<[(slot: Slot, sums: Sums)]>
                fileprivate let owners: [Owner]

                public mutating func next() -> (key: Key, sums: Sums)? {
                    guard let (slot, sums) = rows.next() else { return nil }
                    return (Changes.key(slot, owners), sums)
                }
            }
        }
    }

    /// Whether the rollups answer a map request exactly: they are keyed by user, kind and
    /// currency only, so a time window, categories, stores, a period or a mask (which drops
    /// positions) need the expenses themselves. `GEOSPEND_MAP_ROLLUPS=scan` (tests, benchmarks)
    /// makes every layer scan.
    public static func answers(_ request: MapExportRequest) -> Bool {
        let f = request.filter
        return f.from == nil && f.to == nil && f.categories.isEmpty && f.storeIDs.isEmpty && f.period == nil
            && request.privacy.masks.isEmpty && ProcessInfo.processInfo.environment["GEOSPEND_MAP_ROLLUPS"] != "scan"
    }
}
