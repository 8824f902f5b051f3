import GeoSpend
import GRDB

extension ExpenseFilter {
    /// One user's rows, not narrowed to stores: what the rowid paths serve.
    var readsOneUser: Bool { userID != nil && storeIDs.isEmpty }
}

/// The reads behind insights, snapping and reports: lean rows, bound and decoded directly.
extension SpatiaLiteReader {
    /// Runs one cached statement on a pooled read connection and decodes every row.
    func fetchAll<T>(_ sql: String, bind: (RawStatement) -> Void = { _ in }, decode: (RawStatement) throws -> T) throws -> [T] {
        try read { db in
            let s = RawStatement(try db.cachedStatement(sql: sql))
            defer { s.reset() }
            s.reset()
            bind(s)
            var rows: [T] = []
            while try s.step(db) { rows.append(try decode(s)) }
            return rows
        }
    }

    public func forEachSpendingPointBatch(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: ([SpendingPoint]) throws -> Void
    ) throws {
        try forEachSpendingPointBatch(filter, geotaggedOnly: geotaggedOnly, access: nil, body)
    }

    /// `access` nil: the one `spendingRowAccess` picks (tests force each, with a user for
    /// `.rowidRuns`).
    func forEachSpendingPointBatch(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access forced: SpendingRowAccess?, _ body: ([SpendingPoint]) throws -> Void
    ) throws {
        var decoder = SpendingPointDecoder(filter: filter)
        var batch = Batch<SpendingPoint>()
        try forEachSpendingRow(filter, geotaggedOnly: geotaggedOnly, access: forced) { s, lookup in
            try batch.add(decoder.point(s, lookup), to: body)
        }
        try batch.flush(to: body)
    }

    public func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns {
        try spendingColumns(filter, access: nil)
    }

    /// Each row's timestamp text and local date come with it (first and last visits need no
    /// lookup by id: two index seeks each, a fifth of insights' time per 100-expense user). One
    /// user's rows come from `expenses_user_time` alone, which holds every column read (v15):
    /// no probe chooses a path, no table seek per row. They stay in the index's order (instant,
    /// then the other columns it holds, id last): it depends on the user's rows alone, as rowid
    /// order does, and insights need no other (putting 100k rows back in rowid order was 8.7 % of
    /// a heavy user's instructions, callgrind). `access` nil: that path for one user,
    /// `spendingRowAccess`'s otherwise (tests force each).
    func spendingColumns(_ filter: ExpenseFilter, access forced: SpendingRowAccess?) throws -> SpendingColumns {
        try read { db in
            let access = try forced ?? (filter.readsOneUser ? .index : Self.spendingRowAccess(filter, db))
            var decoder = SpendingColumnsDecoder()
            guard let ranges = try Self.rowidRanges(filter, access: access, db) else {
                try Self.stepSpendingRows(filter, geotaggedOnly: false, access: access, forColumns: true, db) { try decoder.add($0, $1) }
                return decoder.columns
            }
            try Self.stepSpendingRows(filter, geotaggedOnly: false, inRowidRanges: ranges, forColumns: true, db) { try decoder.add($0, $1) }
            return decoder.columns
        }
    }

    /// Steps `spendingPointQuery` over every matching row in one read transaction, handing each
    /// to `body` with a way to look up category names on the same connection.
    private func forEachSpendingRow(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access forced: SpendingRowAccess?,
        _ body: (RawStatement, CategoryNameLookup) throws -> Void
    ) throws {
        try read { db in
            try Self.stepSpendingRows(filter, geotaggedOnly: geotaggedOnly, access: forced ?? Self.spendingRowAccess(filter, db), db, body)
        }
    }

    /// `forEachSpendingRow` on a connection already reading.
    private static func stepSpendingRows(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access: SpendingRowAccess, forColumns: Bool = false, _ db: Database,
        _ body: (RawStatement, CategoryNameLookup) throws -> Void
    ) throws {
        if access == .rowidRuns, let user = filter.userID {
            let runs = try SpatiaLiteStore.rowidRuns(of: user, within: OccurredWindow(filter), db)
            return try stepSpendingRows(filter, geotaggedOnly: geotaggedOnly, inRowidRanges: runs, forColumns: forColumns, db, body)
        }
        let (sql, arguments, _) = spendingPointQuery(filter, geotaggedOnly: geotaggedOnly, access: access, forColumns: forColumns)
        let s = RawStatement(try db.cachedStatement(sql: sql))
        let lookup = try CategoryNameLookup(db)
        defer { s.reset(); lookup.statement.reset() }
        s.reset()
        for apply in arguments { apply(s) }
        while try s.step(db) { try body(s, lookup) }
    }

