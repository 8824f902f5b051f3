import GeoSpend
import GRDB

/// Products and price records in the `products` and `price_records` tables (migration v8,
/// `PriceSchema`). Product matching runs in Swift over the catalogue read inside the write
/// transaction (`ProductMatch`): a catalogue is thousands of names, and the similarity rule is
/// not something an index answers.
extension SpatiaLiteStore: PriceStore {
    public func savePrices(_ entries: [PriceEntry], userID: String) async throws -> [PriceSaveOutcome] {
        do {
            return try await writeTransaction { db in try Self.insertPrices(db, entries, userID: userID) }
        } catch let refused as UnknownStores {
            return refused.outcomes
        }
    }

    /// `savePrices` inside a transaction the caller holds (a receipt stores its expense in the
    /// same one): what `PriceSavePlan` decides, written row by row.
    static func insertPrices(_ db: Database, _ entries: [PriceEntry], userID: String) throws -> [PriceSaveOutcome] {
        var stores: [PriceEntry.StoreReference: RecordStore] = [:]
        for reference in Set(entries.map(\.store)) {
            if let place = try Self.recordStore(db, reference, user: userID) { stores[reference] = place }
        }
        if let refused = PriceSavePlan.unknownStores(entries, stores: stores) { throw UnknownStores(outcomes: refused) }
        try Self.ensureUser(db, userID)
        var stored: Set<Int64> = []
        for hash in Set(entries.map { $0.contentHash(userID: userID) }) where try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM price_records WHERE user_id = ? AND content_hash = ?)", arguments: [userID, hash]) == true {
            stored.insert(hash)
        }
        let plan = PriceSavePlan(
            entries, userID: userID, stores: stores, storedHashes: stored, catalogue: try Self.fetchProducts(db, where: "1", []),
            firstRecordID: try Int64.fetchOne(db, sql: "SELECT coalesce(max(pk), 0) + 1 FROM price_records") ?? 1)
        for p in plan.completedProducts {
            try db.execute(sql: """
                UPDATE products SET name = ?, normalized_name = ?, brand = ?, category = ?, barcode = ? WHERE id = ?
                """, arguments: [p.name, p.normalizedName, p.brand, p.category, p.barcode?.digits, p.id])
        }
        for p in plan.newProducts {
            try db.execute(sql: """
                INSERT INTO products (id, name, normalized_name, brand, category, barcode, default_unit) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [p.id, p.name, p.normalizedName, p.brand, p.category, p.barcode?.digits, p.defaultUnit.rawValue])
        }
        for r in plan.records {
            let (entry, at) = (r.entry, r.entry.recordedAt)
            try db.execute(sql: """
                INSERT INTO price_records (pk, user_id, product_id, store_id, user_store_number, price_minor, currency, quantity, unit,
                    recorded_at, recorded_ms, utc_offset_min, local_date, source, content_hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [r.id, userID, r.productID, r.store.sharedID, r.store.addedNumber, entry.price.minorUnits, entry.price.currency.code,
                                 entry.quantity, entry.unit.rawValue, at.text, at.epochMilliseconds, at.utcOffsetMinutes,
                                 at.localDate, entry.source.rawValue, r.contentHash])
        }
        // A member's new records are also feed entries, in this transaction (issue 38).
        try CommunitySchema.recordPriceUpdates(db, userID, plan.outcomes)
        return plan.outcomes
    }


    public func updatePriceRecord(userID: String, id: Int64, _ f: PriceCorrection.Fields) async throws -> PriceRecord? {
        try await writeTransaction { db in
            let at = f.recordedAt
            // The store as the user sees it; an unknown one stays for the foreign key to refuse.
            let place = try Self.recordStore(db, .id(f.storeID), user: userID) ?? .shared(f.storeID)
            try db.execute(sql: """
                UPDATE price_records SET price_minor = ?, currency = ?, store_id = ?, user_store_number = ?, recorded_at = ?, recorded_ms = ?,
                    utc_offset_min = ?, local_date = ?, quantity = ?, unit = ?, updated_at = \(Self.nowSQL)
                WHERE pk = ? AND user_id = ?
                """, arguments: [f.price.minorUnits, f.price.currency.code, place.sharedID, place.addedNumber, at.text, at.epochMilliseconds,
                                 at.utcOffsetMinutes, at.localDate, f.quantity, f.unit.rawValue, id, userID])
            guard db.changesCount > 0 else { return nil }
            var query = PriceQuery(userID: userID)
            query.recordID = id
            return try Self.priceRecords(db, query).first
        }
    }

    public func deletePriceRecord(userID: String, id: Int64) async throws -> Bool {
        try await writeTransaction { db in
            guard let product = try Int64.fetchOne(
                db, sql: "SELECT product_id FROM price_records WHERE pk = ? AND user_id = ?", arguments: [id, userID]) else { return false }
            try db.execute(sql: "DELETE FROM price_records WHERE pk = ? AND user_id = ?", arguments: [id, userID])
            // As `users delete`: the catalogue keeps a product while a record names it.
            try db.execute(sql: """
                DELETE FROM products WHERE id = ? AND NOT EXISTS (SELECT 1 FROM price_records AS r WHERE r.product_id = products.id)
                """, arguments: [product])
            return true
        }
    }

    /// The failure that rolls `savePrices` back, carrying its answer out of the transaction.
    struct UnknownStores: Error { let outcomes: [PriceSaveOutcome] }

    /// The store an entry of `user`'s names, or nil when there is none: their own `mine-N`
    /// first, then the registry (another user's `mine-N` is no store).
    static func recordStore(_ db: Database, _ reference: PriceEntry.StoreReference, user: String) throws -> RecordStore? {
        if case .id(let id) = reference, let n = AddedStoreID.number(id), try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM user_stores WHERE user_id = ? AND number = ?)", arguments: [user, n]) == true {
            return .added(number: n)
        }
        return try storeID(db, reference).map(RecordStore.shared)
    }

    /// The registry's id of the store an entry names, or nil when there is none.
    static func storeID(_ db: Database, _ reference: PriceEntry.StoreReference) throws -> String? {
        switch reference {
        case .id(let id):
            return try String.fetchOne(db, sql: "SELECT id FROM stores WHERE id = ?", arguments: [id])
        case .openStreetMap(let type, let number):
            // Several stores may share one element (a re-import under other ids): the first by id.
            return try String.fetchOne(
                db, sql: "SELECT id FROM stores WHERE source_id = ? ORDER BY id LIMIT 1",
                arguments: ["osm:\(type.lowercased())/\(number)"])
        }
    }

    /// A record's store id as readers see it: the registry's, or `mine-N` for its user's own.
    static func priceRecords(_ db: Database, _ query: PriceQuery) throws -> [PriceRecord] {
        let (conditions, arguments) = conditions(query)
        return try fetchRecords(db, sql: """
            SELECT \(recordColumns) FROM price_records AS r JOIN products AS p ON p.id = r.product_id
            WHERE \(conditions) ORDER BY r.recorded_ms, r.pk
            """, arguments)
    }

    static let storeKey = "coalesce(r.store_id, '\(AddedStoreID.prefix)' || r.user_store_number)"

    static let recordColumns = """
        r.pk, r.user_id, \(storeKey), r.price_minor, r.currency, r.quantity, r.unit, r.recorded_at, r.recorded_ms,
        r.utc_offset_min, r.local_date, r.source, p.id, p.name, p.normalized_name, p.brand, p.category, p.barcode, p.default_unit,
        p.created_at, p.updated_at, r.created_at, r.updated_at
        """

    static func conditions(_ q: PriceQuery) -> (String, [any DatabaseValueConvertible]) {
        var sql = ["1"]
        var arguments: [any DatabaseValueConvertible] = []
        if let ids = q.productIDs {
            sql.append("r.product_id IN (SELECT value FROM json_each(?))")
            arguments.append(JSONOutput.array(ids.sorted().map { .integer($0) }).serialized(pretty: false))
        }
        if let ids = q.storeIDs {
            sql.append("\(storeKey) IN (SELECT value FROM json_each(?))")
            arguments.append(StoredRows.jsonArray(ids.sorted()))
        }
        if let category = q.category {
            sql.append("p.category = ? COLLATE NOCASE")
            arguments.append(category)
        }
        if let user = q.userID {
            sql.append("r.user_id = ?")
            arguments.append(user)
        } else if !q.eachUsersAddedStores {
            sql.append("r.store_id IS NOT NULL")  // several users' records: no one's private places
        }
        if let from = q.from {
            sql.append("r.local_date >= ?")
            arguments.append("\(from)")
        }
        if let to = q.to {
            sql.append("r.local_date <= ?")
            arguments.append("\(to)")
        }
        if let currency = q.currency {
            sql.append("r.currency = ?")
            arguments.append(currency.code)
        }
        if let id = q.recordID {
            sql.append("r.pk = ?")
            arguments.append(id)
        }
        return (sql.joined(separator: " AND "), arguments)
    }

    static func fetchRecords(_ db: Database, sql: String, _ arguments: [any DatabaseValueConvertible]) throws -> [PriceRecord] {
        try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { r in
            let currency = try Currency(code: r[4])
            let product = try decodeProduct(r, from: 12)
            return PriceRecord(
                id: r[0], product: product, storeID: r[2], price: Money(minorUnits: r[3], currency: currency), quantity: r[5],
                unit: PriceUnit(rawValue: r[6]) ?? .pcs,
                recordedAt: Timestamp(text: r[7], epochMilliseconds: r[8], utcOffsetMinutes: r[9], localDate: r[10]),
                userID: r[1], source: PriceSource(rawValue: r[11]) ?? .import, createdAt: r[21], updatedAt: r[22])
        }
    }

    static func fetchProducts(_ db: Database, where condition: String, _ arguments: [any DatabaseValueConvertible]) throws -> [Product] {
        try Row.fetchAll(db, sql: """
            SELECT \(productColumns)
            FROM products AS p WHERE \(condition) ORDER BY p.id
            """, arguments: StatementArguments(arguments)).map { try decodeProduct($0, from: 0) }
    }

    static let productColumns = "p.id, p.name, p.normalized_name, p.brand, p.category, p.barcode, p.default_unit, p.created_at, p.updated_at"

    /// A product from nine columns starting at `i`: id, name, normalized_name, brand, category,
    /// barcode, default_unit, created_at, updated_at.
    static func decodeProduct(_ r: Row, from i: Int) throws -> Product {
        var p = Product(
            id: r[i], name: r[i + 1], brand: r[i + 3], category: r[i + 4],
            barcode: try (r[i + 5] as String?).map { try Barcode(parsing: $0) },
            defaultUnit: PriceUnit(rawValue: r[i + 6]) ?? .pcs)
        p.normalizedName = r[i + 2]  // as stored: matching compares what was stored
        p.createdAt = r[i + 7]
        p.updatedAt = r[i + 8]
        return p
    }
}

