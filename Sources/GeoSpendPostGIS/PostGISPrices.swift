import GeoSpend
import PostgresNIO

/// Products and price records on PostgreSQL (migration v6, `PostGISSchema.pricesSQL`), with the
/// file store's rules (Sources/GeoSpendSpatiaLite/PriceStorage.swift): the same matching, the
/// same outcomes, the same orders and the same ids.
///
/// A call's lookups go in a few round trips, not one per entry: its stores in one query, its
/// content hashes in another; entries are then matched to the catalogue in Swift, one after
/// another as on the file (a later entry can match a product an earlier one added), and the new
/// rows sent with one `COPY` per table.
extension PostGISStore: PriceStore {
    public func savePrices(_ entries: [PriceEntry], userID: String) async throws -> [PriceSaveOutcome] {
        try await editing { db in
            do { return try Self.insertPrices(db, entries, userID: userID) } catch let refused as UnknownStores { return refused.outcomes }
        }
    }

    public func updatePriceRecord(userID: String, id: Int64, _ f: PriceCorrection.Fields) async throws -> PriceRecord? {
        try await editing { db in
            let at = f.recordedAt
            // The store as the user sees it; an unknown one stays for the foreign key to refuse.
            let place = try Self.recordStores(db, [.id(f.storeID)], user: userID)[.id(f.storeID)] ?? .shared(f.storeID)
            let changed = try db.rows("""
                UPDATE price_records SET price_minor = \(f.price.minorUnits), currency = \(f.price.currency.code),
                    store_id = \(place.sharedID), user_store_number = \(place.addedNumber),
                    recorded_at = \(at.text), recorded_ms = \(at.epochMilliseconds), utc_offset_min = \(at.utcOffsetMinutes.map(Int32.init)),
                    local_date = \(at.localDate), quantity = \(f.quantity), unit = \(f.unit.rawValue), updated_at = \(unescaped: Self.nowSQL)
                WHERE pk = \(id) AND user_id = \(userID) RETURNING pk
                """)
            guard !changed.isEmpty else { return nil }
            var query = PriceQuery(userID: userID)
            query.recordID = id
            return try db.rows(Self.recordsQuery(query)).map(Self.record).first
        }
    }

    public func deletePriceRecord(userID: String, id: Int64) async throws -> Bool {
        try await editing { db in
            let gone = try db.rows("DELETE FROM price_records WHERE pk = \(id) AND user_id = \(userID) RETURNING product_id")
            guard let product = try gone.first?.decode(Int64.self) else { return false }
            // As `users delete`: the catalogue keeps a product while a record names it.
            _ = try db.rows("""
                DELETE FROM products WHERE id = \(product) AND NOT EXISTS (SELECT 1 FROM price_records AS r WHERE r.product_id = products.id)
                """)
            // No foreign key on the partitioned side: the feed entry loses its link as on the file.
            _ = try db.rows("UPDATE community_posts SET price_record_pk = NULL WHERE price_record_pk = \(id)")
            return true
        }
    }

    // MARK: Writing

    /// The failure that ends `insertPrices` when an entry names no store, carrying its answer.
    struct UnknownStores: Error { let outcomes: [PriceSaveOutcome] }

    /// `savePrices` inside the caller's write transaction (a receipt stores its expense in the
    /// same one): what `PriceSavePlan` decides, written with COPY. Nothing is written before
    /// every entry's store is known.
    static func insertPrices(_ db: PostGISReader, _ entries: [PriceEntry], userID: String) throws -> [PriceSaveOutcome] {
        let stores = try Self.recordStores(db, Set(entries.map(\.store)), user: userID)
        if let refused = PriceSavePlan.unknownStores(entries, stores: stores) { throw UnknownStores(outcomes: refused) }
        try Self.ensureUser(db, userID)
        let hashes = Array(Set(entries.map { $0.contentHash(userID: userID) }))
        let stored = Set(try db.rows("""
            SELECT content_hash FROM price_records WHERE user_id = \(userID) AND content_hash = ANY(\(hashes))
            """).map { try $0.decode(Int64.self) })
        let plan = PriceSavePlan(
            entries, userID: userID, stores: stores, storedHashes: stored,
            catalogue: try db.rows(productsQuery).map { try Self.product($0.makeRandomAccess(), from: 0) },
            firstRecordID: try db.rows("SELECT coalesce(max(pk), 0) + 1 FROM price_records")[0].decode(Int64.self))
        // Products first (the records refer to them), each in its final state.
        for p in plan.completedProducts {
            _ = try db.rows("""
                UPDATE products SET name = \(p.name), normalized_name = \(p.normalizedName), brand = \(p.brand),
                    category = \(p.category), barcode = \(p.barcode?.digits) WHERE id = \(p.id)
                """)
        }
        var products = CopyText()
        for p in plan.newProducts {
            products.integer(p.id); products.text(p.name); products.text(p.normalizedName); products.text(p.brand)
            products.text(p.category); products.text(p.barcode?.digits); products.text(p.defaultUnit.rawValue)
            products.endRow()
        }
        try db.copy("products", ["id", "name", "normalized_name", "brand", "category", "barcode", "default_unit"], products)
        var records = CopyText()
        for r in plan.records {
            let (entry, at) = (r.entry, r.entry.recordedAt)
            records.integer(r.id); records.text(userID); records.integer(r.productID); records.text(r.store.sharedID); records.integer(r.store.addedNumber)
            records.integer(entry.price.minorUnits); records.text(entry.price.currency.code); records.double(entry.quantity)
            records.text(entry.unit.rawValue); records.text(at.text); records.integer(at.epochMilliseconds)
            records.integer(at.utcOffsetMinutes.map(Int64.init)); records.text(at.localDate); records.text(entry.source.rawValue)
            records.integer(r.contentHash)
            records.endRow()
        }
        try db.copy("price_records", [
            "pk", "user_id", "product_id", "store_id", "user_store_number", "price_minor", "currency", "quantity", "unit", "recorded_at", "recorded_ms",
            "utc_offset_min", "local_date", "source", "content_hash",
        ], records)
        // A member's new records are also feed entries, in this transaction (issue 38).
        try Self.recordPriceUpdates(db, userID, plan.outcomes)
        return plan.outcomes
    }