    /// The matching rows within these ranges of rowids, range by range (the `.rowidRuns` form).
    static func stepSpendingRows(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, inRowidRanges ranges: [ClosedRange<Int64>], forColumns: Bool = false,
        _ db: Database, _ body: (RawStatement, CategoryNameLookup) throws -> Void
    ) throws {
        let (sql, arguments, runBounds) = spendingPointQuery(filter, geotaggedOnly: geotaggedOnly, access: .rowidRuns, forColumns: forColumns)
        let s = RawStatement(try db.cachedStatement(sql: sql))
        let lookup = try CategoryNameLookup(db)
        defer { s.reset(); lookup.statement.reset() }
        s.reset()
        for apply in arguments { apply(s) }
        for range in ranges {
            s.rewind()  // the filter's bindings stay
            s.bind(runBounds, range.lowerBound)
            s.bind(runBounds + 1, range.upperBound)
            while try s.step(db) { try body(s, lookup) }
        }
    }

    /// The lowest and highest rowid of the table, as two subqueries: each reads one end of the
    /// B-tree, where `min(rowid), max(rowid)` in one SELECT scans every row (SQLite's min/max
    /// shortcut takes a lone aggregate); that scan was 15 ms for 100k rows.
    static let tableEndsSQL = "SELECT (SELECT min(rowid) FROM expenses), (SELECT max(rowid) FROM expenses)"

    /// The rowids to read one user's rows by, when the access path reads ranges of them: the
    /// user's runs, or the whole table's span. Nil for the index path and for all users.
    static func rowidRanges(_ filter: ExpenseFilter, access: SpendingRowAccess, _ db: Database) throws -> [ClosedRange<Int64>]? {
        guard filter.readsOneUser, let user = filter.userID else { return nil }
        switch access {
        case .index: return nil
        case .rowidRuns: return try SpatiaLiteStore.rowidRuns(of: user, within: OccurredWindow(filter), db)
        case .tableScan:
            let s = RawStatement(try db.cachedStatement(sql: tableEndsSQL))
            defer { s.reset() }
            s.reset()
            guard try s.step(db), !s.isNull(0) else { return [] }
            return [s.int64(0)...s.int64(1)]
        }
    }

    /// How `forEachSpendingPoint` reaches its rows.
    enum SpendingRowAccess {
        /// The whole table in order: for all users (reading it beats hopping to it from the
        /// partial (user_id, lat, …) index row by row: 65 vs 84 ms per 100k rows measured), or
        /// for a user who holds most of it.
        case tableScan
        /// Through an index SQLite picks: a store filter's, or one user's `expenses_user_time`
        /// entries, which hold every column but the merchant (v15): a table seek per row only
        /// for the points layer's merchant.
        case index
        /// By ranges of rowids (`rowidRuns`): a user whose rows lie close together, read almost
        /// as a scan.
        case rowidRuns
    }

    /// Two probes of a few dozen rows each (RowidRuns.swift) choose a user's access path.
    static func spendingRowAccess(_ filter: ExpenseFilter, _ db: Database) throws -> SpendingRowAccess {
        guard filter.storeIDs.isEmpty else { return .index }
        guard let user = filter.userID else { return .tableScan }
        let window = OccurredWindow(filter)
        guard try SpatiaLiteStore.rowsLieClose(of: user, within: window, db) else { return .index }
        return try SpatiaLiteStore.rowsFillTable(of: user, within: window, db) ? .tableScan : .rowidRuns
    }

