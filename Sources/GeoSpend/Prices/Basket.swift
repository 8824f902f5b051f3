/// The cheapest basket (CartWise's rule, then within reach): where a shopping list costs least.
///
/// The seed's rule, exactly: the candidates are the stores that have prices; a store's price for
/// an item is its latest record on or before the as-of day; availability = items with a price /
/// items on the list; stores under `minAvailability` (0.85) are dropped; the rest are sorted by
/// total (the available items' prices × quantity) ascending, ties by store id; the top 3 returned.
///
/// Beyond the seed (README "Cheapest basket" says each in a user's words):
/// - one currency per comparison: `currency`, else the one most records have (ties: code order);
/// - `near` + `radius`: only stores within the geodesic radius (Karney, `Geodesic`);
/// - `costPerKm`: each store's round trip home → store → home is added (straight geodesic legs,
///   a lower bound of the road) and the ranking is by total with travel;
/// - a two-store split (`BasketSplit`): each item at the cheaper of two stores, the trip
///   home → A → B → home; offered only when it prices at least as many items as the best single
///   store and costs less with its trip;
/// - `estimatedTotal`: missing items priced at their median at the other candidates, beside the
///   seed's total (which makes a store missing items look cheaper);
/// - `minUsers`: a store's price for a product counts only when that many distinct users recorded
///   it there (public records without a user count as one source), as store reports suppress.
/// - packs of different sizes: a count (`Milch=2`) of an item whose packs differ between stores
///   is read as that many of its most common pack (ties: the smaller), priced at each store's unit
///   price; an amount (`Milch=1.5l`) is always priced by the unit price. Amounts are rounded half
///   away from zero to the minor unit.
///
/// Every amount it adds is checked (issue 35): an item's price for the wanted quantity, a trip's
/// cost and a store's total each stay at most `Money.maximumMinorUnits` (10^15 minor units, the
/// largest amount GeoSpend stores), else `compute` throws `ValueError.invalidAmount` saying which.
public struct BasketRequest: Sendable {
    public var items: [BasketItem]
    public var asOf: LocalDay
    public var near: Coordinate?
    public var radius: Distance?
    /// Minor units of the comparison's currency per km.
    public var costPerKmMinor: Int64?
    public var minAvailability = 0.85
    public var top = 3
    public var minUsers = 1
    public var currency: Currency?

    public init(items: [BasketItem], asOf: LocalDay) {
        self.items = items
        self.asOf = asOf
    }
}

/// One store's line of the comparison.
public struct BasketStoreLine: Sendable, Hashable {
    public let store: Store
    public let totalMinor: Int64
    /// item name → the price paid for the wanted quantity, minor units.
    public let itemPrices: [(name: String, minor: Int64)]
    public let unavailable: [String]
    public let distanceMeters: Double?
    public let travelMinor: Int64
    /// `totalMinor` plus each missing item at its median elsewhere; nil when some missing item
    /// has no price at any other candidate (`unpricedItems`).
    public let estimatedTotalMinor: Int64
    public let unpricedItems: [String]
    public var availableItems: Int { itemPrices.count }
    public var totalWithTravelMinor: Int64 { totalMinor + travelMinor }

    public static func == (a: Self, b: Self) -> Bool { a.store.id == b.store.id && a.totalMinor == b.totalMinor }
    public func hash(into h: inout Hasher) { h.combine(store.id) }
}

/// Two stores, each item at the cheaper one.
public struct BasketSplit: Sendable, Hashable {
    public let first: Store
    public let second: Store
    /// item name → (store id, minor units).
    public let itemPrices: [(name: String, storeID: String, minor: Int64)]
    public let totalMinor: Int64
    public let tripMeters: Double?
    public let travelMinor: Int64
    /// What it saves against the best single store, travel included.
    public let savingMinor: Int64
    public var totalWithTravelMinor: Int64 { totalMinor + travelMinor }

    public static func == (a: Self, b: Self) -> Bool { a.first.id == b.first.id && a.second.id == b.second.id && a.totalMinor == b.totalMinor }
    public func hash(into h: inout Hasher) { h.combine(first.id); h.combine(second.id) }
}

