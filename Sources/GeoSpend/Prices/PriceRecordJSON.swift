/// One user's price record as `prices list|edit --format json` and `/api/v1/prices` write it:
/// the record's id (what `prices edit|delete` take), its product, store, price, quantity and
/// unit, the unit price, the recorded time, the source, and when the store added and last
/// changed it (null for a record older than migration v27 / v18).
public enum PriceRecordJSON {
    public static func record(_ r: PriceRecord) -> JSONOutput {
        .object([
            ("id", .integer(r.id)), ("product_id", .integer(r.product.id)), ("product", .string(r.product.name)),
            ("store_id", .string(r.storeID)), ("price", .string(r.price.decimalString)), ("currency", .string(r.price.currency.code)),
            ("quantity", .number(r.quantity, decimals: 3)), ("unit", .string(r.unit.rawValue)),
            ("unit_price", .number(r.unitPrice, decimals: 4)), ("per", .string(r.unit.base.rawValue)),
            ("recorded_at", .string(r.recordedAt.text)), ("source", .string(r.source.rawValue)),
            ("created_at", .text(r.createdAt)), ("updated_at", .text(r.updatedAt)),
        ])
    }

    /// A user's records (`prices list`): ascending by recorded instant, then id; `product` (an
    /// id, barcode or name, looked up among the user's products) narrows.
    public static func list(userID: String, product: String?, in db: some PriceStore & ExpenseStore) async throws -> [PriceRecord] {
        try await db.read { reader in
            var query = PriceQuery(userID: userID)
            if let product {
                query.productIDs = [try ProductLookup.find(product, in: try ProductLookup.products(userID: userID, in: reader)).id]
            }
            return try reader.priceRecords(query)
        }
    }
}
