import GeoSpend
import GRDB

/// The reads behind insights, snapping and reports: lean rows, bound and decoded directly.
extension SpatiaLiteStore {
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

    public func spendingPoints(_ filter: ExpenseFilter) throws -> [SpendingPoint] {
        var points: [SpendingPoint] = []
        try forEachSpendingPoint(filter, geotaggedOnly: false) { points.append($0) }
        return points
    }

    public func forEachSpendingPoint(_ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: (SpendingPoint) throws -> Void) throws {
        try forEachSpendingPoint(filter, geotaggedOnly: geotaggedOnly, access: nil, body)
    }

    /// `access` nil: the one `spendingRowAccess` picks (tests force each, with a user for
    /// `.rowidRuns`).
    func forEachSpendingPoint(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access forced: SpendingRowAccess?, _ body: (SpendingPoint) throws -> Void
    ) throws {
        try read { db in
            let access = try forced ?? Self.spendingRowAccess(filter, db)
            let (sql, arguments, runBounds) = Self.spendingPointQuery(filter, geotaggedOnly: geotaggedOnly, access: access)
            let s = RawStatement(try db.cachedStatement(sql: sql))
            var decoder = SpendingPointDecoder(
                categoryName: RawStatement(try db.cachedStatement(sql: "SELECT name FROM categories WHERE id = ?1")), filter: filter)
            defer { s.reset(); decoder.categoryName.reset() }
            s.reset()
            for apply in arguments { apply(s) }
            guard access == .rowidRuns, let user = filter.userID else {
                while try s.step(db) { try body(decoder.point(s, db)) }
                return
            }
            for run in try Self.rowidRuns(of: user, within: OccurredWindow(filter), db) {
                s.rewind()  // the filter's bindings stay
                s.bind(runBounds, run.lowerBound)
                s.bind(runBounds + 1, run.upperBound)
                while try s.step(db) { try body(decoder.point(s, db)) }
            }
        }
    }

    /// How `forEachSpendingPoint` reaches its rows.
    enum SpendingRowAccess {
        /// The whole table in order: for all users (reading it beats hopping to it from the
        /// partial (user_id, lat, …) index row by row: 65 vs 84 ms per 100k rows measured), or
        /// for a user who holds most of it.
        case tableScan
        /// Through an index SQLite picks: a store filter's, or one user's `expenses_user_time`
        /// entries, one table seek per row (the cheapest way to a scattered user's rows).
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
        guard try rowsLieClose(of: user, within: window, db) else { return .index }
        return try rowsFillTable(of: user, within: window, db) ? .tableScan : .rowidRuns
    }

