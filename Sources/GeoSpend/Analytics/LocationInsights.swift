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
        let (previousFrom, previousTo) = previousWindow(request.from, request.to)

        // Everything below groups by small integers, not by strings: each point gets a currency
        // slot and a place number (stores first, then clusters), each (place, currency) a group.
        // Hashing a String key per point and copying points into per-group arrays was most of
        // the time for a heavy user. Points are numbered as they arrive, while the next ones are
        // read on a second thread (the read is half the work), and what the sums below need is
        // copied into flat arrays, which are cheaper to walk than the points.
        var points: [SpendingPoint] = []
        var amountOf: [Int64] = [], millisecondsOf: [Int64] = [], dayOf: [Int32] = [], categoryOf: [Int32] = []
        var categories = CategoryNumbers()
        var currencies: [Currency] = []
        var currencyOf: [Int] = []
        var storeNumber: [String: Int32] = [:]
        var placeIDs: [String] = []  // by place number
        var placeOf: [Int32] = []
        var clustered: [Int] = []  // the points to cluster: positions without a store
        var clusteredIDs: [String] = [], clusteredPositions: [Coordinate] = []
        try store.forEachSpendingPointReadAhead(request.filter, geotaggedOnly: false) { p in
            if let k = currencies.firstIndex(where: { $0.code == p.currency.code }) {
                currencyOf.append(k)
            } else {
                currencyOf.append(currencies.count)
                currencies.append(p.currency)
            }
            if let s = p.storeID {
                if let k = storeNumber[s] {
                    placeOf.append(k)
                } else {
                    storeNumber[s] = Int32(placeIDs.count)
                    placeOf.append(Int32(placeIDs.count))
                    placeIDs.append(s)
                }
            } else {
                placeOf.append(-1)
                if request.grouping == .place, let c = p.coordinate {
                    clustered.append(points.count)
                    clusteredIDs.append(p.id)
                    clusteredPositions.append(c)
                }
            }
            amountOf.append(p.amountMinor)
            millisecondsOf.append(p.occurredMilliseconds)
            dayOf.append(Int32(truncatingIfNeeded: p.localDayNumber))
            categoryOf.append(p.category.map { Int32(categories.number($0)) } ?? -1)
            points.append(p)
        }
        let storeCount = placeIDs.count
        // Store names and positions are looked up on a second thread while clusters form.
        let storeIDs = Set(placeIDs)
        let storesLookup = BackgroundWork { try store.stores(withIDs: storeIDs) }
        if request.grouping == .place {
            let clusters = PlaceClusters(
                ids: clusteredIDs, coordinates: clusteredPositions, radius: request.clusterRadius,
                minPoints: request.clusterMinPoints)
            for (k, i) in clustered.enumerated() { placeOf[i] = Int32(storeCount) + clusters.clusterOf[k] }
            placeIDs += clusters.names
        }

        var groupOfKey: [Int: Int32] = [:]
        var groups: [Group] = []
        var groupOf = [Int32](repeating: -1, count: points.count)
        var totals = currencies.map { MoneyTotal(currency: $0) }
        var unplaced = totals, placed = totals
        for i in points.indices {
            let currency = currencyOf[i], amount = amountOf[i]
            totals[currency].add(amount)
            let place = placeOf[i]
            guard place >= 0 else {
                unplaced[currency].add(amount)
                continue
            }
            placed[currency].add(amount)
            let key = Int(place) * currencies.count + currency
            let g: Int32
            if let known = groupOfKey[key] {
                g = known
            } else {
                g = Int32(groups.count)
                groupOfKey[key] = g
                groups.append(Group(place: Int(place), currency: currency))
            }
            groupOf[i] = g
            groups[Int(g)].count += 1
            groups[Int(g)].totalMinor += amount
        }
        // Each group's points, contiguous (a counting sort by group).
        var start = [Int](repeating: 0, count: groups.count + 1)
        for (g, group) in groups.enumerated() { start[g + 1] = start[g] + group.count }
        var members = [Int](repeating: 0, count: start[groups.count])
        var fill = start
        for (i, g) in groupOf.enumerated() where g >= 0 {
            members[fill[Int(g)]] = i
            fill[Int(g)] += 1
        }

        // Previous window, assigned to the current places: same store, or the cluster of the
        // nearest current member within the cluster radius.
        var previousTotal = [Int64](repeating: 0, count: groups.count)
        if let previousFrom, let previousTo {
            var f = request.filter
            f.from = previousFrom
            f.to = previousTo
            let earlier = try store.spendingPoints(f)
            let memberPositions = clusteredPositions
            // The grid's scale must cover the earlier points' latitudes too, hence both sets.
            let grid = ClusterGrid(coordinates: memberPositions + earlier.compactMap(\.coordinate), radius: request.clusterRadius.meters)
            var cellMembers: [ClusterGrid.Key: [Int]] = [:]
            for (k, c) in memberPositions.enumerated() { cellMembers[grid.key(c), default: []].append(k) }
            for p in earlier {
                var place: Int32?
                if let s = p.storeID {
                    place = storeNumber[s]
                } else if let c = p.coordinate, request.grouping == .place {
                    var best: (distance: Double, id: String, index: Int)?
                    grid.forEachNeighbourKey(of: grid.key(c), including: true) { key in
                        for k in cellMembers[key] ?? [] where Geodesic.isWithin(c, memberPositions[k], meters: request.clusterRadius.meters) {
                            let d = Geodesic.distance(c, memberPositions[k])
                            let id = clusteredIDs[k]
                            if best == nil || (d, id) < (best!.distance, best!.id) { best = (d, id, k) }
                        }
                    }
                    if let best { place = placeOf[clustered[best.index]] }
                }
                guard let place, let currency = currencies.firstIndex(where: { $0.code == p.currency.code }),
                    let g = groupOfKey[Int(place) * currencies.count + currency]
                else { continue }
                previousTotal[Int(g)] += p.amountMinor
            }
        }

        // Totals of different currencies are not comparable: rows come per currency (the currency
        // with the most placed expenses first), each by total descending, ties by place id.
        var currencyRank = [Int](repeating: 0, count: currencies.count)
        for (rank, k) in currencies.indices.sorted(by: {
            (placed[$1].count, currencies[$0].code) < (placed[$0].count, currencies[$1].code)
        }).enumerated() { currencyRank[k] = rank }
        var rows = groups.indices.sorted { a, b in
            let (x, y) = (groups[a], groups[b])
            if currencyRank[x.currency] != currencyRank[y.currency] { return currencyRank[x.currency] < currencyRank[y.currency] }
            if x.totalMinor != y.totalMinor { return x.totalMinor > y.totalMinor }
            return placeIDs[x.place] < placeIDs[y.place]
        }
        if let limit = request.limit { rows = Array(rows.prefix(limit)) }

        // First and last visits keep their recorded offsets: fetch those timestamps. `earlier` is
        // SpendingPoint.chronological on the flat instants.
        func earlier(_ a: Int, _ b: Int) -> Bool {
            let (x, y) = (millisecondsOf[a], millisecondsOf[b])
            return x != y ? x < y : points[a].id < points[b].id
        }
        let visits = rows.map { g -> (first: Int, last: Int) in
            var first = members[start[g]], last = first
            for i in members[start[g]..<start[g + 1]] {
                if earlier(i, first) { first = i }
                if earlier(last, i) { last = i }
            }
            return (first, last)
        }
        // Looked up on a second thread while the figures are worked out.
        let visitIDs = Set(visits.flatMap { [points[$0.first].id, points[$0.last].id] })
        let timestampsLookup = BackgroundWork { try store.timestamps(ofExpenses: visitIDs) }

        var categoryTotals = [Int64](repeating: 0, count: categories.names.count)
        var visitDays = DistinctDays()
        let figures = rows.map { g -> PlaceFigures in
            let group = groups[g]
            let currency = currencies[group.currency]
            let mine = members[start[g]..<start[g + 1]]
            let stats = AmountStatistics(minorUnits: mine.map { amountOf[$0] }, currency: currency)
            for k in categoryTotals.indices { categoryTotals[k] = 0 }
            for i in mine where categoryOf[i] >= 0 { categoryTotals[Int(categoryOf[i])] += amountOf[i] }
            // The largest total, ties by name.
            let top = categoryTotals.indices.filter { categoryTotals[$0] > 0 }
                .min { (categoryTotals[$1], categories.names[$0]) < (categoryTotals[$0], categories.names[$1]) }
                .map { categories.names[$0] }
            let change: WindowChange? = previousFrom == nil ? nil : {
                let before = previousTotal[g]
                return WindowChange(
                    previousTotal: Money(minorUnits: before, currency: currency),
                    delta: Money(minorUnits: group.totalMinor - before, currency: currency),
                    ratio: before == 0 ? nil : Double(group.totalMinor) / Double(before))
            }()
            let isCluster = group.place >= storeCount
            return PlaceFigures(
                stats: stats, visitDays: visitDays.count(mine, dayOf), topCategory: top, change: change,
                centroid: isCluster ? Self.meanPosition(mine.map { points[$0].coordinate! }) : nil)
        }
        let stores = try storesLookup.value()
        let timestamps = try timestampsLookup.value()
        let places = zip(rows, zip(figures, visits)).map { g, figuresAndVisit -> PlaceInsight in
            let (f, visit) = figuresAndVisit
            let group = groups[g]
            let isStore = group.place < storeCount
            let id = placeIDs[group.place]
            return PlaceInsight(
                place: Place(kind: isStore ? .store : .cluster, id: id, name: isStore ? stores[id]?.displayName : nil),
                centroid: isStore ? stores[id]?.coordinate : f.centroid,
                currency: f.stats.total.currency, count: group.count, total: f.stats.total.total, average: f.stats.total.average,
                median: f.stats.median, min: f.stats.min, max: f.stats.max,
                firstVisit: timestamps[points[visit.first].id]!, lastVisit: timestamps[points[visit.last].id]!,
                visitDays: f.visitDays, share: Double(group.totalMinor) / Double(placed[group.currency].totalMinor),
                topCategory: f.topCategory, change: f.change)
        }
        func sorted(_ ts: [MoneyTotal]) -> [MoneyTotal] { ts.filter { $0.count > 0 }.sorted { $0.currency < $1.currency } }
        return LocationInsights(
            userID: request.userID, from: request.from, to: request.to, previousFrom: previousFrom, previousTo: previousTo,
            places: places, totals: sorted(totals), unplaced: sorted(unplaced))
    }

    /// A row's figures, before the store and timestamp lookups are joined in.
    private struct PlaceFigures {
        let stats: AmountStatistics
        let visitDays: Int
        let topCategory: String?
        let change: WindowChange?
        let centroid: Coordinate?
    }

    /// A place in one currency, while it is being summed.
    private struct Group {
        let place: Int
        let currency: Int
        var count = 0
        var totalMinor: Int64 = 0
    }

    /// Counts distinct day numbers with a bit per day over their range (sorting every group's
    /// days was a fifth of the figures' time); a sort when the range is too long for bits.
    private struct DistinctDays {
        private var bits: [UInt64] = []

        /// Distinct `dayOf[i]` for the `members`.
        mutating func count(_ members: ArraySlice<Int>, _ dayOf: [Int32]) -> Int {
            var low = Int32.max, high = Int32.min
            for i in members {
                low = min(low, dayOf[i])
                high = max(high, dayOf[i])
            }
            guard low <= high else { return 0 }
            let words = Int(high - low) / 64 + 1
            guard words <= 1 << 12 else { return Set(members.map { dayOf[$0] }).count }  // over 700 years apart
            if bits.count < words { bits = [UInt64](repeating: 0, count: words) }
            for i in members {
                let d = Int(dayOf[i] - low)
                bits[d >> 6] |= 1 << UInt64(d & 63)
            }
            var n = 0
            for w in 0..<words {
                n += bits[w].nonzeroBitCount
                bits[w] = 0
            }
            return n
        }
    }

    /// Category names numbered on first sight. A user has a handful: comparing small strings in a
    /// short list is cheaper than hashing one per expense.
    private struct CategoryNumbers {
        private(set) var names: [String] = []
        private var more: [String: Int] = [:]

        mutating func number(_ name: String) -> Int {
            if let k = names.prefix(16).firstIndex(of: name) { return k }
            if let k = more[name] { return k }
            names.append(name)
            if names.count > 16 { more[name] = names.count - 1 }
            return names.count - 1
        }
    }

    /// Mean latitude and longitude, longitudes unwrapped around the first point (clusters are
    /// at most a few hundred metres wide, so this is the centroid to well under a millimetre).
    /// Summed in whole nanodegrees (about 0.1 mm), exactly: the mean does not depend on the
    /// order the store returns rows in, as a floating-point sum would in its last digits.
    static func meanPosition(_ cs: [Coordinate]) -> Coordinate? {
        guard let first = cs.first else { return nil }
        func nano(_ degrees: Double) -> Int64 { Int64((degrees * 1e9).rounded()) }
        var lat: Int64 = 0, lon: Int64 = 0
        for c in cs {
            lat += nano(c.latitude)
            let d = c.longitude - first.longitude
            lon += nano(c.longitude) + (d > 180 ? -360_000_000_000 : d < -180 ? 360_000_000_000 : 0)
        }
        let n = Double(cs.count)
        var meanLon = Double(lon) / 1e9 / n
        if meanLon > 180 { meanLon -= 360 } else if meanLon < -180 { meanLon += 360 }
        return Coordinate(uncheckedLatitude: Double(lat) / 1e9 / n, longitude: meanLon)
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
