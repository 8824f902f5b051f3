import GeoSpend
import PostgresNIO

/// Pantry items on PostgreSQL (migration v16), with the file's rules
/// (Sources/GeoSpendSpatiaLite/PantryStorage.swift): ids numbered per user and never reused,
/// another user's item is "none", a closed item stays as it was.
extension PostGISStore: PantryStore {
    public func addPantryItem(userID: String, _ fields: PantryFields) async throws -> PantryItem? {
        let user = Identity.normalized(userID)
        return try await editing { r -> PantryItem? in
            guard !(try r.rows("SELECT 1 FROM users WHERE id = \(user)")).isEmpty else { return nil }
            let number = try Self.insertPantryItem(r, user: user, fields, source: .hand, purchase: nil)
            return try Self.pantryItems(r, user: user, number: number).first
        }
    }

    public func closePantryItem(userID: String, id: Int64, as status: PantryItem.Status) async throws -> PantryItem? {
        let user = Identity.normalized(userID)
        return try await editing { r -> PantryItem? in
            _ = try r.rows("""
                UPDATE pantry_items SET status = \(status.rawValue), closed_at = \(unescaped: Self.nowSQL)
                WHERE user_id = \(user) AND number = \(id) AND status = 'open'
                """)
            return try Self.pantryItems(r, user: user, number: id).first
        }
    }

    /// Adds an open item inside the caller's transaction (the user exists). - Returns: its id.
    @discardableResult
    static func insertPantryItem(_ r: PostGISReader, user: String, _ fields: PantryFields, source: PantryItem.Source, purchase: String?) throws -> Int64 {
        let number = try nextNumber(r, counter: "pantry_numbers", user: user)
        _ = try r.rows("""
            INSERT INTO pantry_items (user_id, number, name, quantity, expires, status, created_at, source, purchase_id)
            VALUES (\(user), \(number), \(fields.name), \(fields.quantity), \(fields.expires?.description), 'open', \(unescaped: nowSQL),
                \(source.rawValue), \(purchase))
            """)
        return number
    }

    /// Deletes the items a purchase added, inside the caller's transaction (`lists uncheck`).
    static func deletePantryItems(_ r: PostGISReader, user: String, purchase: String, source: PantryItem.Source) throws {
        _ = try r.rows("DELETE FROM pantry_items WHERE user_id = \(user) AND purchase_id = \(purchase) AND source = \(source.rawValue)")
    }

    static func pantryItems(_ r: PostGISReader, user: String, number: Int64?) throws -> [PantryItem] {
        try pantryRows(r.rows("""
            SELECT \(unescaped: Self.pantryColumns) FROM pantry_items
            WHERE user_id = \(user) AND (\(number)::bigint IS NULL OR number = \(number)) ORDER BY number
            """))
    }

    static let pantryColumns = "number, user_id, name, quantity, expires, status, created_at, closed_at, source, purchase_id"

    static func pantryRows(_ rows: [PostgresRow]) throws -> [PantryItem] {
        try rows.map { row in
            let (n, user, name, quantity, expires, status, created, closed, source, purchase) = try row.decode(
                (Int64, String, String, String?, String?, String, String, String?, String, String?).self)
            return PantryItem(
                id: n, userID: user, name: name, quantity: quantity, expires: try expires.map { try LocalDay(parsing: $0) },
                status: PantryItem.Status(rawValue: status) ?? .open, createdAt: created, closedAt: closed,
                source: PantryItem.Source(rawValue: source) ?? .hand, purchaseID: purchase)
        }
    }
}

/// The pantry reads of a read scope, on its connection and snapshot.
extension PostGISReader: PantryReader {
    func pantryItems(userID: String) throws -> [PantryItem] {
        try PostGISStore.pantryItems(self, user: Identity.normalized(userID), number: nil)
    }

    func openPantryItems(expiringOnOrBefore day: LocalDay) throws -> [PantryItem] {
        try PostGISStore.pantryRows(rows("""
            SELECT \(unescaped: PostGISStore.pantryColumns) FROM pantry_items
            WHERE status = 'open' AND expires <= \(day.description) ORDER BY user_id, number
            """))
    }
}