    /// The statement behind `forEachSpendingPoint`, its bindings, and the number of the first of
    /// the two parameters that bound a run of rowids (`.rowidRuns` only). `forColumns`: for
    /// `spendingColumns`, with the rowid, timestamp text and local date as columns 12–14, and
    /// on the index path in the index's order (the decoder sorts by the rowid).
    static func spendingPointQuery(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access: SpendingRowAccess, forColumns: Bool = false
    ) -> (sql: String, bind: [(RawStatement) -> Void], runBounds: Int32) {
        var (conditions, arguments) = StoredRows.conditions(for: filter, firstParameter: 1)
        if geotaggedOnly { conditions.append("e.lat IS NOT NULL") }
        if access == .index, filter.readsOneUser {
            // A bare-date window compares local_date, which the index does not hold: its
            // occurred_ms superset lets SQLite seek only the window's rows, not all the user's.
            let window = OccurredWindow(filter)
            for (bound, comparison) in [(window.fromIsWidened ? window.from : nil, ">="), (window.toIsWidened ? window.to : nil, "<")] {
                guard let bound else { continue }
                let index = Int32(arguments.count + 1)
                conditions.append("e.occurred_ms \(comparison) ?\(index)")
                arguments.append { $0.bind(index, bound) }
            }
        }
        let runBounds = Int32(arguments.count + 1)
        if access == .rowidRuns {
            // NOT INDEXED still lets SQLite seek by rowid: SEARCH e USING INTEGER PRIMARY KEY.
            conditions.append("e.rowid BETWEEN ?\(runBounds) AND ?\(runBounds + 1)")
        }
        // Category names are looked up by the decoder, not joined per row; the join stays only
        // for filtering by name.
        let join = filter.categories.isEmpty ? "" : "LEFT JOIN categories AS c ON c.id = e.category_id"
        // One user's points come in rowid order on every path (scans and runs give it; the index
        // path sorts its few rows), so what lists them does not change with other users present:
        // the path chosen depends on them (IsolationTests). Columns (insights) skip the sort.
        let oneUser = filter.readsOneUser
        // A user or kind the filter fixes is not read per row (the decoder fills it in).
        let kind = filter.kinds.count == 1 ? "NULL" : "e.kind", user = filter.userID == nil ? "e.user_id" : "NULL"
        let merchant = filter.readsMerchant ? "e.merchant" : "NULL"
        let sql = """
            SELECT e.id, e.store_id, e.lat, e.lon, \(kind), e.amount_minor, e.currency, e.occurred_ms, \(merchant), e.category_id,
                \(user), e.utc_offset_min\(forColumns ? ", e.occurred_at, e.local_date" : "")
            FROM expenses AS e \(access == .index ? (oneUser ? "INDEXED BY expenses_user_time" : "") : "NOT INDEXED") \(join)
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            \(oneUser && access == .index && !forColumns ? "ORDER BY e.rowid" : "")
            """
        return (sql, arguments, runBounds)
    }

    /// A stored kind by its first letter (the schema allows only these three).
    private static func kind(_ text: UnsafeBufferPointer<UInt8>) -> ExpenseKind {
        switch text.first {
        case UInt8(ascii: "i"): .income
        case UInt8(ascii: "t"): .transfer
        default: .expense
        }
    }

    /// Decodes rows of `spendingPointQuery`. Currencies, kinds and categories repeat on every
    /// row: decoded once each, so a row makes no string for them (a third of a points export's
    /// decoding time before); category names are looked up once per category, not joined.
    struct SpendingPointDecoder {
        /// What the filter fixes for every row (`spendingPointQuery` then reads NULL instead).
        private let user: String?
        private let kind: ExpenseKind?
        private var currencies = PerCurrency<Currency?> { nil }
        private var categories: [Int64: String] = [:]

        init(filter: ExpenseFilter) {
            user = filter.userID
            kind = filter.kinds.count == 1 ? filter.kinds.first : nil
        }

        mutating func point(_ s: RawStatement, _ lookup: CategoryNameLookup) throws -> SpendingPoint {
            let k = currencies.slot(s.withText(6, LocatedAmount.currencyKey))
            if currencies.values[k] == nil { currencies.values[k] = try Currency(code: s.text(6) ?? "") }
            var category: String?
            if !s.isNull(9) {
                let id = s.int64(9)
                if let known = categories[id] {
                    category = known
                } else {
                    category = try lookup.name(id)
                    categories[id] = category
                }
            }
            return SpendingPoint(
                id: s.text(0) ?? "", userID: user ?? s.text(10) ?? "", storeID: s.text(1),
                coordinate: s.isNull(2) ? nil : Coordinate(uncheckedLatitude: s.double(2), longitude: s.double(3)),
                kind: kind ?? s.withText(4, SpatiaLiteReader.kind), amountMinor: s.int64(5), currency: currencies.values[k]!,
                occurredMilliseconds: s.int64(7), utcOffsetMinutes: s.optionalInt64(11).map { Int($0) },
                category: category, merchant: s.text(8))
        }
    }