public struct BasketResult: Sendable {
    public let currency: Currency?
    public let totalItems: Int
    /// The ranked stores (the top `top`).
    public let stores: [BasketStoreLine]
    /// Among the stores that passed the availability rule, the one cheapest by estimated total.
    public let bestByEstimate: BasketStoreLine?
    public let split: BasketSplit?
    /// How many candidate stores there were (with a price, in reach, in the currency).
    public let candidates: Int
    /// Records of other currencies left out: currency → count.
    public let otherCurrencies: [(currency: String, records: Int)]
    /// Which product each item was read as, in the items' order (`BasketReach.compare` sets it).
    public var matched: [BasketMatch] = []
}

/// A basket item's name and the catalogue product it was read as; nil when none matched.
public struct BasketMatch: Sendable, Hashable {
    public let item: String
    public let product: Product?
}

public enum Basket {
    /// - Throws: `ValueError.invalidAmount` when a price of the wanted quantity, a trip's cost or a
    ///   total would pass `Money.maximumMinorUnits` (never a trap on overflow).
    public static func compute(_ request: BasketRequest, observations: [PriceObservation], stores: [String: Store]) throws(ValueError)
        -> BasketResult
    {
        let wanted = Set(request.items.map(\.productID))
        let usable = observations.filter { wanted.contains($0.productID) && $0.day <= request.asOf && stores[$0.storeID] != nil }

        // One currency: the asked one, else the most common.
        let perCurrency = recordsPerCurrency(usable)
        let code = request.currency?.code ?? mostCommon(perCurrency)
        let others = perCurrency.filter { $0.key != code }.map { (currency: $0.key, records: $0.value) }.sorted { $0.currency < $1.currency }
        guard let code, let currency = try? Currency(code: code) else {
            return BasketResult(currency: request.currency, totalItems: request.items.count, stores: [], bestByEstimate: nil, split: nil, candidates: 0, otherCurrencies: others)
        }

        // Reach: the geodesic distance of each store once.
        var distance: [String: Double] = [:]
        var inReach: Set<String> = []
        for id in Set(usable.map(\.storeID)) {
            guard let near = request.near else { inReach.insert(id); continue }
            let d = Geodesic.distance(near, stores[id]!.coordinate)
            distance[id] = d
            if request.radius.map({ d <= $0.meters }) ?? true { inReach.insert(id) }
        }

        // The latest record per (store, product) and the users behind the pair.
        struct Key: Hashable { let store: String, product: String }
        var latest: [Key: PriceObservation] = [:]
        var users: [Key: Set<String>] = [:]
        for o in usable where o.price.currency.code == code && inReach.contains(o.storeID) {
            let key = Key(store: o.storeID, product: o.productID)
            users[key, default: []].insert(o.userID ?? "")
            if let seen = latest[key] {
                // Later instant wins; at one instant the lower price (so input order never matters).
                if (o.instantMilliseconds, -o.price.minorUnits) <= (seen.instantMilliseconds, -seen.price.minorUnits) { continue }
            }
            latest[key] = o
        }
        if request.minUsers > 1 {
            for (key, who) in users where who.count < request.minUsers { latest[key] = nil }
        }
        let candidateIDs = Set(latest.keys.map(\.store)).sorted()

        // What each item costs at each candidate.
        let common = request.items.map { commonPack($0, latest.values) }
        var prices: [[Int64?]] = []  // [store][item]
        for id in candidateIDs {
            var row: [Int64?] = []
            for (i, item) in request.items.enumerated() {
                guard let o = latest[Key(store: id, product: item.productID)] else { row.append(nil); continue }
                let p = try price(o, for: item, common: common[i])
                if let p, p > Money.maximumMinorUnits {
                    throw .invalidAmount(
                        "\(item.name)", reason: "costs more than \(capText(currency)) at store \(id) for the quantity wanted; ask for less")
                }
                row.append(p)
            }
            prices.append(row)
        }

        let costPerKm = request.costPerKmMinor
        func travel(_ meters: Double?) throws(ValueError) -> Int64 {
            guard let costPerKm, let meters else { return 0 }
            let cost = (Double(costPerKm) * meters / 1000).rounded(.toNearestOrAwayFromZero)
            // Checked as a Double first: Int64(_:) of a Double past Int64's range traps.
            guard cost.isFinite, cost <= Double(Money.maximumMinorUnits) else {
                throw .invalidAmount(
                    Money.decimalString(costPerKm, digits: currency.minorDigits),
                    reason: "per km makes a trip of \(Int((meters / 1000).rounded())) km cost more than \(capText(currency)); give a smaller --cost-per-km")
            }
            return Int64(cost)
        }

        var lines: [BasketStoreLine] = []
        let total = request.items.count
        for (s, id) in candidateIDs.enumerated() {
            var itemPrices: [(name: String, minor: Int64)] = []
            var missing: [String] = [], unpriced: [String] = []
            var sum: Int64 = 0, estimate: Int64 = 0
            for (i, item) in request.items.enumerated() {
                if let p = prices[s][i] {
                    itemPrices.append((item.name, p))
                    sum = try checkedSum(sum, p, currency, at: id)
                    estimate = try checkedSum(estimate, p, currency, at: id)
                } else {
                    missing.append(item.name)
                    let elsewhere = prices.indices.compactMap { $0 == s ? nil : prices[$0][i] }
                    if elsewhere.isEmpty { unpriced.append(item.name) } else {
                        // Not AmountStatistics: its total of 10,000 stores' prices at the cap passes Int64.
                        let median = AmountStatistics.medianMinor(elsewhere)
                        estimate = try checkedSum(estimate, median, currency, at: id)
                    }
                }
            }
            let d = distance[id]
            lines.append(BasketStoreLine(
                store: stores[id]!, totalMinor: sum, itemPrices: itemPrices, unavailable: missing,
                distanceMeters: d, travelMinor: try travel(d.map { 2 * $0 }), estimatedTotalMinor: estimate, unpricedItems: unpriced))
        }
        let kept = lines.filter { total > 0 && Double($0.availableItems) / Double(total) >= request.minAvailability }
            .sorted { ($0.totalWithTravelMinor, $0.store.id) < ($1.totalWithTravelMinor, $1.store.id) }
        let bestByEstimate = kept.min { ($0.estimatedTotalMinor + $0.travelMinor, $0.store.id) < ($1.estimatedTotalMinor + $1.travelMinor, $1.store.id) }

        var split: BasketSplit?
        if let best = kept.first {
            split = try bestSplit(request, ids: candidateIDs, prices: prices, stores: stores, currency: currency, travel: travel, best: best)
        }
        return BasketResult(
            currency: currency, totalItems: total, stores: Array(kept.prefix(max(0, request.top))), bestByEstimate: bestByEstimate,
            split: split, candidates: candidateIDs.count, otherCurrencies: others)
    }

