/// Where a user's money goes, place by place (DESIGN.md §6).
///
/// ```swift
/// let insights = try LocationInsights.compute(
///     InsightsRequest(userID: "user1", from: try Timestamp(parsing: "2025-03-01"), to: try Timestamp(parsing: "2025-03-31")),
///     store: store)
/// for row in insights.places { print(row.place.name ?? row.place.id, row.total.decimalString) }
/// ```
public struct InsightsRequest: Sendable {
    public var userID: String
    /// The window; bare dates are local days, both inclusive. A previous window of equal
    /// length is compared only when both ends are given and of the same form.
    public var from: Timestamp?
    public var to: Timestamp?
    /// Default: expenses only (income and transfers are not spending at a place).
    public var kinds: Set<ExpenseKind>
    public var categories: Set<String>
    public var grouping: PlaceGrouping
    public var limit: Int?
    public var clusterRadius: Distance
    public var clusterMinPoints: Int

    public init(
        userID: String, from: Timestamp? = nil, to: Timestamp? = nil, kinds: Set<ExpenseKind> = [.expense],
        categories: Set<String> = [], grouping: PlaceGrouping = .place, limit: Int? = nil,
        clusterRadius: Distance = .meters(75), clusterMinPoints: Int = 2
    ) {
        self.userID = userID
        self.from = from
        self.to = to
        self.kinds = kinds
        self.categories = categories
        self.grouping = grouping
        self.limit = limit
        self.clusterRadius = clusterRadius
        self.clusterMinPoints = clusterMinPoints
    }

    var filter: ExpenseFilter { ExpenseFilter(userID: userID, from: from, to: to, kinds: kinds, categories: categories) }
}

/// `store`: one row per store (expenses without a store are unplaced); `place`: stores, plus
/// density clusters of the geotagged expenses that have no store.
public enum PlaceGrouping: String, Sendable, CaseIterable { case store, place }

/// A place: a store from the registry, or a cluster of nearby expense positions.
public struct Place: Sendable, Hashable {
    public enum Kind: String, Sendable { case store, cluster }
    public let kind: Kind
    public let id: String
    public let name: String?

    public init(kind: Kind, id: String, name: String?) {
        self.kind = kind
        self.id = id
        self.name = name
    }
}

/// One row of the insights: a place in one currency.
public struct PlaceInsight: Sendable, Hashable {
    public let place: Place
    /// Store: its position. Cluster: the mean of its expenses' positions.
    public let centroid: Coordinate?
    public let currency: Currency
    public let count: Int
    public let total: Money
    /// Mean, rounded half away from zero to the minor unit.
    public let average: Money
    /// Middle amount; for an even count the mean of the two middle ones, rounded half up.
    public let median: Money
    public let min: Money
    public let max: Money
    public let firstVisit: Timestamp
    public let lastVisit: Timestamp
    /// Distinct local calendar days with an expense here.
    public let visitDays: Int
    /// This place's part of the user's placed spending in this currency (0–1).
    public let share: Double
    /// The category with the largest total here (ties by name).
    public let topCategory: String?
    /// Versus the previous window of equal length; nil without a window.
    public let change: WindowChange?
}

public struct WindowChange: Sendable, Hashable {
    public let previousTotal: Money
    public let delta: Money
    /// total / previous total; nil when the previous total is zero.
    public let ratio: Double?

    public init(previousTotal: Money, delta: Money, ratio: Double?) {
        self.previousTotal = previousTotal
        self.delta = delta
        self.ratio = ratio
    }
}

public struct LocationInsights: Sendable {
    public let userID: String
    public let from: Timestamp?
    public let to: Timestamp?
    public let previousFrom: Timestamp?
    public let previousTo: Timestamp?
    /// Per currency (most placed expenses first), then by total descending, ties by place id.
    public let places: [PlaceInsight]
    /// Every matching expense, per currency, placed or not.
    public let totals: [MoneyTotal]
    /// Matching expenses that have neither a store nor (with `place` grouping) a position.
    public let unplaced: [MoneyTotal]

