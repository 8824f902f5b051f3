/// Where a user's money goes, place by place (docs/DOMAIN.md § Places and location insights).
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
    /// Only the expenses assigned to the user's period with this id (the previous window too).
    public var period: Int64?

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

    var filter: ExpenseFilter {
        ExpenseFilter(userID: userID, from: from, to: to, kinds: kinds, categories: categories, period: period)
    }
}

/// Why insights could not be computed.
public enum InsightsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An expense read for the insights was gone when its visit time was looked up: the
    /// reader's scope was not one snapshot, as `ExpenseStore.read` promises.
    case expenseDeletedDuringRead(String)

    public var description: String {
        switch self {
        case .expenseDeletedDuringRead(let id): "expense \"\(id)\" was deleted while the insights were computed; run them again"
        }
    }
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
    public static func compute(_ request: InsightsRequest, store: some ExpenseStore) async throws -> LocationInsights {
        try await store.read { try compute(request, reader: $0) }
    }

    /// `compute` inside a read scope.
    public static func compute(_ request: InsightsRequest, reader store: some ExpenseReader) throws -> LocationInsights {
        let (previousFrom, previousTo) = previousWindow(request.from, request.to)

        // Everything below groups by small integers, not by strings: the store numbers the
        // currencies, stores and categories of the rows it reads as columns; each row gets a
        // place number (stores first, then clusters) and each (place, currency) a group.
        // Hashing a String key per expense and copying expenses into per-group arrays was most
        // of the time for a heavy user.
        let rows = try store.spendingColumns(request.filter)
        let storeCount = rows.storeIDs.count
        var groups = PlaceGroups(rows: rows, placeCount: storeCount)
        for i in 0..<rows.count where rows.storeNumber[i] >= 0 { groups.add(i, place: rows.storeNumber[i]) }
        // Visit instants come with the rows when the store read them; else they are looked up.
        let storeVisits = rows.hasTimestamps ? [] : groups.visitIDs(of: 0..<groups.count)

        var placeOf = rows.storeNumber
        var placeIDs = rows.storeIDs  // by place number
        var clustered: [Int] = []  // the rows to cluster: positions without a store
        if request.grouping == .place {
            for i in 0..<rows.count where placeOf[i] < 0 && !rows.latitude[i].isNaN { clustered.append(i) }
        }
        let clusteredPositions = clustered.map { rows.coordinate($0)! }
        let clusteredIDs = clustered.map { rows.id($0) }
        let firstClusterGroup = groups.count
        if request.grouping == .place {
            let clusters = PlaceClusters(
                ids: clusteredIDs, coordinates: clusteredPositions, radius: request.clusterRadius,
                minPoints: request.clusterMinPoints)
            groups.addPlaces(clusters.names.count)
            for (k, i) in clustered.enumerated() {
                placeOf[i] = Int32(storeCount) + clusters.clusterOf[k]
                groups.add(i, place: placeOf[i])
            }
            placeIDs += clusters.names
        }
        let clusterVisits = rows.hasTimestamps ? [] : groups.visitIDs(of: firstClusterGroup..<groups.count)

        let currencies = rows.currencies, categories = rows.categories, amountOf = rows.amountMinor, categoryOf = rows.categoryNumber
        let dayOf = (0..<rows.count).map { Int32(truncatingIfNeeded: rows.localDayNumber($0)) }
        var totals = currencies.map { MoneyTotal(currency: $0) }
        var unplaced = totals, placed = totals
        for i in 0..<rows.count {
            let currency = Int(rows.currencyNumber[i])
            totals[currency].add(amountOf[i])
            if placeOf[i] >= 0 { placed[currency].add(amountOf[i]) } else { unplaced[currency].add(amountOf[i]) }
        }
        let (start, members) = groups.members()

        // Previous window, assigned to the current places: same store, or the cluster of the
        // nearest current member within the cluster radius.
        var previousTotal = [Int64](repeating: 0, count: groups.count)
        if let previousFrom, let previousTo {
            var f = request.filter
            f.from = previousFrom
            f.to = previousTo
            let earlier = try store.spendingColumns(f)
            let memberPositions = clusteredPositions
            // The grid's scale must cover the earlier points' latitudes too, hence both sets.
            let grid = ClusterGrid(
                coordinates: memberPositions + (0..<earlier.count).compactMap(earlier.coordinate), radius: request.clusterRadius.meters)
            var cellMembers: [ClusterGrid.Key: [Int]] = [:]
            for (k, c) in memberPositions.enumerated() { cellMembers[grid.key(c), default: []].append(k) }
            // Both reads number stores and currencies in their own order of first sight.
            // Keyed by UTF-8 bytes, as the store numbers them: two ids equal as Swift strings
            // (é composed and decomposed) are two stores there.
            let placeOfStoreID = Dictionary(zip(rows.storeIDs.map { Array($0.utf8) }, Int32(0)...), uniquingKeysWith: { a, _ in a })
            let storePlace = earlier.storeIDs.map { placeOfStoreID[Array($0.utf8)] }
            let currencyOfEarlier = earlier.currencies.map { currencies.firstIndex(of: $0) }
            for i in 0..<earlier.count {
                var place: Int32?
                if earlier.storeNumber[i] >= 0 {
                    place = storePlace[Int(earlier.storeNumber[i])]
                } else if let c = earlier.coordinate(i), request.grouping == .place {
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
                guard let place, let currency = currencyOfEarlier[Int(earlier.currencyNumber[i])],
                    let g = groups.group(place: place, currency: currency)
                else { continue }
                previousTotal[Int(g)] += earlier.amountMinor[i]
            }
        }

        // Totals of different currencies are not comparable: rows come per currency (the currency
        // with the most placed expenses first), each by total descending, ties by place id.
        var currencyRank = [Int](repeating: 0, count: currencies.count)
        for (rank, k) in currencies.indices.sorted(by: {
            (placed[$1].count, currencies[$0].code) < (placed[$0].count, currencies[$1].code)
        }).enumerated() { currencyRank[k] = rank }
        var order = groups.all.indices.sorted { a, b in
            let (x, y) = (groups.all[a], groups.all[b])
            if currencyRank[x.currency] != currencyRank[y.currency] { return currencyRank[x.currency] < currencyRank[y.currency] }
            if x.totalMinor != y.totalMinor { return x.totalMinor > y.totalMinor }
            return placeIDs[x.place] < placeIDs[y.place]
        }
        if let limit = request.limit { order = Array(order.prefix(limit)) }

        var categoryTotals = [Int64](repeating: 0, count: categories.count)
        var visitDays = DistinctDays()
        let figures = order.map { g -> PlaceFigures in
            let group = groups.all[g]
            let currency = currencies[group.currency]
            let mine = members[start[g]..<start[g + 1]]
            let stats = AmountStatistics(minorUnits: mine.map { amountOf[$0] }, currency: currency)
            for k in categoryTotals.indices { categoryTotals[k] = 0 }
            for i in mine where categoryOf[i] >= 0 { categoryTotals[Int(categoryOf[i])] += amountOf[i] }
            // The largest total, ties by name.
            let top = categoryTotals.indices.filter { categoryTotals[$0] > 0 }
                .min { (categoryTotals[$1], categories[$0]) < (categoryTotals[$0], categories[$1]) }
                .map { categories[$0] }
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
                centroid: isCluster ? Self.meanPosition(mine.map { rows.coordinate($0)! }) : nil)
        }
        // Store names and positions, and the instants of first and last visits (they keep their
        // recorded offsets), in the same snapshot as the rows.
        let stores = try store.storeLabels(rows.storeIDs)  // by store number
        let storeTimestamps = storeVisits.isEmpty ? [:] : try store.timestamps(ofExpenses: storeVisits, userID: request.userID)
        let clusterTimestamps = clusterVisits.isEmpty ? [:] : try store.timestamps(ofExpenses: clusterVisits, userID: request.userID)
        let places = try zip(order, figures).map { g, f -> PlaceInsight in
            let group = groups.all[g]
            let timestamps = g < firstClusterGroup ? storeTimestamps : clusterTimestamps
            func visit(_ row: Int) throws -> Timestamp {
                if let t = rows.timestamp(row) { return t }
                guard let t = timestamps[rows.id(row)] else { throw InsightsError.expenseDeletedDuringRead(rows.id(row)) }
                return t
            }
            let isStore = group.place < storeCount
            let id = placeIDs[group.place]
            return PlaceInsight(
                place: Place(kind: isStore ? .store : .cluster, id: id, name: isStore ? stores[group.place]?.name : nil),
                centroid: isStore ? stores[group.place]?.coordinate : f.centroid,
                currency: f.stats.total.currency, count: group.count, total: f.stats.total.total, average: f.stats.total.average,
                median: f.stats.median, min: f.stats.min, max: f.stats.max,
                firstVisit: try visit(group.first), lastVisit: try visit(group.last),
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
        /// Rows of the first and last visits (`SpendingColumns.isEarlier`).
        var first: Int, last: Int
    }

    /// The (place, currency) groups of the rows, numbered as they are first met: the stores'
    /// first, then, once clustering has numbered them, the clusters'.
    private struct PlaceGroups {
        let rows: SpendingColumns
        private(set) var all: [Group] = []
        /// Each row's group; -1 for rows with no place.
        private var groupOf: [Int32]
        /// The group of place p in currency c at `p * currencies + c`; -1 for none yet.
        private var groupOfKey: [Int32]
        private let currencies: Int

        init(rows: SpendingColumns, placeCount: Int) {
            self.rows = rows
            currencies = rows.currencies.count
            groupOf = [Int32](repeating: -1, count: rows.count)
            groupOfKey = [Int32](repeating: -1, count: placeCount * currencies)
        }

        var count: Int { all.count }

        /// Makes room for `n` more places.
        mutating func addPlaces(_ n: Int) { groupOfKey += [Int32](repeating: -1, count: n * currencies) }

        mutating func add(_ i: Int, place: Int32) {
            let currency = Int(rows.currencyNumber[i]), key = Int(place) * currencies + currency
            var g = groupOfKey[key]
            if g < 0 {
                g = Int32(all.count)
                groupOfKey[key] = g
                all.append(Group(place: Int(place), currency: currency, first: i, last: i))
            } else {
                // Not for the group's first row: comparing a row with itself compares its id as
                // strings (two thirds of `add`'s instructions, callgrind, session 15).
                if rows.isEarlier(i, than: all[Int(g)].first) { all[Int(g)].first = i }
                if rows.isEarlier(all[Int(g)].last, than: i) { all[Int(g)].last = i }
            }
            groupOf[i] = g
            all[Int(g)].count += 1
            all[Int(g)].totalMinor += rows.amountMinor[i]
        }

        func group(place: Int32, currency: Int) -> Int32? {
            let g = groupOfKey[Int(place) * currencies + currency]
            return g < 0 ? nil : g
        }

        /// The ids of the first and last visits of these groups.
        func visitIDs(of groups: Range<Int>) -> Set<String> {
            Set(all[groups].flatMap { [rows.id($0.first), rows.id($0.last)] })
        }

        /// Each group's rows, contiguous (a counting sort by group): group g's are
        /// `members[start[g]..<start[g + 1]]`.
        func members() -> (start: [Int], members: [Int]) {
            var start = [Int](repeating: 0, count: all.count + 1)
            for (g, group) in all.enumerated() { start[g + 1] = start[g] + group.count }
            var members = [Int](repeating: 0, count: start[all.count])
            var fill = start
            for (i, g) in groupOf.enumerated() where g >= 0 {
                members[fill[Int(g)]] = i
                fill[Int(g)] += 1
            }
            return (start, members)
        }
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
            // Dates are years 0000–9999: a window early in year 0000 has no previous one (it
            // was printed as "00-1-12-01").
            guard f - length >= Timestamp.firstDay else { return (nil, nil) }
            return (Timestamp(localDay: f - length), Timestamp(localDay: f - 1))
        }
        let length = to.epochMilliseconds - from.epochMilliseconds
        guard length > 0 else { return (nil, nil) }
        let offset = from.utcOffsetMinutes ?? 0
        guard Timestamp.localDayNumber(epochMilliseconds: from.epochMilliseconds - length, utcOffsetMinutes: offset) >= Timestamp.firstDay
        else { return (nil, nil) }
        return (
            Timestamp(epochSeconds: (from.epochMilliseconds - length) / 1000, utcOffsetMinutes: offset), from
        )
    }
}

extension Timestamp {
    /// 0000-01-01 in days since 1970-01-01: the first day a four-digit year can write.
    static let firstDay = daysFromCivil(year: 0, month: 1, day: 1)

    /// The local calendar day of an instant at an offset, as days since 1970-01-01 (a bare
    /// date's instant is its midnight read as UTC, as `Timestamp(parsing:)` makes it, with no
    /// offset): floor division, so days before 1970 count down.
    static func localDayNumber(epochMilliseconds ms: Int64, utcOffsetMinutes offset: Int?) -> Int64 {
        localDayAndTime(epochMilliseconds: ms, utcOffsetMinutes: offset).day
    }

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
