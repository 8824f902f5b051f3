/// A product in the shared catalogue: what price records are prices of.
///
/// Products are shared like stores: two users' "Vollmilch 1,5 %" are one product, so their
/// prices compare. A product is kept while a price record refers to it; `users delete` removes
/// the products only the deleted user's records named (docs/DOMAIN.md § Prices).
public struct Product: Sendable, Hashable {
    /// The store's row id (shared, not per user); 0 for a product not stored yet.
    public var id: Int64
    /// As first recorded (NFC, at most 4,096 characters).
    public var name: String
    /// `ProductName.normalized(name)`: what matching compares.
    public var normalizedName: String
    public var brand: String?
    /// "Other" when none was given.
    public var category: String
    public var barcode: Barcode?
    /// The unit it is usually sold in; prices of it compare per `defaultUnit.base`.
    public var defaultUnit: PriceUnit
    /// When the store added and last changed the row (UTC, the store's clock); nil for a
    /// product stored before migration v27 (SpatiaLite) / v18 (PostgreSQL), and for one not
    /// stored yet. Not part of what `completed(by:)` compares.
    public var createdAt: String?
    public var updatedAt: String?

    public static let defaultCategory = "Other"

    /// What a later entry adds to a product first recorded with less: a barcode it lacked; a
    /// name, brand and category for a product known only by its barcode (an Open Prices row
    /// without `product_name`). Nil when nothing changes: a product's given name stays. Every
    /// store applies it when an entry matches a stored product.
    public func completed(by entry: PriceEntry) -> Product? {
        var p = self
        if p.barcode == nil, let barcode = entry.barcode { p.barcode = barcode }
        if let code = p.barcode?.digits, p.name == code, entry.productName != code {
            p.name = entry.productName
            p.normalizedName = ProductName.normalized(entry.productName)
        }
        if p.brand == nil, let brand = entry.brand { p.brand = brand }
        if p.category == Product.defaultCategory, let category = entry.category { p.category = category }
        return p == self ? nil : p
    }

    public init(
        id: Int64 = 0, name: String, brand: String? = nil, category: String? = nil, barcode: Barcode? = nil,
        defaultUnit: PriceUnit = .pcs
    ) {
        self.id = id
        self.name = name
        self.normalizedName = ProductName.normalized(name)
        self.brand = brand
        self.category = category ?? Product.defaultCategory
        self.barcode = barcode
        self.defaultUnit = defaultUnit
    }
}

/// Which known product a name (and barcode) is, by the seed's rule.
public enum ProductMatch {
    /// The product a new record names, or nil for a new product:
    /// 1. a product with the same barcode;
    /// 2. else the most similar product by normalised name whose similarity exceeds 0.85
    ///    (`NameSimilarity`), ties to the lowest id; a product with another barcode is never
    ///    the match of a record that gives one (two barcodes are two products).
    public static func find(name: String, barcode: Barcode?, among products: [Product]) -> Product? {
        if let barcode, let same = products.first(where: { $0.barcode == barcode }) { return same }
        let normalized = ProductName.normalized(name)
        var best: (product: Product, distance: Double)?
        for p in products where barcode == nil || p.barcode == nil {
            guard NameSimilarity.matches(normalized, p.normalizedName) else { continue }
            let similarity = NameSimilarity.similarity(normalized, p.normalizedName)
            if best == nil || similarity > best!.distance || (similarity == best!.distance && p.id < best!.product.id) {
                best = (p, similarity)
            }
        }
        return best?.product
    }
}