    /// A category's name by id, on the connection reading the rows (decoders look each id up
    /// once instead of joining categories on every row).
    struct CategoryNameLookup {
        let db: Database
        let statement: RawStatement

        init(_ db: Database) throws {
            self.db = db
            statement = RawStatement(try db.cachedStatement(sql: "SELECT name FROM categories WHERE id = ?1"))
        }

        func name(_ id: Int64) throws -> String? {
            statement.reset()
            statement.bind(1, id)
            return try statement.step(db) ? statement.text(0) : nil
        }
    }

    /// Decodes rows of `spendingPointQuery` into `SpendingColumns`: store ids numbered from
    /// their bytes in place, currencies by their packed code, categories by id then name; each
    /// column read once as a value.
    struct SpendingColumnsDecoder: Sendable {
        private var idBytes: [UInt8] = [], idEnd: [Int] = []
        private var amountMinor: [Int64] = [], occurredMilliseconds: [Int64] = [], utcOffsetMinutes: [Int32?] = []
        private var latitude: [Double] = [], longitude: [Double] = []
        private var currencyNumber: [Int32] = [], storeNumber: [Int32] = [], categoryNumber: [Int32] = []
        private var currencies: [Currency] = [], storeIDs: [String] = [], categories: [String] = []
        private var timestampBytes: [UInt8] = [], timestampEnd: [(text: Int, localDate: Int)] = []
        private var currencySlots = PerCurrency<Void> {}
        private var stores = ByteInterner()
        /// Category ids seen, and their numbers by name (a user has a handful: a short list).
        private var categoryIDs: [Int64] = [], categoryNumbers: [Int32] = []

        /// Room for a typical user's rows from the start: growing thirteen columns one doubling
        /// at a time was 4 % of "insights per store, one user" (~100 rows a user).
        init(reservingRows rows: Int = 128) {
            idEnd.reserveCapacity(rows)
            amountMinor.reserveCapacity(rows)
            occurredMilliseconds.reserveCapacity(rows)
            utcOffsetMinutes.reserveCapacity(rows)
            latitude.reserveCapacity(rows)
            longitude.reserveCapacity(rows)
            currencyNumber.reserveCapacity(rows)
            storeNumber.reserveCapacity(rows)
            categoryNumber.reserveCapacity(rows)
            timestampEnd.reserveCapacity(rows)
            idBytes.reserveCapacity(rows * 24)
            timestampBytes.reserveCapacity(rows * 40)
        }

        /// The rows read, in the order read.
        var columns: SpendingColumns {
            SpendingColumns(
                idBytes: idBytes, idEnd: idEnd, amountMinor: amountMinor, occurredMilliseconds: occurredMilliseconds,
                utcOffsetMinutes: utcOffsetMinutes, latitude: latitude, longitude: longitude, currencyNumber: currencyNumber,
                storeNumber: storeNumber, categoryNumber: categoryNumber, currencies: currencies, storeIDs: storeIDs,
                categories: categories, timestamps: (timestampBytes, timestampEnd))
        }

        mutating func add(_ s: RawStatement, _ lookup: CategoryNameLookup) throws {
            currencyNumber.append(try number(currencyKey: s.value(6).withText { $0.map(LocatedAmount.currencyKey) ?? 0 }) {
                try Currency(code: s.text(6) ?? "")
            })
            storeNumber.append(s.value(1).withText { id in id.map { number(storeID: $0) } ?? -1 })
            let category = s.value(9)
            categoryNumber.append(category.isNull ? -1 : try categoryNumber(id: category.int64, lookup))
            let lat = s.value(2)
            latitude.append(lat.isNull ? .nan : lat.double)
            longitude.append(lat.isNull ? .nan : s.value(3).double)
            s.value(0).withText { id in idBytes.append(contentsOf: id ?? .init(start: nil, count: 0)) }
            idEnd.append(idBytes.count)
            amountMinor.append(s.value(5).int64)
            occurredMilliseconds.append(s.value(7).int64)
            let offset = s.value(11)
            utcOffsetMinutes.append(offset.isNull ? nil : Int32(truncatingIfNeeded: offset.int64))
            s.value(12).withText { text in timestampBytes.append(contentsOf: text ?? .init(start: nil, count: 0)) }
            let textEnd = timestampBytes.count
            s.value(13).withText { date in timestampBytes.append(contentsOf: date ?? .init(start: nil, count: 0)) }
            timestampEnd.append((textEnd, timestampBytes.count))
        }

