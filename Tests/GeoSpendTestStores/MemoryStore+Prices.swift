import GeoSpend

/// A price record as the file's `price_records` row keeps it: its product by id, its store the
/// registry's or its user's own (`RecordStore`).
struct MemoryPriceRecord {
    let id: Int64
    let user: ExactText
    var productID: Int64
    var store: RecordStore
    var price: Money
    var quantity: Double
    var unit: PriceUnit
    var recordedAt: Timestamp
    let source: PriceSource
    let contentHash: Int64
    let createdAt: String
    var updatedAt: String
    /// The receipt it was read from (MemoryStore+Receipts.swift).
    var receiptID: String? = nil
}

/// What stops a `savePrices` before it writes anything: the outcomes to answer with.
struct MemoryUnknownStores: Error { let outcomes: [PriceSaveOutcome] }

/// Products and price records with the file's rules (Sources/GeoSpendSpatiaLite/PriceStorage.swift):
/// what `PriceSavePlan` decides (matching, completing and adding products) applied to the
/// edit's copy, all or nothing; a product goes when the last record naming it goes; a member's
/// new records at registry stores are feed entries.
extension MemoryStore: PriceStore {
    public func savePrices(_ entries: [PriceEntry], userID: String) async throws -> [PriceSaveOutcome] {
        try await edit { state in
            do { return try state.insertPrices(entries, userID: userID) } catch let refused as MemoryUnknownStores { return refused.outcomes }
        }
    }

    public func updatePriceRecord(userID: String, id: Int64, _ f: PriceCorrection.Fields) async throws -> PriceRecord? {
        try await edit { state in
            let user = ExactText(userID)
            guard let at = state.priceRecords.firstIndex(where: { $0.id == id && $0.user == user }) else { return nil }
            // The store as the user sees it; an unknown one is refused, as the file's foreign key.
            guard let place = state.recordStore(.id(f.storeID), user: userID) else { throw EditError.unknownStore(f.storeID) }
            state.priceRecords[at].store = place
            state.priceRecords[at].price = f.price
            state.priceRecords[at].recordedAt = f.recordedAt
            state.priceRecords[at].quantity = f.quantity
            state.priceRecords[at].unit = f.unit
            state.priceRecords[at].updatedAt = MemoryClock.now()
            return state.record(state.priceRecords[at])
        }
    }

    public func deletePriceRecord(userID: String, id: Int64) async throws -> Bool {
        try await edit { state in
            guard let at = state.priceRecords.firstIndex(where: { $0.id == id && $0.user == ExactText(userID) }) else { return false }
            let product = state.priceRecords.remove(at: at).productID
            state.dropUnnamedProducts([product])
            return true
        }
    }
}

extension MemoryState {
    /// `savePrices` in the edit's copy (a receipt stores its expense in the same edit).
    /// - Throws: `MemoryUnknownStores`, before anything is written, when an entry names no store.
    mutating func insertPrices(_ entries: [PriceEntry], userID: String) throws -> [PriceSaveOutcome] {
        var stores: [PriceEntry.StoreReference: RecordStore] = [:]
        for reference in Set(entries.map(\.store)) {
            if let place = recordStore(reference, user: userID) { stores[reference] = place }
        }
        if let refused = PriceSavePlan.unknownStores(entries, stores: stores) { throw MemoryUnknownStores(outcomes: refused) }
        ensureUser(userID)
        let user = ExactText(userID)
        let hashes = Set(entries.map { $0.contentHash(userID: userID) })
        let stored = Set(priceRecords.filter { $0.user == user && hashes.contains($0.contentHash) }.map(\.contentHash))
        let plan = PriceSavePlan(
            entries, userID: userID, stores: stores, storedHashes: stored, catalogue: products.values.sorted { $0.id < $1.id },
            firstRecordID: (priceRecords.map(\.id).max() ?? 0) + 1)
        // The catalogue's own bound (the file's CHECK): a line no receipt could print.
        if let long = plan.newProducts.first(where: { !(1...4096).contains($0.name.unicodeScalars.count) }) {
            throw EditError.invalid(field: "product", reason: "a product name has 1 to 4,096 characters, not \(long.name.unicodeScalars.count)")
        }
        let now = MemoryClock.now()
        for var p in plan.completedProducts {
            p.updatedAt = now
            products[p.id] = p
        }
        for var p in plan.newProducts {
            (p.createdAt, p.updatedAt) = (now, now)
            products[p.id] = p
        }
        for r in plan.records {
            let e = r.entry
            priceRecords.append(MemoryPriceRecord(
                id: r.id, user: user, productID: r.productID, store: r.store, price: e.price, quantity: e.quantity, unit: e.unit,
                recordedAt: e.recordedAt, source: e.source, contentHash: r.contentHash, createdAt: now, updatedAt: now))
        }
        // A member's new records are also feed entries, in this edit.
        recordPriceUpdates(userID, plan.outcomes)
        return plan.outcomes
    }

