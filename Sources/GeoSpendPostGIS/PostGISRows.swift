import GeoSpend
import PostgresNIO

/// Column lists and row decoders shared by the PostgreSQL store's queries, in the file store's
/// column order (`StoredRows`).
enum PostGISRows {
    static let expenseColumns = """
        e.id, e.user_id, e.kind, e.amount_minor, e.currency, e.occurred_at, e.occurred_ms, e.utc_offset_min,
        e.local_date, e.title, c.name, e.merchant, e.lat, e.lon, e.accuracy_m, e.store_id, e.notes
        """
    /// The user in the condition is implied (an expense's category is its user's), but it lets a
    /// generic plan read the user's few categories instead of hashing every user's.
    static let categoryJoin = "LEFT JOIN categories AS c ON c.user_id = e.user_id AND c.id = e.category_id"

    static let storeColumns = "s.id, s.name, s.kind, s.brand, s.street, s.postcode, s.city, s.country, s.lat, s.lon, s.source_id"

    static func store(_ r: PostgresRandomAccessRow) throws -> Store {
        Store(
            id: try r[0].decode(String.self), name: try r[1].decode(String?.self), kind: try r[2].decode(String?.self),
            brand: try r[3].decode(String?.self), street: try r[4].decode(String?.self), postcode: try r[5].decode(String?.self),
            city: try r[6].decode(String?.self), country: try r[7].decode(String?.self),
            coordinate: Coordinate(uncheckedLatitude: try r[8].decode(Double.self), longitude: try r[9].decode(Double.self)),
            sourceID: try r[10].decode(String?.self))
    }

    static func expense(_ r: PostgresRandomAccessRow) throws -> Expense {
        var location: ExpenseLocation?
        if let lat = try r[12].decode(Double?.self), let lon = try r[13].decode(Double?.self) {
            location = ExpenseLocation(
                coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), accuracyMeters: try r[14].decode(Double?.self))
        }
        return Expense(
            id: try r[0].decode(String.self), userID: try r[1].decode(String.self),
            kind: ExpenseKind(rawValue: try r[2].decode(String.self)) ?? .expense,
            amount: Money(minorUnits: try r[3].decode(Int64.self), currency: try Currency(code: try r[4].decode(String.self))),
            occurredAt: Timestamp(
                text: try r[5].decode(String.self), epochMilliseconds: try r[6].decode(Int64.self),
                utcOffsetMinutes: try r[7].decode(Int32?.self).map(Int.init), localDate: try r[8].decode(String.self)),
            title: try r[9].decode(String?.self), category: try r[10].decode(String?.self), merchant: try r[11].decode(String?.self),
            location: location, storeID: try r[15].decode(String?.self), notes: try r[16].decode(String?.self))
    }

    /// ASCII letters folded, as the categories' `name_fold` column is (SQLite's NOCASE).
    static func asciiFolded(_ s: String) -> String {
        String(decoding: s.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