    /// - Complexity: O(n log n) for the n matching expenses, plus clustering.
    public static func compute(_ request: InsightsRequest, store: some ExpenseStore) throws -> LocationInsights {
        let points = try store.spendingPoints(request.filter)
        let (previousFrom, previousTo) = previousWindow(request.from, request.to)

        // Assign places: a store, or the cluster of a storeless position (by point index, so the
        // hot loop hashes one String per point at most).
        var clusterName = [String?](repeating: nil, count: points.count)
        var clustered: [SpendingPoint] = []
        var clusteredNames: [String] = []  // cluster id of each `clustered` point
        if request.grouping == .place {
            let indices = points.indices.filter { points[$0].storeID == nil && points[$0].coordinate != nil }
            clustered = indices.map { points[$0] }
            let clusters = PlaceClusters(
                ids: clustered.map(\.id), coordinates: clustered.map { $0.coordinate! }, radius: request.clusterRadius,
                minPoints: request.clusterMinPoints)
            clusteredNames = clusters.clusterIDs
            for (k, i) in indices.enumerated() { clusterName[i] = clusters.clusterIDs[k] }
        }

        var byPlace: [PlaceKey: [Int]] = [:]
        var totals = MoneyTotals(), unplaced = MoneyTotals(), placed = MoneyTotals()
        for (i, p) in points.enumerated() {
            let money = Money(minorUnits: p.amountMinor, currency: p.currency)
            totals.add(money)
            let key: PlaceKey
            if let s = p.storeID {
                key = PlaceKey(kind: .store, id: s)
            } else if let c = clusterName[i] {
                key = PlaceKey(kind: .cluster, id: c)
            } else {
                unplaced.add(money)
                continue
            }
            byPlace[key, default: []].append(i)
            placed.add(money)
        }
        var groups: [GroupKey: [SpendingPoint]] = [:]
        for (place, indices) in byPlace {
            let first = points[indices[0]].currency
            if indices.allSatisfy({ points[$0].currency == first }) {
                groups[GroupKey(place: place, currency: first)] = indices.map { points[$0] }
            } else {
                for i in indices { groups[GroupKey(place: place, currency: points[i].currency), default: []].append(points[i]) }
            }
        }
        let placedTotal = Dictionary(uniqueKeysWithValues: placed.totals.map { ($0.currency, $0.totalMinor) })

        // Previous window, assigned to the current places: same store, or the cluster of the
        // nearest current member within the cluster radius.
        var previous: [GroupKey: Int64] = [:]
        if let previousFrom, let previousTo {
            var f = request.filter
            f.from = previousFrom
            f.to = previousTo
            let earlier = try store.spendingPoints(f)
            let memberPositions = clustered.map { $0.coordinate! }
            // The grid's scale must cover the earlier points' latitudes too, hence both sets.
            let grid = ClusterGrid(coordinates: memberPositions + earlier.compactMap(\.coordinate), radius: request.clusterRadius.meters)
            var members: [ClusterGrid.Key: [Int]] = [:]
            for (i, c) in memberPositions.enumerated() { members[grid.key(c), default: []].append(i) }
            for p in earlier {
                var key: PlaceKey?
                if let s = p.storeID {
                    key = PlaceKey(kind: .store, id: s)
                } else if let c = p.coordinate, request.grouping == .place {
                    var best: (distance: Double, id: String, index: Int)?
                    grid.forEachNeighbourKey(of: grid.key(c), including: true) { k in
                        for j in members[k] ?? [] where Geodesic.isWithin(c, memberPositions[j], meters: request.clusterRadius.meters) {
                            let d = Geodesic.distance(c, memberPositions[j])
                            if best == nil || (d, clustered[j].id) < (best!.distance, best!.id) { best = (d, clustered[j].id, j) }
                        }
                    }
                    if let best { key = PlaceKey(kind: .cluster, id: clusteredNames[best.index]) }
                }
                if let key { previous[GroupKey(place: key, currency: p.currency), default: 0] += p.amountMinor }
            }
        }

        let storeIDs = Set(groups.keys.filter { $0.place.kind == .store }.map(\.place.id))
        let stores = try store.stores(withIDs: storeIDs)
        var rows: [(key: GroupKey, points: [SpendingPoint], total: Int64)] = groups.map {
            ($0.key, $0.value, $0.value.reduce(0) { $0 + $1.amountMinor })
        }
        // Totals of different currencies are not comparable: rows come per currency (the currency
        // with the most placed expenses first), each by total descending, ties by place id.
        let currencyRank = Dictionary(
            uniqueKeysWithValues: placed.totals.sorted { ($1.count, $0.currency.code) < ($0.count, $1.currency.code) }
                .enumerated().map { ($0.element.currency, $0.offset) })
        rows = rows.map { (currencyRank[$0.key.currency]!, $0) }
            .sorted { a, b in (a.0, b.1.total, a.1.key.place.id) < (b.0, a.1.total, b.1.key.place.id) }
            .map(\.1)
        if let limit = request.limit { rows = Array(rows.prefix(limit)) }

        // First and last visits keep their recorded offsets: fetch those timestamps.
        let visits = rows.map {
            (first: $0.points.min(by: SpendingPoint.chronological)!, last: $0.points.max(by: SpendingPoint.chronological)!)
        }
        let timestamps = try store.timestamps(ofExpenses: Set(visits.flatMap { [$0.first.id, $0.last.id] }))

        let places = zip(rows, visits).map { row, visit -> PlaceInsight in
            let (key, ps) = (row.key, row.points)
            let currency = key.currency
            let stats = AmountStatistics(minorUnits: ps.map(\.amountMinor), currency: currency)
            let total = stats.total
            var byCategory: [String: Int64] = [:]
            for p in ps { if let c = p.category { byCategory[c, default: 0] += p.amountMinor } }
            let top = byCategory.min { ($1.value, $0.key) < ($0.value, $1.key) }?.key
            let centroid: Coordinate?
            if key.place.kind == .store {
                centroid = stores[key.place.id]?.coordinate
            } else {
                centroid = Self.meanPosition(ps.compactMap(\.coordinate))
            }
            let change: WindowChange? = previousFrom == nil ? nil : {
                let before = previous[key, default: 0]
                return WindowChange(
                    previousTotal: Money(minorUnits: before, currency: currency),
                    delta: Money(minorUnits: total.totalMinor - before, currency: currency),
                    ratio: before == 0 ? nil : Double(total.totalMinor) / Double(before))
            }()
            return PlaceInsight(
                place: Place(kind: key.place.kind, id: key.place.id, name: key.place.kind == .store ? stores[key.place.id]?.displayName : nil),
                centroid: centroid, currency: currency, count: ps.count, total: total.total, average: total.average,
                median: stats.median, min: stats.min, max: stats.max,
                firstVisit: timestamps[visit.first.id]!, lastVisit: timestamps[visit.last.id]!,
                visitDays: Set(ps.map(\.localDate)).count,
                share: Double(total.totalMinor) / Double(placedTotal[currency]!),
                topCategory: top, change: change)
        }
        return LocationInsights(
            userID: request.userID, from: request.from, to: request.to, previousFrom: previousFrom, previousTo: previousTo,
            places: places, totals: totals.totals, unplaced: unplaced.totals)
    }