    /// The store each of `user`'s entries names (their own `mine-N` first, then the registry;
    /// another user's `mine-N` is no store); the ones named but not stored are missing.
    static func recordStores(
        _ db: PostGISReader, _ references: Set<PriceEntry.StoreReference>, user: String
    ) throws -> [PriceEntry.StoreReference: RecordStore] {
        var found = try storeIDs(db, references).mapValues(RecordStore.shared)
        let numbers = references.compactMap { if case .id(let id) = $0 { AddedStoreID.number(id) } else { nil } }
        guard !numbers.isEmpty else { return found }
        for row in try db.rows("SELECT number FROM user_stores WHERE user_id = \(user) AND number = ANY(\(numbers))") {
            let n = try row.decode(Int64.self)
            found[.id(AddedStoreID.id(n))] = .added(number: n)
        }
        return found
    }

    /// The stored id of each store the entries name; the ones named but not stored are missing.
    /// Several stores may share one OpenStreetMap element (a re-import under other ids): the
    /// first by id, as on the file.
    private static func storeIDs(_ db: PostGISReader, _ references: Set<PriceEntry.StoreReference>) throws -> [PriceEntry.StoreReference: String] {
        // `NODE` and `node` name one element: one source id, several references.
        var ids: [String] = [], sources: [String: [PriceEntry.StoreReference]] = [:]
        for reference in references {
            switch reference {
            case .id(let id): ids.append(id)
            case .openStreetMap(let type, let number): sources["osm:\(type.lowercased())/\(number)", default: []].append(reference)
            }
        }
        var found: [PriceEntry.StoreReference: String] = [:]
        if !ids.isEmpty {
            for row in try db.rows("SELECT id FROM stores WHERE id = ANY(\(ids))") {
                let id = try row.decode(String.self)
                found[.id(id)] = id
            }
        }
        if !sources.isEmpty {
            for row in try db.rows("""
                SELECT DISTINCT ON (source_id) source_id, id FROM stores WHERE source_id = ANY(\(Array(sources.keys))) ORDER BY source_id, id
                """) {
                let (source, id) = try row.decode((String, String).self)
                for reference in sources[source] ?? [] { found[reference] = id }
            }
        }
        return found
    }

    // MARK: Reading

    static let productsQuery: PostgresQuery = "SELECT \(unescaped: productColumns) FROM products AS p ORDER BY p.id"
    static let productColumns = "p.id, p.name, p.normalized_name, p.brand, p.category, p.barcode, p.default_unit, p.created_at, p.updated_at"

    /// A record's store id as readers see it: the registry's, or `mine-N` for its user's own.
    static let storeKey = "coalesce(r.store_id, '\(AddedStoreID.prefix)' || r.user_store_number)"

    static let recordColumns = """
        r.pk, r.user_id, \(storeKey), r.price_minor, r.currency, r.quantity, r.unit, r.recorded_at, r.recorded_ms,
        r.utc_offset_min, r.local_date, r.source, p.id, p.name, p.normalized_name, p.brand, p.category, p.barcode, p.default_unit,
        p.created_at, p.updated_at, r.created_at, r.updated_at
        """

    /// Records matching `query`, ascending by recorded instant, then id.
    static func recordsQuery(_ query: PriceQuery) -> PostGISStatement {
        conditions(query).query(
            "SELECT \(recordColumns) FROM price_records AS r JOIN products AS p ON p.id = r.product_id",
            suffix: "ORDER BY r.recorded_ms, r.pk")
    }

