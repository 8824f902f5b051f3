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
        var (conditions, arguments) = Self.conditions(for: filter, firstParameter: 1)
        if geotaggedOnly { conditions.append("e.lat IS NOT NULL") }
        // Across users, reading the table in order beats hopping to it from the partial
        // (user_id, lat, …) index row by row: 65 vs 84 ms per 100k rows measured.
        let access = filter.userID == nil && filter.storeIDs.isEmpty ? "NOT INDEXED" : ""
        let sql = """
            SELECT e.id, e.store_id, e.lat, e.lon, e.kind, e.amount_minor, e.currency, e.occurred_ms, e.local_date, c.name,
                e.user_id, e.utc_offset_min
            FROM expenses AS e \(access) LEFT JOIN categories AS c ON c.id = e.category_id
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            """
        var currencies: [String: Currency] = [:]
        try read { db in
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

    public func forEachLocatedAmount(_ filter: ExpenseFilter, _ body: (LocatedAmount) throws -> Void) throws {
        let (source, arguments) = Self.locatedSource(filter)
        try read { db in
            let s = RawStatement(try db.cachedStatement(sql: "SELECT e.lat, e.lon, e.amount_minor, e.user_id \(source)"))
            defer { s.reset() }
            s.reset()
            for apply in arguments { apply(s) }
            while try s.step(db) {
                try body(LocatedAmount(latitude: s.double(0), longitude: s.double(1), amountMinor: s.int64(2), userKey: s.withText(3, LocatedAmount.userKey)))
            }
        }
    }

    /// Aggregated here rather than with SQL's GROUP BY, which sorts every row through a temporary
    /// B-tree (90 ms per 100k rows measured, against ~25 ms for this one pass over the index).
    public func geotaggedExtent(_ filter: ExpenseFilter) throws -> [GeotaggedExtent] {
        let (source, arguments) = Self.locatedSource(filter)
        struct Sums {
            var code: (UInt8, UInt8, UInt8)
            var count = 0, total: Int64 = 0, largest: Int64 = 0
            var south = Double.infinity, north = -Double.infinity, west = Double.infinity, east = -Double.infinity
            var west360 = Double.infinity, east360 = -Double.infinity
        }
        var sums: [Sums] = []
        try read { db in
            let s = RawStatement(try db.cachedStatement(sql: "SELECT e.currency, e.lat, e.lon, e.amount_minor \(source)"))
            defer { s.reset() }
            s.reset()
            for apply in arguments { apply(s) }
            var k = -1
            while try s.step(db) {
                let code = s.withText(0) { b in b.count == 3 ? (b[0], b[1], b[2]) : (0, 0, 0) }
                if k < 0 || sums[k].code != code {
                    k = sums.firstIndex { $0.code == code } ?? { sums.append(Sums(code: code)); return sums.count - 1 }()
                }
                let lat = s.double(1), lon = s.double(2), amount = s.int64(3)
                let lon360 = lon < 0 ? lon + 360 : lon
                sums[k].count += 1
                sums[k].total += amount
                sums[k].largest = max(sums[k].largest, amount)
                sums[k].south = min(sums[k].south, lat); sums[k].north = max(sums[k].north, lat)
                sums[k].west = min(sums[k].west, lon); sums[k].east = max(sums[k].east, lon)
                sums[k].west360 = min(sums[k].west360, lon360); sums[k].east360 = max(sums[k].east360, lon360)
            }
        }
        return try sums.map { x in
            GeotaggedExtent(
                currency: try Currency(code: String(decoding: [x.code.0, x.code.1, x.code.2], as: UTF8.self)), count: x.count,
                totalMinor: x.total, maxMinor: x.largest, south: x.south, north: x.north, west: x.west, east: x.east,
                west360: x.west360, east360: x.east360)
        }.sorted { ($1.count, $0.currency.code) < ($0.count, $1.currency.code) }
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
