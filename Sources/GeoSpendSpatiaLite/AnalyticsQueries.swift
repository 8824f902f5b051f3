import GeoSpend
import GRDB

/// The reads behind insights, snapping and reports: lean rows, bound and decoded directly.
extension SpatiaLiteStore {
    /// Runs one cached statement on a pooled read connection and decodes every row.
    func fetchAll<T>(_ sql: String, bind: (RawStatement) -> Void = { _ in }, decode: (RawStatement) throws -> T) throws -> [T] {
        try pool.read { db in
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
        var (conditions, arguments) = Self.conditions(for: filter, firstParameter: 1)
        if geotaggedOnly { conditions.append("e.lat IS NOT NULL") }
        let sql = """
            SELECT e.id, e.store_id, e.lat, e.lon, e.kind, e.amount_minor, e.currency, e.occurred_ms, e.local_date, c.name,
                e.user_id, e.utc_offset_min
            FROM expenses AS e LEFT JOIN categories AS c ON c.id = e.category_id
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            """
        var currencies: [String: Currency] = [:]
        try pool.read { db in
            let s = RawStatement(try db.cachedStatement(sql: sql))
            defer { s.reset() }
            s.reset()
            for apply in arguments { apply(s) }
            while try s.step(db) {
                let code = s.text(6) ?? ""
                let currency: Currency
                if let known = currencies[code] {
                    currency = known
                } else {
                    currency = try Currency(code: code)
                    currencies[code] = currency
                }
                try body(SpendingPoint(
                    id: s.text(0) ?? "", userID: s.text(10) ?? "", storeID: s.text(1),
                    coordinate: s.isNull(2) ? nil : Coordinate(uncheckedLatitude: s.double(2), longitude: s.double(3)),
                    kind: ExpenseKind(rawValue: s.text(4) ?? "") ?? .expense, amountMinor: s.int64(5), currency: currency,
                    occurredMilliseconds: s.int64(7), utcOffsetMinutes: s.optionalInt64(11).map { Int($0) },
                    localDate: s.text(8) ?? "", category: s.text(9)))
            }
        }
    }

    public func geotaggedExtent(_ filter: ExpenseFilter) throws -> [GeotaggedExtent] {
        let (conditions, arguments) = Self.conditions(for: filter, firstParameter: 1)
        let lon360 = "(CASE WHEN e.lon < 0 THEN e.lon + 360 ELSE e.lon END)"
        return try fetchAll(
            """
            SELECT e.currency, count(*), sum(e.amount_minor), max(e.amount_minor), count(DISTINCT e.user_id),
                min(e.lat), max(e.lat), min(e.lon), max(e.lon), min(\(lon360)), max(\(lon360))
            FROM expenses AS e LEFT JOIN categories AS c ON c.id = e.category_id
            WHERE \((conditions + ["e.lat IS NOT NULL"]).joined(separator: " AND "))
            GROUP BY e.currency ORDER BY count(*) DESC, e.currency
            """, bind: { s in for apply in arguments { apply(s) } }
        ) { s in
            GeotaggedExtent(
                currency: try Currency(code: s.text(0) ?? ""), count: Int(s.int64(1)), totalMinor: s.int64(2),
                maxMinor: s.int64(3), users: Int(s.int64(4)), south: s.double(5), north: s.double(6), west: s.double(7),
                east: s.double(8), west360: s.double(9), east360: s.double(10))
        }
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