    /// The statement behind `forEachSpendingPoint`, its bindings, and the number of the first of
    /// the two parameters that bound a run of rowids (`.rowidRuns` only).
    static func spendingPointQuery(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access: SpendingRowAccess
    ) -> (sql: String, bind: [(RawStatement) -> Void], runBounds: Int32) {
        var (conditions, arguments) = Self.conditions(for: filter, firstParameter: 1)
        if geotaggedOnly { conditions.append("e.lat IS NOT NULL") }
        if access == .index, filter.userID != nil, filter.storeIDs.isEmpty {
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
        // One user's rows come in rowid order on every path (scans and runs give it; the index
        // path sorts its few rows), so what lists them does not change with other users present:
        // the path chosen depends on them (IsolationTests).
        let oneUser = filter.userID != nil && filter.storeIDs.isEmpty
        // A user or kind the filter fixes is not read per row (the decoder fills it in).
        let kind = filter.kinds.count == 1 ? "NULL" : "e.kind", user = filter.userID == nil ? "e.user_id" : "NULL"
        let sql = """
            SELECT e.id, e.store_id, e.lat, e.lon, \(kind), e.amount_minor, e.currency, e.occurred_ms, NULL, e.category_id,
                \(user), e.utc_offset_min
            FROM expenses AS e \(access == .index ? (oneUser ? "INDEXED BY expenses_user_time" : "") : "NOT INDEXED") \(join)
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            \(oneUser && access == .index ? "ORDER BY e.rowid" : "")
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
        let categoryName: RawStatement
        /// What the filter fixes for every row (`spendingPointQuery` then reads NULL instead).
        private let user: String?
        private let kind: ExpenseKind?
        private var currencies = PerCurrency<Currency?> { nil }
        private var categories: [Int64: String] = [:]

        init(categoryName: RawStatement, filter: ExpenseFilter) {
            self.categoryName = categoryName
            user = filter.userID
            kind = filter.kinds.count == 1 ? filter.kinds.first : nil
        }

        mutating func point(_ s: RawStatement, _ db: Database) throws -> SpendingPoint {
            let k = currencies.slot(s.withText(6, LocatedAmount.currencyKey))
            if currencies.values[k] == nil { currencies.values[k] = try Currency(code: s.text(6) ?? "") }
            var category: String?
            if !s.isNull(9) {
                let id = s.int64(9)
                if let known = categories[id] {
                    category = known
                } else {
                    categoryName.reset()
                    categoryName.bind(1, id)
                    category = try categoryName.step(db) ? categoryName.text(0) : nil
                    categories[id] = category
                }
            }
            return SpendingPoint(
                id: s.text(0) ?? "", userID: user ?? s.text(10) ?? "", storeID: s.text(1),
                coordinate: s.isNull(2) ? nil : Coordinate(uncheckedLatitude: s.double(2), longitude: s.double(3)),
                kind: kind ?? s.withText(4, SpatiaLiteStore.kind), amountMinor: s.int64(5), currency: currencies.values[k]!,
                occurredMilliseconds: s.int64(7), utcOffsetMinutes: s.optionalInt64(11).map { Int($0) },
                category: category)
        }
    }

    public func forEachLocatedAmount(_ filter: ExpenseFilter, withUsers: Bool, _ body: (LocatedAmount) throws -> Void) throws {
        let (source, arguments) = Self.locatedSource(filter)
        let columns = "e.lat, e.lon, e.amount_minor, e.currency" + (withUsers ? ", e.user_id" : "")
        try read { db in
            let s = RawStatement(try db.cachedStatement(sql: "SELECT \(columns) \(source)"))
            defer { s.reset() }
            s.reset()
            for apply in arguments { apply(s) }
            while try s.step(db) {
                try body(LocatedAmount(
                    latitude: s.double(0), longitude: s.double(1), amountMinor: s.int64(2),
                    currencyKey: s.withText(3, LocatedAmount.currencyKey),
                    userKey: withUsers ? s.withText(4, LocatedAmount.userKey) : 0))
            }
        }
    }

    /// The centre of the union of the boxes in the root node of `idx_expenses_geom` (layout in
    /// NearestStores.swift): the bounding box of every geotagged expense, give or take float
    /// rounding, read in one small row.
    public func geotaggedCenterHint() throws -> Coordinate? {
        try read { db in
            let root = RawStatement(try db.cachedStatement(sql: "SELECT data FROM idx_expenses_geom_node WHERE nodeno = 1"))
            defer { root.reset() }
            root.reset()
            guard try root.step(db) else { return nil }
            return root.withBlob(0) { node -> Coordinate? in
                guard node.count >= 4 else { return nil }
                let count = Int(node.bigEndianUInt16(at: 2))
                guard count > 0, 4 + count * 24 <= node.count else { return nil }
                var (south, north, west, east) = (Float.infinity, -Float.infinity, Float.infinity, -Float.infinity)
                for at in stride(from: 4, to: 4 + count * 24, by: 24) {
                    west = min(west, node.bigEndianFloat(at: at + 8)); east = max(east, node.bigEndianFloat(at: at + 12))
                    south = min(south, node.bigEndianFloat(at: at + 16)); north = max(north, node.bigEndianFloat(at: at + 20))
                }
                return try? Coordinate(latitude: Double(south + north) / 2, longitude: Double(west + east) / 2)
            }
        }
    }

    /// `FROM … WHERE …` over the geotagged expenses of a filter. Categories are joined only when
    /// filtered on, so without window or category filters every column read is in the
    /// `expenses_user_place` index and SQLite scans that instead of the table.
    private static func locatedSource(_ filter: ExpenseFilter) -> (String, [(RawStatement) -> Void]) {
        let (conditions, arguments) = Self.conditions(for: filter, firstParameter: 1)
        let join = filter.categories.isEmpty ? "" : "LEFT JOIN categories AS c ON c.id = e.category_id"
        return ("FROM expenses AS e \(join) WHERE \((conditions + ["e.lat IS NOT NULL"]).joined(separator: " AND "))", arguments)
    }

    // The two lookups by a set of ids use one statement for the whole set: json_each drives, one
    // id-index lookup per element (written as a join: `id IN (SELECT … json_each)` made SQLite
    // scan the whole table).

    public func stores(withIDs ids: Set<String>) throws -> [String: Store] {
        guard !ids.isEmpty else { return [:] }
        let found = try fetchAll(
            """
            SELECT \(Self.storeColumns)
            FROM json_each(?1) AS j JOIN stores AS s ON s.id = j.value
            """, bind: { $0.bind(1, Self.jsonArray(ids)) }, decode: Self.decodeStore)
        return Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func timestamps(ofExpenses ids: Set<String>) throws -> [String: Timestamp] {
        guard !ids.isEmpty else { return [:] }
        let found = try fetchAll(
            """
            SELECT e.id, e.occurred_at, e.occurred_ms, e.utc_offset_min, e.local_date
            FROM json_each(?1) AS j JOIN expenses AS e ON e.id = j.value
            """, bind: { $0.bind(1, Self.jsonArray(ids)) }
        ) { s in
            (s.text(0) ?? "", Timestamp(
                text: s.text(1) ?? "", epochMilliseconds: s.int64(2), utcOffsetMinutes: s.optionalInt64(3).map { Int($0) },
                localDate: s.text(4) ?? ""))
        }
        return Dictionary(found, uniquingKeysWith: { a, _ in a })
    }

    /// A JSON array of strings, for `json_each` (one bound parameter instead of a statement per id).
    static func jsonArray(_ values: some Sequence<String>) -> String {
        JSONOutput.array(values.map { .string($0) }).serialized(pretty: false)
    }

    public func expensesWithoutStore(userID: String?) throws -> [UnsnappedExpense] {
        try fetchAll(
            """
            SELECT id, lat, lon, accuracy_m, merchant FROM expenses
            WHERE store_id IS NULL AND lat IS NOT NULL \(userID == nil ? "" : "AND user_id = ?1")
            ORDER BY id
            """, bind: { s in if let userID { s.bind(1, userID) } }
        ) { s in
            UnsnappedExpense(
                id: s.text(0) ?? "", coordinate: Coordinate(uncheckedLatitude: s.double(1), longitude: s.double(2)),
                accuracyMeters: s.optionalDouble(3), merchant: s.text(4))
        }
    }

    public func allStores(kind: String?) throws -> [Store] {
        try fetchAll(
            """
            SELECT \(Self.storeColumns)
            FROM stores AS s \(kind == nil ? "" : "WHERE s.kind = ?1") ORDER BY s.id
            """, bind: { s in if let kind { s.bind(1, kind) } }, decode: Self.decodeStore)
    }
}