    /// The store an entry of `user`'s names: their own `mine-N` first, then the registry
    /// (another user's `mine-N` is no store); nil when there is none.
    func recordStore(_ reference: PriceEntry.StoreReference, user: String) -> RecordStore? {
        switch reference {
        case .id(let id):
            if let n = AddedStoreID.number(id), storeChoices[ExactText(user)]?.added[n] != nil { return .added(number: n) }
            return stores[ExactText(id)] == nil ? nil : .shared(id)
        case .openStreetMap(let type, let number):
            // Several stores may share one element: the first by id.
            let source = "osm:\(type.lowercased())/\(number)"
            return stores.values.map(\.store).filter { $0.sourceID == source }.map(\.id).min(by: byBytes).map(RecordStore.shared)
        }
    }

    /// The catalogue keeps a product while a record names it; every user's tags and flags of
    /// one it drops go with it, and feed entries about it lose their link.
    mutating func dropUnnamedProducts(_ ids: Set<Int64>) {
        let named = Set(priceRecords.map(\.productID))
        for id in ids where !named.contains(id) {
            products[id] = nil
            for user in Array(productMarks.keys) {
                productMarks[user]!.forget(id)
                if productMarks[user]!.isEmpty { productMarks[user] = nil }
            }
            for i in community.posts.indices where community.posts[i].fields.productID == id { community.posts[i].fields.productID = nil }
        }
    }

    func record(_ r: MemoryPriceRecord) -> PriceRecord {
        PriceRecord(
            id: r.id, product: products[r.productID]!, storeID: r.store.id, price: r.price, quantity: r.quantity, unit: r.unit,
            recordedAt: r.recordedAt, userID: r.user.text, source: r.source, createdAt: r.createdAt, updatedAt: r.updatedAt)
    }

    /// Whether `r` is one `q` asks for (the file's `PriceSchema.conditions`).
    func matches(_ r: MemoryPriceRecord, _ q: PriceQuery) -> Bool {
        if let ids = q.productIDs, !ids.contains(r.productID) { return false }
        if let ids = q.storeIDs, !ids.contains(r.store.id) { return false }
        if let category = q.category, Identity.asciiLowercased(products[r.productID]!.category) != Identity.asciiLowercased(category) { return false }
        if let user = q.userID {
            if r.user != ExactText(user) { return false }
        } else if !q.eachUsersAddedStores, r.store.sharedID == nil {
            return false  // several users' records: no one's private places
        }
        if let from = q.from, r.recordedAt.localDate < from.description { return false }
        if let to = q.to, r.recordedAt.localDate > to.description { return false }
        if let currency = q.currency, r.price.currency != currency { return false }
        if let id = q.recordID, r.id != id { return false }
        return true
    }

    /// Records matching `q`, by recorded instant, then id.
    func records(matching q: PriceQuery) -> [MemoryPriceRecord] {
        priceRecords.filter { matches($0, q) }.sorted {
            ($0.recordedAt.epochMilliseconds, $0.id) < ($1.recordedAt.epochMilliseconds, $1.id)
        }
    }
}