    /// `a + b` when it stays at most `Money.maximumMinorUnits` (both are at most that, so the
    /// addition itself cannot overflow).
    static func checkedSum(_ a: Int64, _ b: Int64, _ currency: Currency, at store: String) throws(ValueError) -> Int64 {
        guard a + b <= Money.maximumMinorUnits else {
            throw .invalidAmount(
                Money.decimalString(a, digits: currency.minorDigits) + " + " + Money.decimalString(b, digits: currency.minorDigits),
                reason: "(the basket at store \(store)) is more than \(capText(currency)), the largest amount GeoSpend adds up")
        }
        return a + b
    }

    static func capText(_ currency: Currency) -> String {
        "\(Money.decimalString(Money.maximumMinorUnits, digits: currency.minorDigits)) \(currency.code)"
    }

    /// The records the basket would compare (its items', on or before the as-of day), per currency.
    public static func recordsPerCurrency(_ observations: [PriceObservation]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for o in observations { counts[o.price.currency.code, default: 0] += 1 }
        return counts
    }

    /// The currency most records have, ties in code order: a comparison's currency when none is asked.
    public static func mostCommon(_ counts: [String: Int]) -> String? {
        counts.min { ($1.value, $0.key) < ($0.value, $1.key) }?.key
    }

    /// Every pair of candidates; the cheapest with its trip, when it beats the best single store.
    static func bestSplit(
        _ request: BasketRequest, ids: [String], prices: [[Int64?]], stores: [String: Store], currency: Currency,
        travel: (Double?) throws(ValueError) -> Int64, best: BasketStoreLine
    ) throws(ValueError) -> BasketSplit? {
        var winner: (a: Int, b: Int, total: Int64, travel: Int64, trip: Double?)?
        let total = request.items.count
        for a in ids.indices {
            for b in ids.indices where b > a {
                var sum: Int64 = 0, available = 0, atA = 0, atB = 0
                for i in 0..<total {
                    switch (prices[a][i], prices[b][i]) {
                    case (let pa?, let pb?):
                        sum = try checkedSum(sum, min(pa, pb), currency, at: "\(ids[a])+\(ids[b])"); available += 1
                        if pa <= pb { atA += 1 } else { atB += 1 }
                    case (let pa?, nil): sum = try checkedSum(sum, pa, currency, at: "\(ids[a])+\(ids[b])"); available += 1; atA += 1
                    case (nil, let pb?): sum = try checkedSum(sum, pb, currency, at: "\(ids[a])+\(ids[b])"); available += 1; atB += 1
                    case (nil, nil): break
                    }
                }
                // Both stores must sell something, and the pair must price as much as the best single store.
                guard atA > 0, atB > 0, available >= best.availableItems,
                    Double(available) / Double(total) >= request.minAvailability
                else { continue }
                let trip = request.near.map { home in
                    Geodesic.distance(home, stores[ids[a]]!.coordinate) + Geodesic.distance(stores[ids[a]]!.coordinate, stores[ids[b]]!.coordinate)
                        + Geodesic.distance(stores[ids[b]]!.coordinate, home)
                }
                let cost = try travel(trip)
                if let w = winner, (w.total + w.travel) <= sum + cost { continue }
                winner = (a, b, sum, cost, trip)
            }
        }
        guard let w = winner, w.total + w.travel < best.totalWithTravelMinor else { return nil }
        var itemPrices: [(name: String, storeID: String, minor: Int64)] = []
        for (i, item) in request.items.enumerated() {
            switch (prices[w.a][i], prices[w.b][i]) {
            case (let pa?, let pb?): itemPrices.append(pa <= pb ? (item.name, ids[w.a], pa) : (item.name, ids[w.b], pb))
            case (let pa?, nil): itemPrices.append((item.name, ids[w.a], pa))
            case (nil, let pb?): itemPrices.append((item.name, ids[w.b], pb))
            case (nil, nil): break
            }
        }
        return BasketSplit(
            first: stores[ids[w.a]]!, second: stores[ids[w.b]]!, itemPrices: itemPrices, totalMinor: w.total, tripMeters: w.trip,
            travelMinor: w.travel, savingMinor: best.totalWithTravelMinor - w.total - w.travel)
    }

