/// `--product P` (`prices history`, the service's `product`) as a product id, a barcode or a
/// name; a name that matches nothing is a usage error with the best search hits suggested.
public enum ProductLookup {
    public static func find(_ text: String, in products: [Product]) throws -> Product {
        if let id = Int64(text), let p = products.first(where: { $0.id == id }) { return p }
        if let code = try? Barcode(parsing: text), let p = products.first(where: { $0.barcode == code }) { return p }
        if let p = ProductMatch.find(name: text, barcode: nil, among: products) { return p }
        let hits = ProductSearch.search(text, in: products).prefix(3).map { "\"\(OutputEscaping.visible($0.product.name))\"" }
        throw UsageError(
            "no product \"\(OutputEscaping.visible(text))\"\(hits.isEmpty ? "" : "; did you mean \(hits.joined(separator: ", "))?")"
                + " (`geospend products search TEXT` lists products)")
    }

    public static func json(_ p: Product) -> JSONOutput {
        .object([
            ("id", .integer(p.id)), ("name", .string(p.name)), ("brand", p.brand.map { .string($0) } ?? .null),
            ("category", .string(p.category)), ("barcode", p.barcode.map { .string($0.digits) } ?? .null),
            ("unit", .string(p.defaultUnit.rawValue)),
        ])
    }

    /// `products search TEXT [--user U] --format json`: the hits, each product with its score.
    /// With `userID`, only the products that user has prices of.
    public static func search(_ text: String, userID: String?, in db: some PriceStore & ExpenseStore) async throws -> [ProductSearch.Hit] {
        ProductSearch.search(text, in: try await products(userID: userID, in: db))
    }

    /// The ids of the products `userID` has price records of.
    public static func productIDs(userID: String, in db: some PriceStore) async throws -> Set<Int64> {
        Set(try await db.priceRecords(PriceQuery(userID: userID)).map(\.product.id))
    }

    /// The catalogue, or with `userID` only the products that user has prices of.
    public static func products(userID: String?, in db: some PriceStore & ExpenseStore) async throws -> [Product] {
        try await db.read { try products(userID: userID, in: $0) }
    }

    /// `products(userID:in:)` inside a read scope, in its snapshot.
    public static func products(userID: String?, in reader: some PriceReader) throws -> [Product] {
        let products = try reader.products()
        guard let userID else { return products }
        let theirs = Set(try reader.priceRecords(PriceQuery(userID: userID)).map(\.product.id))
        return products.filter { theirs.contains($0.id) }
    }

    public static func json(_ hits: [ProductSearch.Hit]) -> JSONOutput {
        .array(hits.map { h in
            guard case .object(let members) = json(h.product) else { return .null }
            return .object(members + [("score", .integer(Int64(h.score)))])
        })
    }
}