        private mutating func categoryNumber(id: Int64, _ lookup: CategoryNameLookup) throws -> Int32 {
            if let k = categoryIDs.firstIndex(of: id) { return categoryNumbers[k] }
            let n = try lookup.name(id).map { number(categoryName: $0) } ?? -1
            categoryIDs.append(id)
            categoryNumbers.append(n)
            return n
        }

        // Numbers in order of first sight; store ids and category names compare as UTF-8 bytes.

        private mutating func number(currencyKey key: UInt32, _ make: () throws -> Currency) rethrows -> Int32 {
            let k = currencySlots.slot(key)
            if k == currencies.count { currencies.append(try make()) }
            return Int32(k)
        }

        private mutating func number(storeID bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
            let (n, isNew) = stores.number(bytes)
            if isNew { storeIDs.append(String(decoding: bytes, as: UTF8.self)) }
            return n
        }

        private mutating func number(categoryName name: String) -> Int32 {
            if let k = categories.firstIndex(where: { $0.utf8.elementsEqual(name.utf8) }) { return Int32(k) }
            categories.append(name)
            return Int32(categories.count - 1)
        }
    }

    public func forEachLocatedAmountBatch(_ filter: ExpenseFilter, withUsers: Bool, _ body: ([LocatedAmount]) throws -> Void) throws {
        let (source, arguments) = Self.locatedSource(filter)
        let columns = "e.lat, e.lon, e.amount_minor, e.currency" + (withUsers ? ", e.user_id" : "")
        try read { db in
            let s = RawStatement(try db.cachedStatement(sql: "SELECT \(columns) \(source)"))
            defer { s.reset() }
            s.reset()
            for apply in arguments { apply(s) }
            var batch = Batch<LocatedAmount>()
            while try s.step(db) {
                try batch.add(LocatedAmount(
                    latitude: s.double(0), longitude: s.double(1), amountMinor: s.int64(2),
                    currencyKey: s.withText(3, LocatedAmount.currencyKey),
                    userKey: withUsers ? s.withText(4, LocatedAmount.userKey) : 0), to: body)
            }
            try batch.flush(to: body)
        }
    }

    /// The centre of the union of the boxes in the root node of `idx_expenses_geom` (layout:
    /// `RTreeNode`): the bounding box of every geotagged expense, give or take float
    /// rounding, read in one small row.
    public func geotaggedCenterHint() throws -> Coordinate? {
        try read { db in
            let root = RawStatement(try db.cachedStatement(sql: "SELECT data FROM idx_expenses_geom_node WHERE nodeno = 1"))
            defer { root.reset() }
            root.reset()
            guard try root.step(db) else { return nil }
            return root.withBlob(0) { node -> Coordinate? in
                guard RTreeNode.isWhole(node), RTreeNode.count(node) > 0 else { return nil }
                var (south, north, west, east) = (Float.infinity, -Float.infinity, Float.infinity, -Float.infinity)
                for i in 0..<RTreeNode.count(node) {
                    let cell = RTreeNode.cell(i, of: node)
                    west = min(west, cell.xmin); east = max(east, cell.xmax); south = min(south, cell.ymin); north = max(north, cell.ymax)
                }
                return try? Coordinate(latitude: Double(south + north) / 2, longitude: Double(west + east) / 2)
            }
        }
    }

    /// `FROM … WHERE …` over the geotagged expenses of a filter. Categories are joined only when
    /// filtered on, so without window or category filters every column read is in the
    /// `expenses_user_place` index and SQLite scans that instead of the table.
    private static func locatedSource(_ filter: ExpenseFilter) -> (String, [(RawStatement) -> Void]) {
        let (conditions, arguments) = StoredRows.conditions(for: filter, firstParameter: 1)
        let join = filter.categories.isEmpty ? "" : "LEFT JOIN categories AS c ON c.id = e.category_id"
        return ("FROM expenses AS e \(join) WHERE \((conditions + ["e.lat IS NOT NULL"]).joined(separator: " AND "))", arguments)
    }

