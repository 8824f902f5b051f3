/// What a store offers for products and price records (`geospend prices …`, `products …`,
/// receipts, baskets, inflation). Products are a shared catalogue, like stores; each price
/// record belongs to the user who recorded it. Every call is one transaction or one snapshot.
public protocol PriceStore: Sendable {
    /// Stores price records for one user (created, with the default categories, when new), all
    /// or nothing, matching each entry to a product by `ProductMatch` (a new product is added
    /// to the catalogue, and later entries of the same call can match it).
    ///
    /// An entry whose record the user has already stored (same `PriceEntry.contentHash`) is
    /// `.unchanged`: importing a file twice is a no-op. When any entry names a store that is not
    /// in the store, nothing is written and those entries are `.unknownStore`.
    /// - Returns: one outcome per entry, in order.
    func savePrices(_ entries: [PriceEntry], userID: String) async throws -> [PriceSaveOutcome]

    /// The catalogue, by id.
    func products() async throws -> [Product]

    /// Records matching `query`, ascending by recorded instant, then id.
    func priceRecords(_ query: PriceQuery) async throws -> [PriceRecord]

    /// For each (store, product) among the records matching `query`, the latest one recorded on
    /// or before local day `day` (latest instant, then highest id), ordered by store id then
    /// product id: "a store's price for an item" in the basket rule.
    func latestPrices(onOrBefore day: LocalDay, _ query: PriceQuery) async throws -> [PriceRecord]

    /// The stores that have at least one price record (of `userID`'s, when given), by id: the
    /// registry's, and with `userID` that user's own added stores (`mine-N`) with records, which
    /// win over a registry store of the same id.
    func storesWithPrices(userID: String?) async throws -> [Store]

    /// Replaces the price, store, time, quantity and unit of `userID`'s record `id` (its product,
    /// source and content hash stay) and stamps its `updated_at`, in one transaction.
    /// - Returns: the record as stored, or nil when the user has no record `id` (another user's
    ///   is none).
    func updatePriceRecord(userID: String, id: Int64, _ fields: PriceCorrection.Fields) async throws -> PriceRecord?

    /// Deletes `userID`'s record `id` (a community feed entry made from it loses its link, as
    /// when a store goes). - Returns: false when the user has no record `id`.
    func deletePriceRecord(userID: String, id: Int64) async throws -> Bool
}

/// Which records a price query reads; nil fields do not narrow.
public struct PriceQuery: Sendable, Hashable {
    public var productIDs: Set<Int64>?
    public var storeIDs: Set<String>?
    /// The products' category, compared case-insensitively for ASCII letters (like categories).
    public var category: String?
    /// Only this user's records.
    public var userID: String?
    /// Recorded on local days `from…to` (inclusive; the day at the recorded offset).
    public var from: LocalDay?
    public var to: LocalDay?
    public var currency: Currency?
    /// Only the record with this id.
    public var recordID: Int64?
    /// With no `userID`, records at a user's added store (`mine-N`) are left out: an answer over
    /// several users' records must not show one user's private places to another. True only for
    /// a caller that answers each user from their own records alone (pantry predictions).
    public var eachUsersAddedStores = false

    public init(
        productIDs: Set<Int64>? = nil, storeIDs: Set<String>? = nil, category: String? = nil, userID: String? = nil,
        from: LocalDay? = nil, to: LocalDay? = nil, currency: Currency? = nil
    ) {
        self.productIDs = productIDs
        self.storeIDs = storeIDs
        self.category = category
        self.userID = userID
        self.from = from
        self.to = to
        self.currency = currency
    }
}

/// A price record to store, before it is matched to a product.
public struct PriceEntry: Sendable, Hashable {
    /// How the entry names its store.
    public enum StoreReference: Sendable, Hashable {
        /// A store id of the stores table, or the recording user's own added store (`mine-N`,
        /// theirs first when both have the id; another user's `mine-N` is no store).
        case id(String)
        /// An OpenStreetMap element (`node`, `way`, `relation`) and its number, as Open Prices
        /// names locations: the store whose source id is `osm:<type>/<number>`.
        case openStreetMap(type: String, number: Int64)
    }

    public var productName: String
    public var brand: String?
    public var barcode: Barcode?
    /// nil: "Other" for a new product; an existing product keeps its own.
    public var category: String?
    public var store: StoreReference
    public var price: Money
    public var quantity: Double
    public var unit: PriceUnit
    public var recordedAt: Timestamp
    public var source: PriceSource

    public init(
        productName: String, brand: String? = nil, barcode: Barcode? = nil, category: String? = nil,
        store: StoreReference, price: Money, quantity: Double = 1, unit: PriceUnit = .pcs, recordedAt: Timestamp,
        source: PriceSource
    ) {
        self.productName = productName
        self.brand = brand
        self.barcode = barcode
        self.category = category
        self.store = store
        self.price = price
        self.quantity = quantity
        self.unit = unit
        self.recordedAt = recordedAt
        self.source = source
    }

    /// FNV-1a of every field and the user: the same entry of the same user again is a no-op.
    public func contentHash(userID: String) -> Int64 {
        var h = FNV1a()
        h.add(userID); h.add(productName); h.add(brand); h.add(barcode?.digits); h.add(category)
        switch store {
        case .id(let id): h.add("id"); h.add(id)
        case .openStreetMap(let type, let number): h.add("osm"); h.add(type); h.add(String(number))
        }
        h.add(String(price.minorUnits)); h.add(price.currency.code); h.add(quantity.description); h.add(unit.rawValue)
        h.add(recordedAt.text); h.add(source.rawValue)
        return Int64(bitPattern: h.value)
    }
}

/// What happened to one `PriceEntry`.
public enum PriceSaveOutcome: Sendable, Hashable {
    /// Stored; `newProduct` when its product was added to the catalogue by this entry.
    case inserted(PriceRecord, newProduct: Bool)
    /// The user had stored this entry before; nothing changed.
    case unchanged
    /// No such store: nothing of the call was written.
    case unknownStore
}

/// Price reads as a read scope hands them out (every `ExpenseReader` is one): a basket, a price
/// history or a product lookup reads the catalogue, the records and their stores in one
/// snapshot. A store that keeps no prices finds none.
public protocol PriceReader {
    /// `PriceStore.products()`, in the scope's snapshot.
    func products() throws -> [Product]
    /// `PriceStore.priceRecords(_:)`, in the scope's snapshot.
    func priceRecords(_ query: PriceQuery) throws -> [PriceRecord]
    /// `PriceStore.latestPrices(onOrBefore:_:)`, in the scope's snapshot.
    func latestPrices(onOrBefore day: LocalDay, _ query: PriceQuery) throws -> [PriceRecord]
    /// `PriceStore.storesWithPrices(userID:)`, in the scope's snapshot.
    func storesWithPrices(userID: String?) throws -> [Store]
}

/// A backend's price reads are its read scope's: each call is one snapshot, and the backends
/// implement the queries once, in their readers.
extension PriceStore where Self: ExpenseStore {
    public func products() async throws -> [Product] { try await read { try $0.products() } }

    public func priceRecords(_ query: PriceQuery) async throws -> [PriceRecord] { try await read { try $0.priceRecords(query) } }

    public func latestPrices(onOrBefore day: LocalDay, _ query: PriceQuery) async throws -> [PriceRecord] {
        try await read { try $0.latestPrices(onOrBefore: day, query) }
    }

    public func storesWithPrices(userID: String?) async throws -> [Store] { try await read { try $0.storesWithPrices(userID: userID) } }
}
