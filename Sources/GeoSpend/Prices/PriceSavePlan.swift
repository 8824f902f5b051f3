/// What saving a batch of price entries writes (`PriceStore.savePrices`, a receipt's lines),
/// decided here once for every backend, which reads what the plan needs and writes what it says:
///
/// - every entry's store must be known, else nothing is written (`unknownStores`);
/// - an entry the user stored before (the same `contentHash`, earlier in the batch included) is
///   `unchanged`;
/// - the product is matched in the catalogue (`ProductMatch`) and completed by the entry where
///   it lacks a field (`Product.completed(by:)`), else added to it.
///
/// New rows are numbered as SQLite numbers an INTEGER PRIMARY KEY without AUTOINCREMENT (the
/// largest id plus one), so both backends give the same ids.
public struct PriceSavePlan: Sendable {
    /// A price record to insert.
    public struct Record: Sendable {
        public let id: Int64
        public let entry: PriceEntry
        public let productID: Int64
        public let store: RecordStore
        public let contentHash: Int64
    }

    /// One per entry, in order; an inserted one carries its record as it will be stored.
    public let outcomes: [PriceSaveOutcome]
    /// Products to add, in their final state, by id (from the largest stored id plus one).
    public let newProducts: [Product]
    /// Stored products an entry completed, in their final state, in the catalogue's order.
    public let completedProducts: [Product]
    /// Records to insert, in entry order.
    public let records: [Record]

    /// The call's outcomes when an entry names a store missing from `stores` (`unknownStore` for
    /// each such entry, `unchanged` for the rest: nothing is written); nil when all are known.
    public static func unknownStores(_ entries: [PriceEntry], stores: [PriceEntry.StoreReference: RecordStore]) -> [PriceSaveOutcome]? {
        guard entries.contains(where: { stores[$0.store] == nil }) else { return nil }
        return entries.map { stores[$0.store] == nil ? .unknownStore : .unchanged }
    }

    /// - Parameters:
    ///   - stores: every entry's store (check `unknownStores` first).
    ///   - storedHashes: the content hashes among the entries' that the user has stored.
    ///   - catalogue: every stored product.
    ///   - firstRecordID: the largest stored record id plus one.
    public init(
        _ entries: [PriceEntry], userID: String, stores: [PriceEntry.StoreReference: RecordStore], storedHashes: Set<Int64>,
        catalogue stored: [Product], firstRecordID: Int64
    ) {
        var catalogue = stored
        let firstNewProduct = (stored.map(\.id).max() ?? 0) + 1
        var (nextProduct, nextRecord) = (firstNewProduct, firstRecordID)
        var seen = storedHashes
        var completed: Set<Int64> = []
        var outcomes: [PriceSaveOutcome] = []
        var records: [Record] = []
        for entry in entries {
            let hash = entry.contentHash(userID: userID)
            guard let store = stores[entry.store], seen.insert(hash).inserted else {
                outcomes.append(.unchanged)
                continue
            }
            var product: Product
            var isNew = false
            if let found = ProductMatch.find(name: entry.productName, barcode: entry.barcode, among: catalogue) {
                product = found
                if let better = product.completed(by: entry) {
                    product = better
                    catalogue[catalogue.firstIndex { $0.id == product.id }!] = product
                    if product.id < firstNewProduct { completed.insert(product.id) }
                }
            } else {
                product = Product(
                    id: nextProduct, name: entry.productName, brand: entry.brand ?? ProductBrand.brand(in: entry.productName),
                    category: entry.category, barcode: entry.barcode, defaultUnit: entry.unit)
                catalogue.append(product)
                nextProduct += 1
                isNew = true
            }
            records.append(Record(id: nextRecord, entry: entry, productID: product.id, store: store, contentHash: hash))
            outcomes.append(.inserted(
                PriceRecord(
                    id: nextRecord, product: product, storeID: store.id, price: entry.price, quantity: entry.quantity, unit: entry.unit,
                    recordedAt: entry.recordedAt, userID: userID, source: entry.source),
                newProduct: isNew))
            nextRecord += 1
        }
        self.outcomes = outcomes
        self.records = records
        self.newProducts = catalogue.filter { $0.id >= firstNewProduct }
        self.completedProducts = catalogue.filter { completed.contains($0.id) }
    }
}