    // The lookups by a set of ids (stores, store labels, expense timestamps) use one statement
    // for the whole set: json_each drives, one index lookup per element (the id index; for labels
    // `stores_label`, which holds all they read). Written as a join: `id IN (SELECT … json_each)`
    // made SQLite scan the whole table.

    public func stores(withIDs ids: Set<String>) throws -> [String: Store] {
        guard !ids.isEmpty else { return [:] }
        let found = try fetchAll(
            """
            SELECT \(StoredRows.storeColumns)
            FROM json_each(?1) AS j JOIN stores AS s ON s.id = j.value
            """, bind: { $0.bind(1, StoredRows.jsonArray(ids)) }, decode: StoredRows.decodeStore)
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Each label lands at its id's place in the array (`json_each`'s key); ids are compared as
    /// bytes, as the rows' store ids were numbered. Read from `stores_label` alone (v16).
    public func storeLabels(_ ids: [String]) throws -> [(name: String, coordinate: Coordinate)?] {
        guard let labelCache else { return try storeLabelsRead(ids) }
        return try labelCache.labels(ids, db, read: storeLabelsRead)
    }

    /// The labels of a JSON array of store ids, each with its place in the array.
    static let storeLabelsSQL = """
        SELECT j.key, s.name, s.kind, s.lat, s.lon
        FROM json_each(?1) AS j JOIN stores AS s INDEXED BY stores_label ON s.id = j.value
        """

    private func storeLabelsRead(_ ids: [String]) throws -> [(name: String, coordinate: Coordinate)?] {
        var labels = [(name: String, coordinate: Coordinate)?](repeating: nil, count: ids.count)
        guard !ids.isEmpty else { return labels }
        let found = try fetchAll(Self.storeLabelsSQL, bind: { $0.bind(1, StoredRows.jsonArray(ids)) }) { s in
            let coordinate = Coordinate(uncheckedLatitude: s.double(3), longitude: s.double(4))
            return (Int(s.int64(0)), Store(id: "", name: s.text(1), kind: s.text(2), coordinate: coordinate).displayName, coordinate)
        }
        for (k, name, coordinate) in found where labels.indices.contains(k) { labels[k] = (name, coordinate) }
        return labels
    }

    public func timestamps(ofExpenses ids: Set<String>, userID: String) throws -> [String: Timestamp] {
        guard !ids.isEmpty else { return [:] }
        let found = try fetchAll(
            """
            SELECT e.id, e.occurred_at, e.occurred_ms, e.utc_offset_min, e.local_date
            FROM json_each(?1) AS j JOIN expenses AS e ON e.id = j.value AND e.user_id = ?2
            """, bind: { $0.bind(1, StoredRows.jsonArray(ids)); $0.bind(2, userID) }
        ) { s in
            (s.text(0) ?? "", Timestamp(
                text: s.text(1) ?? "", epochMilliseconds: s.int64(2), utcOffsetMinutes: s.optionalInt64(3).map { Int($0) },
                localDate: s.text(4) ?? ""))
        }
        return Dictionary(found, uniquingKeysWith: { a, _ in a })
    }

    public func expensesWithoutStore(userID: String?) throws -> [UnsnappedExpense] {
        try fetchAll(
            """
            SELECT id, lat, lon, accuracy_m, merchant, user_id FROM expenses
            WHERE store_id IS NULL AND lat IS NOT NULL \(userID == nil ? "" : "AND user_id = ?1")
            ORDER BY id, user_id
            """, bind: { s in if let userID { s.bind(1, userID) } }
        ) { s in
            UnsnappedExpense(
                id: s.text(0) ?? "", userID: s.text(5) ?? "", coordinate: Coordinate(uncheckedLatitude: s.double(1), longitude: s.double(2)),
                accuracyMeters: s.optionalDouble(3), merchant: s.text(4))
        }
    }

    public func allStores(kind: String?) throws -> [Store] {
        try fetchAll(
            """
            SELECT \(StoredRows.storeColumns)
            FROM stores AS s \(kind == nil ? "" : "WHERE s.kind = ?1") ORDER BY s.id
            """, bind: { s in if let kind { s.bind(1, kind) } }, decode: StoredRows.decodeStore)
    }
}
