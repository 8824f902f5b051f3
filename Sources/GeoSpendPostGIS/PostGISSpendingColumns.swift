import GeoSpend
import PostgresNIO

/// What per-place analytics read, as columns straight from the rows (no `SpendingPoint` per
/// row), each row with its stored timestamp: first and last visits then need no second
/// statement (`LocationInsights`), a round trip and a plan fewer per insights answer.
extension PostGISReader {
    func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns {
        var rows = SpendingColumns.Builder()
        try inBatches(filter, geotaggedOnly: false, columns: """
            e.id, e.store_id, e.lat, e.lon, e.amount_minor, e.currency, e.occurred_ms, e.utc_offset_min, c.name, e.occurred_at, e.local_date
            """) { r in
            let code = try r[5].decode(String.self)
            try rows.append(
                id: try r[0].decode(String.self), storeID: try r[1].decode(String?.self),
                latitude: try r[2].decode(Double?.self), longitude: try r[3].decode(Double?.self),  // NULL together (a CHECK)
                amountMinor: try r[4].decode(Int64.self), currencyCode: code, occurredMilliseconds: try r[6].decode(Int64.self),
                utcOffsetMinutes: try r[7].decode(Int32?.self), category: try r[8].decode(String?.self),
                timestamp: (try r[9].decode(String.self), try r[10].decode(String.self))) { try Currency(code: code) }
        } body: { _ in }
        return rows.columns()
    }
}