    private struct PlaceKey: Hashable {
        let kind: Place.Kind
        let id: String
    }

    private struct GroupKey: Hashable {
        let place: PlaceKey
        let currency: Currency
    }

    /// Mean latitude and longitude, longitudes unwrapped around the first point (clusters are
    /// at most a few hundred metres wide, so this is the centroid to well under a millimetre).
    static func meanPosition(_ cs: [Coordinate]) -> Coordinate? {
        guard let first = cs.first else { return nil }
        var lat = 0.0, lon = 0.0
        for c in cs {
            lat += c.latitude
            var d = c.longitude - first.longitude
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            lon += first.longitude + d
        }
        lat /= Double(cs.count)
        lon /= Double(cs.count)
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return Coordinate(uncheckedLatitude: lat, longitude: lon)
    }

    /// The window of equal length just before [from, to]: bare dates by whole days (both
    /// inclusive), instants by milliseconds (`to` exclusive). Nil unless both ends are of one form.
    public static func previousWindow(_ from: Timestamp?, _ to: Timestamp?) -> (Timestamp?, Timestamp?) {
        guard let from, let to, from.isDateOnly == to.isDateOnly else { return (nil, nil) }
        if from.isDateOnly {
            let f = Timestamp.days(of: from.localDate), t = Timestamp.days(of: to.localDate)
            guard t >= f else { return (nil, nil) }
            let length = t - f + 1
            return (Timestamp(localDay: f - length), Timestamp(localDay: f - 1))
        }
        let length = to.epochMilliseconds - from.epochMilliseconds
        guard length > 0 else { return (nil, nil) }
        let offset = from.utcOffsetMinutes ?? 0
        return (
            Timestamp(epochSeconds: (from.epochMilliseconds - length) / 1000, utcOffsetMinutes: offset), from
        )
    }
}

extension Timestamp {
    /// Days since 1970-01-01 of a `YYYY-MM-DD` text (already validated).
    static func days(of date: String) -> Int64 {
        let parts = date.split(separator: "-").map { Int($0)! }
        return daysFromCivil(year: parts[0], month: parts[1], day: parts[2])
    }

    /// A bare local date from a day count since 1970-01-01.
    init(localDay days: Int64) {
        let (y, m, d) = Timestamp.civilFromDays(days)
        let date = "\(Timestamp.pad(y, 4))-\(Timestamp.pad(m, 2))-\(Timestamp.pad(d, 2))"
        self.init(text: date, epochMilliseconds: days * 86_400_000, utcOffsetMinutes: nil, localDate: date)
    }
}
