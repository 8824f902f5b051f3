/// Where a user's money goes, place by place (docs/DOMAIN.md § Places and location insights).
///
/// ```swift
/// let insights = try LocationInsights.compute(
///     InsightsRequest(userID: "user1", from: try Timestamp(parsing: "2025-03-01"), to: try Timestamp(parsing: "2025-03-31")),
///     store: store)
/// for row in insights.places { print(row.place.name ?? row.place.id, row.total.decimalString) }
/// ```
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
        let stores = try rows.storeLabels ?? store.storeLabels(rows.storeIDs)  // by store number
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
