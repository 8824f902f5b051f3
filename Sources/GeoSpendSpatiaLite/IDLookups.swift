import GeoSpend
import GRDB

/// Stores, store labels and expense times looked up by a set of ids, and the plain lists behind
/// snapping and the OGC `stores` collection.
extension SpatiaLiteReader {
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
