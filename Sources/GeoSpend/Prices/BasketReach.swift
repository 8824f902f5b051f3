import Foundation

/// How far a basket comparison reaches and what it keeps (`geospend basket`'s and `lists show`'s
/// options, the service's `/api/v1/basket` parameters): checked and turned into a `BasketRequest`
/// here, so the CLI and the service answer alike. Texts are as typed; errors name the option.
public struct BasketReach: Sendable {
    /// Home, `LAT,LON`.
    public var near: String?
    public var radius: String?
    public var costPerKm: String?
    public var currency: String?
    public var minAvailability = 0.85
    public var minUsers = 1
    public var top = 3
    /// Only this user's price records; nil: every user's (the crowd's prices, `minUsers` applies).
    public var userID: String?

    public init() {}

    public func validate() throws {
        if radius != nil && near == nil { throw UsageError("--radius needs --near LAT,LON: the radius is around home") }
        if costPerKm != nil && near == nil { throw UsageError("--cost-per-km needs --near LAT,LON: trips start from home") }
        if !(0...1).contains(minAvailability) { throw UsageError("--min-availability \(minAvailability): give a share from 0 to 1, e.g. 0.85") }
        if minUsers < 1 { throw UsageError("--min-users \(minUsers): give 1 or more") }
        if top < 1 { throw UsageError("--top \(top): give 1 or more") }
    }

    /// `--as-of`: a local day, today (UTC) when absent.
    public static func day(_ text: String?) throws -> LocalDay {
        guard let text else { return LocalDay(dayNumber: Int64(Date().timeIntervalSince1970.rounded(.down)) / 86_400) }
        do { return try LocalDay(parsing: text) } catch { throw UsageError("--as-of: \(error)") }
    }

    /// The stores ranked for `wanted` on `asOf`. An item is the product `product(named:in:)`
    /// finds (the result's `matched` says which); a name no product matches counts as missing
    /// at every store, and `unmatched` hears of it (the CLI warns on stderr).
    public func compare(
        _ wanted: [(name: String, want: BasketItem.Want)], asOf asOfDay: LocalDay, in store: some PriceStore & ExpenseStore,
        unmatched: (String) -> Void = { _ in }
    ) async throws -> BasketResult {
        try validate()
        let home = try near.map { try Self.coordinate($0, option: "--near") }
        let reach: Distance?
        do { reach = try radius.map { try Distance(parsing: $0) } } catch { throw UsageError("--radius: \(error)") }
        let asked = try currency.map { try Currency(code: $0) }
        // The catalogue, the records and their stores from one snapshot.
        let names = wanted.map(\.name), userID = userID
        let (matched, records, stores) = try await store.read { reader in
            let products = try reader.products()
            let matched = names.map { BasketMatch(item: $0, product: Self.product(named: $0, in: products)) }
            let ids = Set(matched.compactMap { $0.product?.id })
            let records = ids.isEmpty ? [] : try reader.priceRecords(PriceQuery(productIDs: ids, userID: userID, to: asOfDay))
            return (matched, records.map(PriceObservation.init), Dictionary(uniqueKeysWithValues: try reader.storesWithPrices(userID: userID).map { ($0.id, $0) }))
        }
        var items: [BasketItem] = []
        for (w, m) in zip(wanted, matched) {
            if let p = m.product {
                items.append(BasketItem(name: w.name, productID: String(p.id), want: w.want))
            } else {
                unmatched(w.name)
                items.append(BasketItem(name: w.name, productID: "none:\(w.name)", want: w.want))
            }
        }

        var request = BasketRequest(items: items, asOf: asOfDay)
        request.near = home
        request.radius = reach
        request.minAvailability = minAvailability
        request.minUsers = minUsers
        request.top = top
        request.currency = asked
        if let costPerKm {
            // The travel cost is in the comparison's currency: the asked one, else the most common.
            guard let code = asked?.code ?? Basket.mostCommon(Basket.recordsPerCurrency(records)) else {
                throw UsageError("no prices for these items on or before \(asOfDay): nothing to compare")
            }
            do { request.costPerKmMinor = try Money(parsing: costPerKm, currency: Currency(code: code)).minorUnits } catch {
                throw UsageError("--cost-per-km: \(error)")
            }
        }
        var result = try Basket.compute(request, observations: records, stores: stores)
        result.matched = matched
        return result
    }

    /// The product a list item names: the one a price record of that name would be filed under
    /// (`ProductMatch`: near-identical names), else the best hit of `products search` whose
    /// name answers the text (score ≥ 20: "Milch" finds "Vollmilch 1,5%"; a brand alone does
    /// not choose among the brand's products). Nil when neither finds one.
    public static func product(named name: String, in products: [Product]) -> Product? {
        if let p = ProductMatch.find(name: name, barcode: nil, among: products) { return p }
        guard let best = ProductSearch.search(name, in: products).first, best.score >= 20 else { return nil }
        return best.product
    }

    /// `LAT,LON` in degrees, as the CLI's coordinate options read it.
    static func coordinate(_ text: String, option: String) throws -> Coordinate {
        guard let (lat, lon) = parseDegreesPair(text) else {
            throw UsageError("\(option) \(text): expected LAT,LON in degrees, e.g. 60,25")
        }
        do { return try Coordinate(latitude: lat, longitude: lon) } catch { throw UsageError("\(option) \(text): \(error)") }
    }
}
