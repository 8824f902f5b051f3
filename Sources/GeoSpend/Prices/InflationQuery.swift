/// `prices inflation`'s question (the CLI's options, the service's `/api/v1/prices/inflation`
/// parameters), checked and answered here so both say the same. Neither a product nor a
/// category: the overall rate (seed 003 L1056), every product's own rate weighted by its number
/// of records in the window, the category rule applied to all products (`Inflation.compute`).
public struct InflationQuery: Sendable {
    public var product: String?
    public var category: String?
    public var days = 365
    public var asOf: String?
    public var store: String?
    /// `LAT,LON` with `radius`: the stores within it.
    public var near: String?
    public var radius: String?
    public var currency: String?
    /// Only this user's price records; nil: every user's.
    public var userID: String?

    public init() {}

    public func validate() throws {
        if product != nil && category != nil {
            throw UsageError("give --product NAME or --category NAME, not both (neither: the overall rate over every product)")
        }
        if (near == nil) != (radius == nil) { throw UsageError("--near and --radius go together: the stores within R of LAT,LON") }
        if store != nil && near != nil { throw UsageError("give --store ID or --near/--radius, not both") }
        if days < 1 { throw UsageError("--days \(days): give 1 or more") }
    }

    /// The rate, and each product's name by id.
    public func compute(in db: some PriceStore & ExpenseStore & StoreChoiceStore) async throws -> (result: InflationResult, names: [Int64: String]) {
        try validate()
        let asOfDay = try BasketReach.day(asOf)
        let asked = try currency.map { try Currency(code: $0) }
        var query = PriceQuery(userID: userID, from: asOfDay.adding(days: -Int64(days)), to: asOfDay, currency: asked)
        var names: [Int64: String] = [:]
        if let product {
            // Among the products the asker has records of: another user's purchases are not
            // theirs to learn of (an unknown product is the same 400 either way).
            let candidates = try await ProductLookup.products(userID: userID, in: db)
            guard let p = ProductMatch.find(name: product, barcode: nil, among: candidates) else {
                throw UsageError("--product \(product): no product matches; see `geospend products search \(product)`")
            }
            query.productIDs = [p.id]
            names[p.id] = p.name
        } else {
            query.category = category
        }
        if let store { query.storeIDs = [store] }
        if let near, let radius {
            let center = try BasketReach.coordinate(near, option: "--near")
            let r: Distance
            do { r = try Distance(parsing: radius) } catch { throw UsageError("--radius: \(error)") }
            query.storeIDs = Set(try await db.read { reader in try reader.stores(within: r, of: center, kind: nil) }.map(\.store.id))
            // One user's rate also counts their own added stores in the circle (`mine-N`, the
            // same test as the registry's: the geodesic distance at most R); every user's never.
            if let userID {
                for own in try await db.storeChoices(userID: userID).added
                where Geodesic.distance(own.store.coordinate, center) <= r.meters {
                    query.storeIDs!.insert(own.id)
                }
            }
        }
        let records = try await db.priceRecords(query)
        for r in records { names[r.product.id] = r.product.name }
        var request = InflationRequest(
            products: product != nil ? Set(query.productIDs!.map(String.init)) : Set(records.map { String($0.product.id) }), asOf: asOfDay)
        request.days = Int64(days)
        request.currency = asked
        return (Inflation.compute(request, observations: records.map(PriceObservation.init)), names)
    }

    /// `prices inflation --format json`.
    public static func json(_ r: InflationResult, names: [Int64: String]) -> JSONOutput {
        let name = { (id: String) in Int64(id).flatMap { names[$0] } ?? id }
        func window(_ w: InflationWindow?) -> JSONOutput {
            guard let w else { return .null }
            return .object([
                ("from", .string(w.from.description)), ("to", .string(w.to.description)), ("records", .integer(Int64(w.records))),
                ("mean_unit_price", w.meanUnitPrice.map { .number($0, decimals: 6) } ?? .null),
            ])
        }
        return .object([
            ("rate_percent", .number(r.ratePercent, decimals: 6)), ("records", .integer(Int64(r.records))),
            ("first_window", window(r.firstWindow)), ("last_window", window(r.lastWindow)),
            ("currency", r.currency.map { .string($0.code) } ?? .null),
            ("window", .object([("from", .string(r.windowFrom.description)), ("to", .string(r.windowTo.description))])),
            ("products", .array(r.products.map { p in
                .object([
                    ("product_id", .string(p.productID)), ("name", .string(name(p.productID))), ("rate_percent", .number(p.ratePercent, decimals: 6)),
                    ("records", .integer(Int64(p.records))),
                ])
            })),
        ])
    }
}
