/// `prices history`'s answer (the CLI's and the service's `/api/v1/prices/history`): one
/// product's prices, oldest first, outliers flagged; with `userID` nil (`--all-users`) every
/// user's, without who recorded them and with the day only.
public struct PriceHistoryReport: Sendable {
    public let product: Product
    public let entries: [PriceHistory.Entry]
    /// Store names by id.
    public let storeNames: [String: String]
    /// One user's records: instants are shown whole; else days only.
    public let isOneUser: Bool

    /// The product, its records and their stores' names from one snapshot.
    public static func make(
        product text: String, storeID: String?, userID: String?, in db: some PriceStore & ExpenseStore
    ) async throws -> PriceHistoryReport {
        try await db.read { reader in
            // One user's history looks among that user's products only: the catalogue's names
            // are what people bought, so another user's must not come back, not even as "did you mean".
            let found = try ProductLookup.find(text, in: try ProductLookup.products(userID: userID, in: reader))
            let records = try reader.priceRecords(PriceQuery(productIDs: [found.id], storeIDs: storeID.map { [$0] }, userID: userID))
            let names = Dictionary(try reader.storesWithPrices(userID: userID).map { ($0.id, $0.displayName) }, uniquingKeysWith: { a, _ in a })
            return PriceHistoryReport(product: found, entries: PriceHistory.entries(records), storeNames: names, isOneUser: userID != nil)
        }
    }

    public func when(_ r: PriceRecord) -> String { isOneUser ? r.recordedAt.text : r.recordedAt.localDate }

    public var json: JSONOutput {
        let items: [JSONOutput] = entries.map { e in
            let r = e.record
            return .object([
                ("recorded_at", .string(when(r))), ("store_id", .string(r.storeID)), ("store", storeNames[r.storeID].map { .string($0) } ?? .null),
                ("price", .string(r.price.decimalString)), ("currency", .string(r.price.currency.code)),
                ("quantity", .number(r.quantity, decimals: 3)), ("unit", .string(r.unit.rawValue)),
                ("unit_price", .number(r.unitPrice, decimals: 4)), ("per", .string(r.unit.base.rawValue)),
                ("source", .string(r.source.rawValue)), ("outlier", .bool(e.isOutlier)),
                ("score", e.score.map { .number($0, decimals: 2) } ?? .null),
            ])
        }
        return .object([
            ("product", ProductLookup.json(product)),
            ("outlier_rule", .string("modified z-score |0.6745 (x - median) / MAD| > 3.5 on unit prices per currency")),
            ("records", .array(items)),
        ])
    }
}