    /// The pack a count means when an item's packs differ between stores: the most common among
    /// the latest records (ties: the smaller); nil when all packs are alike.
    static func commonPack(_ item: BasketItem, _ records: some Sequence<PriceObservation>) -> PackSize? {
        var counts: [PackSize: Int] = [:]
        for r in records where r.productID == item.productID { counts[r.pack, default: 0] += 1 }
        guard counts.count > 1 else { return nil }
        return counts.min { ($1.value, $0.key.thousandths) < ($0.value, $1.key.thousandths) }!.key
    }

    /// The price of the wanted quantity from one record; nil when the units cannot be compared
    /// (a kg amount wanted, the store sells pieces).
    /// - Throws: `ValueError.invalidAmount` when the price of the quantity leaves `Int64`.
    static func price(_ o: PriceObservation, for item: BasketItem, common: PackSize?) throws(ValueError) -> Int64? {
        func tooMuch() -> ValueError {
            .invalidAmount(item.name, reason: "costs more than \(capText(o.price.currency)) for the quantity wanted; ask for less")
        }
        let amount: PackSize
        switch item.want {
        case .packs(let n):
            guard let common, common != o.pack else {
                let (total, overflow) = o.price.minorUnits.multipliedReportingOverflow(by: n)
                if overflow { throw tooMuch() }
                return total
            }
            let (thousandths, overflow) = common.thousandths.multipliedReportingOverflow(by: n)
            if overflow { throw tooMuch() }
            amount = PackSize(dimension: common.dimension, thousandths: thousandths)
        case .amount(let a): amount = a
        }
        guard amount.dimension == o.pack.dimension else { return nil }
        let (scaled, overflow) = o.price.minorUnits.multipliedReportingOverflow(by: amount.thousandths)
        if overflow { throw tooMuch() }
        return roundedQuotient(scaled, o.pack.thousandths)
    }

    /// a / b rounded half away from zero (both positive here).
    static func roundedQuotient(_ a: Int64, _ b: Int64) -> Int64 {
        let (q, r) = a.quotientAndRemainder(dividingBy: b)
        return r >= b - r ? q + 1 : q  // not r * 2: b may be near Int64.max
    }
}
