import GeoSpend
import PostgresNIO

/// What per-place analytics read, as columns straight from the rows (no `SpendingPoint` per
/// row), each row with its stored timestamp and its store's label: first and last visits and
/// the stores' names and positions then need no statements of their own (`LocationInsights`),
/// two round trips and plans fewer per insights answer.
extension PostGISReader {
    func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns {
        var rows = SpendingColumns.Builder()
        try inBatches(filter, geotaggedOnly: false, columns: """
            e.id, e.store_id, e.lat, e.lon, e.amount_minor, e.currency, e.occurred_ms, e.utc_offset_min, c.name, e.occurred_at, e.local_date
            """, storeColumns: "s.name, s.kind, s.lat, s.lon") { r in
            let e = 4  // the store's four columns come first
            let code = try r[e + 5].decode(String.self)
            try rows.append(
                id: try r[e].decode(String.self), storeID: try r[e + 1].decode(String?.self),
                latitude: try r[e + 2].decode(Double?.self), longitude: try r[e + 3].decode(Double?.self),  // NULL together (a CHECK)
                amountMinor: try r[e + 4].decode(Int64.self), currencyCode: code, occurredMilliseconds: try r[e + 6].decode(Int64.self),
                utcOffsetMinutes: try r[e + 7].decode(Int32?.self), category: try r[e + 8].decode(String?.self),
                timestamp: (try r[e + 9].decode(String.self), try r[e + 10].decode(String.self))) { try Currency(code: code) }
            try rows.labelStore {
                guard let lat = try r[2].decode(Double?.self), let lon = try r[3].decode(Double?.self) else { return nil }
                let coordinate = Coordinate(uncheckedLatitude: lat, longitude: lon)
                let store = Store(id: "", name: try r[0].decode(String?.self), kind: try r[1].decode(String?.self), coordinate: coordinate)
                return (store.displayName, coordinate)
            }
        } body: { _ in }
        return rows.columns()
    }
}
