/// One observed price: a product at a store at an instant, recorded by one user.
///
/// Price records belong to the user who recorded them (`users export` writes them, `users
/// delete` removes them); the product and the store are shared.
public struct PriceRecord: Sendable, Hashable {
    /// The store's row id; 0 for a record not stored yet.
    public var id: Int64
    public var product: Product
    public var storeID: String
    /// What was paid for `quantity` `unit`s: exact, > 0.
    public var price: Money
    /// How much the price is for, > 0 (1 by default).
    public var quantity: Double
    public var unit: PriceUnit
    /// When, with the offset it was recorded at (or a bare day).
    public var recordedAt: Timestamp
    public var userID: String
    public var source: PriceSource
    /// When the store added and last changed the row (`2026-03-05T10:00:00.000Z`, UTC, the
    /// store's clock); nil for a record stored before migration v27 (SpatiaLite) / v18
    /// (PostgreSQL), which kept no such time, and for one not stored yet.
    public var createdAt: String?
    public var updatedAt: String?

    public init(
        id: Int64 = 0, product: Product, storeID: String, price: Money, quantity: Double = 1, unit: PriceUnit = .pcs,
        recordedAt: Timestamp, userID: String, source: PriceSource, createdAt: String? = nil, updatedAt: String? = nil
    ) {
        self.id = id
        self.product = product
        self.storeID = storeID
        self.price = price
        self.quantity = quantity
        self.unit = unit
        self.recordedAt = recordedAt
        self.userID = userID
        self.source = source
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Price per kilogram, litre or piece (`unit.base`), in major units of `price.currency`:
    /// 1.29 for 500 g → 2.58 per kg. A `Double`, for comparing and averaging; totals use `price`.
    public var unitPrice: Double { price.majorUnits / (quantity * unit.baseFactor) }
}