/// The price reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: PriceReader {
    public func products() throws -> [Product] {
        try SpatiaLiteStore.fetchProducts(db, where: "1", [])
    }

    public func priceRecords(_ query: PriceQuery) throws -> [PriceRecord] {
        try SpatiaLiteStore.priceRecords(db, query)
    }

    public func latestPrices(onOrBefore day: LocalDay, _ query: PriceQuery) throws -> [PriceRecord] {
        typealias S = SpatiaLiteStore
        var narrowed = query
        if narrowed.to.map({ $0 > day }) ?? true { narrowed.to = day }
        let (conditions, arguments) = S.conditions(narrowed)
        // ROW_NUMBER over (store, product), latest first: one row each.
        return try S.fetchRecords(db, sql: """
            SELECT \(S.recordColumns) FROM (
                SELECT r.*, ROW_NUMBER() OVER (PARTITION BY \(S.storeKey), r.product_id ORDER BY r.recorded_ms DESC, r.pk DESC) AS rank
                FROM price_records AS r JOIN products AS p ON p.id = r.product_id WHERE \(conditions)
            ) AS r JOIN products AS p ON p.id = r.product_id
            WHERE r.rank = 1 ORDER BY \(S.storeKey), r.product_id
            """, arguments)
    }

    public func storesWithPrices(userID: String?) throws -> [Store] {
        let s = RawStatement(try db.cachedStatement(sql: """
            SELECT \(StoredRows.storeColumns) FROM stores AS s
            WHERE EXISTS (SELECT 1 FROM price_records AS r WHERE r.store_id = s.id AND (?1 IS NULL OR r.user_id = ?1))
            ORDER BY s.id
            """))
        s.reset()
        defer { s.reset() }
        s.bind(1, userID)
        var stores: [Store] = []
        while try s.step(db) { stores.append(StoredRows.decodeStore(s)) }
        guard let userID else { return stores }
        let own = try Row.fetchAll(db, sql: """
            SELECT \(StoreChoiceSchema.addedColumns) FROM user_stores AS u WHERE u.user_id = ?1
            AND EXISTS (SELECT 1 FROM price_records AS r WHERE r.user_id = ?1 AND r.user_store_number = u.number)
            """, arguments: [userID]).map { StoreChoiceSchema.added($0).store }
        return RecordStore.merged(registry: stores, own: own)
    }
}