    /// `PriceQuery`'s conditions over `price_records AS r` and `products AS p`, as the file's.
    static func conditions(_ q: PriceQuery) -> PostGISFilter {
        var w = PostGISFilter()
        if let ids = q.productIDs { w.add("r.product_id = ANY(\(w.bind(ids.sorted())))") }
        if let ids = q.storeIDs { w.add("\(storeKey) = ANY(\(w.bind(ids.sorted())))") }
        // NOCASE as SQLite has it: ASCII letters only.
        if let category = q.category { w.add("\(PostGISSchema.asciiFold("p.category")) = \(w.bind(PostGISRows.asciiFolded(category)))") }
        if let user = q.userID {
            w.add("r.user_id = \(w.bind(user))")
        } else if !q.eachUsersAddedStores {
            w.add("r.store_id IS NOT NULL")  // several users' records: no one's private places
        }
        if let from = q.from { w.add("r.local_date >= \(w.bind("\(from)"))") }
        if let to = q.to { w.add("r.local_date <= \(w.bind("\(to)"))") }
        if let currency = q.currency { w.add("r.currency = \(w.bind(currency.code))") }
        if let id = q.recordID { w.add("r.pk = \(w.bind(id))") }
        return w
    }

    static func record(_ row: PostgresRow) throws -> PriceRecord {
        let r = row.makeRandomAccess()
        let at = Timestamp(
            text: try r[7].decode(String.self), epochMilliseconds: try r[8].decode(Int64.self),
            utcOffsetMinutes: try r[9].decode(Int32?.self).map(Int.init), localDate: try r[10].decode(String.self))
        return PriceRecord(
            id: try r[0].decode(Int64.self), product: try product(r, from: 12), storeID: try r[2].decode(String.self),
            price: Money(minorUnits: try r[3].decode(Int64.self), currency: try Currency(code: try r[4].decode(String.self))),
            quantity: try r[5].decode(Double.self), unit: PriceUnit(rawValue: try r[6].decode(String.self)) ?? .pcs,
            recordedAt: at, userID: try r[1].decode(String.self), source: PriceSource(rawValue: try r[11].decode(String.self)) ?? .import,
            createdAt: try r[21].decode(String?.self), updatedAt: try r[22].decode(String?.self))
    }

    /// A product from nine columns starting at `i` (`productColumns`): id, name, normalized_name,
    /// brand, category, barcode, default_unit, created_at, updated_at.
    static func product(_ r: PostgresRandomAccessRow, from i: Int) throws -> Product {
        var p = Product(
            id: try r[i].decode(Int64.self), name: try r[i + 1].decode(String.self), brand: try r[i + 3].decode(String?.self),
            category: try r[i + 4].decode(String.self), barcode: try r[i + 5].decode(String?.self).map { try Barcode(parsing: $0) },
            defaultUnit: PriceUnit(rawValue: try r[i + 6].decode(String.self)) ?? .pcs)
        p.normalizedName = try r[i + 2].decode(String.self)  // as stored: matching compares what was stored
        p.createdAt = try r[i + 7].decode(String?.self)
        p.updatedAt = try r[i + 8].decode(String?.self)
        return p
    }
}

/// The price reads of a read scope, on its connection and snapshot.
extension PostGISReader: PriceReader {
    typealias S = PostGISStore

    func products() throws -> [Product] {
        try rows(S.productsQuery).map { try S.product($0.makeRandomAccess(), from: 0) }
    }

    func priceRecords(_ query: PriceQuery) throws -> [PriceRecord] {
        try rows(S.recordsQuery(query)).map(S.record)
    }

    func latestPrices(onOrBefore day: LocalDay, _ query: PriceQuery) throws -> [PriceRecord] {
        var narrowed = query
        if narrowed.to.map({ $0 > day }) ?? true { narrowed.to = day }
        // ROW_NUMBER over (store, product), latest first: one row each. The conditions go in
        // the inner query (between `select` and `suffix`).
        let query = S.conditions(narrowed).query("""
            SELECT \(S.recordColumns) FROM (
                SELECT r.*, ROW_NUMBER() OVER (PARTITION BY \(S.storeKey), r.product_id ORDER BY r.recorded_ms DESC, r.pk DESC) AS rank
                FROM price_records AS r JOIN products AS p ON p.id = r.product_id
            """, suffix: """
            ) AS r JOIN products AS p ON p.id = r.product_id
            WHERE r.rank = 1 ORDER BY \(S.storeKey), r.product_id
            """)
        return try rows(query).map(S.record)
    }

    /// The registry's stores and the user's own, in one snapshot.
    func storesWithPrices(userID: String?) throws -> [Store] {
        let query: PostgresQuery = """
            SELECT \(unescaped: PostGISRows.storeColumns) FROM stores AS s
            WHERE EXISTS (SELECT 1 FROM price_records AS r WHERE r.store_id = s.id AND (\(userID)::text IS NULL OR r.user_id = \(userID)))
            ORDER BY s.id
            """
        let stores = try rows(query).map { try PostGISRows.store($0.makeRandomAccess()) }
        guard let userID else { return stores }
        let own = try rows("""
            SELECT \(unescaped: S.addedStoreColumns) FROM user_stores AS u WHERE u.user_id = \(userID)
            AND EXISTS (SELECT 1 FROM price_records AS r WHERE r.user_id = \(userID) AND r.user_store_number = u.number)
            """).map { try S.addedStore($0).store }
        return RecordStore.merged(registry: stores, own: own)
    }
}