extension MemoryReader {
    /// By id.
    func products() throws -> [Product] { state.products.values.sorted { $0.id < $1.id } }

    func priceRecords(_ query: PriceQuery) throws -> [PriceRecord] { state.records(matching: query).map(state.record) }

    /// Per (store, product), the latest on or before `day` (instant, then id), by store id (bytes) then product.
    func latestPrices(onOrBefore day: LocalDay, _ query: PriceQuery) throws -> [PriceRecord] {
        var narrowed = query
        if narrowed.to.map({ $0 > day }) ?? true { narrowed.to = day }
        var latest: [RecordStore: [Int64: MemoryPriceRecord]] = [:]
        for r in state.records(matching: narrowed) { latest[r.store, default: [:]][r.productID] = r }  // ascending: the last wins
        return latest.values.flatMap(\.values).sorted { a, b in
            a.store.id != b.store.id ? byBytes(a.store.id, b.store.id) : a.productID < b.productID
        }.map(state.record)
    }

    func storesWithPrices(userID: String?) throws -> [Store] {
        let records = state.priceRecords.filter { userID == nil || $0.user == ExactText(userID!) }
        let shared = Set(records.compactMap(\.store.sharedID)).compactMap { state.stores[ExactText($0)]?.store }.sorted { byBytes($0.id, $1.id) }
        guard let userID else { return shared }
        let numbers = Set(records.compactMap(\.store.addedNumber))
        let own = (state.storeChoices[ExactText(userID)]?.added ?? [:]).filter { numbers.contains($0.key) }.sorted { $0.key < $1.key }.map(\.value.store)
        return RecordStore.merged(registry: shared, own: own)
    }
}

extension MemoryState {
    /// `UserDataStore.restore`'s products and price records (the file's `restoreProducts` and
    /// `restorePriceRecords`): each product found in the catalogue (barcode; the exported id
    /// with the same fields; the same name, brand and category without a barcode) or added
    /// (the exported id when free), then the records with their times and content hashes.
    /// - Returns: each restored product's id here (by index), and each exported id's.
    mutating func restorePrices(_ data: UserRestoreData, user: String) -> (ids: [Int64], exported: [Int64: Int64]) {
        let now = MemoryClock.now()
        var ids: [Int64] = []
        for p in data.products {
            let sameFields = { (c: Product) in p.onlyMarked || (c.brand == p.brand && c.category == p.category) }
            let catalogue = products.values.sorted { $0.id < $1.id }
            if let code = p.barcode?.digits, let found = catalogue.first(where: { $0.barcode?.digits == code }) {
                ids.append(found.id)
            } else if let e = p.exportedID, let found = products[e], found.name == p.name, found.barcode == p.barcode, sameFields(found) {
                ids.append(found.id)
            } else if p.barcode == nil, let found = catalogue.first(where: { $0.name == p.name && $0.barcode == nil && sameFields($0) }) {
                ids.append(found.id)
            } else {
                var product = p.product
                product.id = p.exportedID.flatMap { products[$0] == nil ? $0 : nil } ?? ((products.keys.max() ?? 0) + 1)
                (product.createdAt, product.updatedAt) = (now, now)
                products[product.id] = product
                ids.append(product.id)
            }
        }
        for r in data.priceRecords {
            let e = r.entry
            priceRecords.append(MemoryPriceRecord(
                id: (priceRecords.map(\.id).max() ?? 0) + 1, user: ExactText(user), productID: ids[r.product],
                store: data.storeChoices.recordStore(e.storeID), price: e.price, quantity: e.quantity, unit: e.unit, recordedAt: e.recordedAt,
                source: e.source, contentHash: e.contentHash(userID: user), createdAt: r.createdAt ?? now, updatedAt: r.updatedAt ?? now,
                receiptID: r.receiptID))
        }
        var exported: [Int64: Int64] = [:]
        for (p, id) in zip(data.products, ids) { if let e = p.exportedID { exported[e] = id } }
        return (ids, exported)
    }
}
