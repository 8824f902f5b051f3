import GeoSpend
import GRDB

/// The tables behind `PantryStore` (migration v25).
/// - `pantry_items`: `number` is the id users see, unique per user, never reused
///   (`pantry_numbers`, as `recurring_numbers`); `expires` a `YYYY-MM-DD` day or NULL;
///   `status` open, used or discarded, `closed_at` set when it left open.
enum PantrySchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE pantry_items (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                number BIGINT NOT NULL CHECK (number > 0),
                name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
                quantity TEXT,
                expires TEXT CHECK (expires IS NULL OR length(expires) = 10),
                status TEXT NOT NULL CHECK (status IN ('open', 'used', 'discarded')),
                created_at TEXT NOT NULL,
                closed_at TEXT CHECK ((closed_at IS NULL) = (status = 'open')),
                UNIQUE (user_id, number)
            );
            CREATE INDEX pantry_items_open_expires ON pantry_items(expires) WHERE status = 'open';
            CREATE TABLE pantry_numbers (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                last BIGINT NOT NULL
            );
            """)
    }

    /// Migration v30: where an item came from (`PantryItem.Source`) and the purchase (expense
    /// id) a list check or a receipt made it with; items before it were added by hand.
    static func addSources(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE pantry_items ADD COLUMN source TEXT NOT NULL DEFAULT 'hand' CHECK (source IN ('hand', 'list', 'receipt'));
            ALTER TABLE pantry_items ADD COLUMN purchase_id TEXT CHECK ((purchase_id IS NULL) = (source = 'hand'));
            CREATE INDEX pantry_items_purchase ON pantry_items(user_id, purchase_id) WHERE purchase_id IS NOT NULL;
            """)
    }

    static let columns = "number, user_id, name, quantity, expires, status, created_at, closed_at, source, purchase_id"

    static func item(_ row: Row) throws -> PantryItem {
        let expires: String? = row[4]
        return PantryItem(
            id: row[0], userID: row[1], name: row[2], quantity: row[3], expires: try expires.map { try LocalDay(parsing: $0) },
            status: PantryItem.Status(rawValue: row[5]) ?? .open, createdAt: row[6], closedAt: row[7],
            source: PantryItem.Source(rawValue: row[8]) ?? .hand, purchaseID: row[9])
    }

    /// Adds an open item inside the caller's transaction (the user exists). - Returns: its id.
    @discardableResult
    static func insert(_ db: Database, user: String, _ fields: PantryFields, source: PantryItem.Source, purchase: String?) throws -> Int64 {
        let number = try UserNumbers.next(db, counter: "pantry_numbers", user: user)
        try db.execute(sql: """
            INSERT INTO pantry_items (user_id, number, name, quantity, expires, status, created_at, source, purchase_id)
            VALUES (?, ?, ?, ?, ?, 'open', \(SpatiaLiteStore.nowSQL), ?, ?)
            """, arguments: [user, number, fields.name, fields.quantity, fields.expires?.description, source.rawValue, purchase])
        return number
    }

    /// Deletes the items a purchase added, inside the caller's transaction (`lists uncheck`).
    static func deleteItems(_ db: Database, user: String, purchase: String, source: PantryItem.Source) throws {
        try db.execute(
            sql: "DELETE FROM pantry_items WHERE user_id = ? AND purchase_id = ? AND source = ?", arguments: [user, purchase, source.rawValue])
    }

    static func items(_ db: Database, user: String, number: Int64? = nil) throws -> [PantryItem] {
        try Row.fetchAll(db, sql: """
            SELECT \(columns) FROM pantry_items WHERE user_id = ?1 AND (?2 IS NULL OR number = ?2) ORDER BY number
            """, arguments: [user, number]).map(item)
    }
}

extension SpatiaLiteStore: PantryStore {
    public func addPantryItem(userID: String, _ fields: PantryFields) async throws -> PantryItem? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> PantryItem? in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [user]) == true else { return nil }
            let number = try PantrySchema.insert(db, user: user, fields, source: .hand, purchase: nil)
            return try PantrySchema.items(db, user: user, number: number).first
        }
    }

    public func closePantryItem(userID: String, id: Int64, as status: PantryItem.Status) async throws -> PantryItem? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> PantryItem? in
            try db.execute(sql: """
                UPDATE pantry_items SET status = ?, closed_at = \(Self.nowSQL) WHERE user_id = ? AND number = ? AND status = 'open'
                """, arguments: [status.rawValue, user, id])
            return try PantrySchema.items(db, user: user, number: id).first
        }
    }

}

/// The pantry reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: PantryReader {
    public func pantryItems(userID: String) throws -> [PantryItem] {
        try PantrySchema.items(db, user: Identity.normalized(userID))
    }

    public func openPantryItems(expiringOnOrBefore day: LocalDay) throws -> [PantryItem] {
        try Row.fetchAll(db, sql: """
            SELECT \(PantrySchema.columns) FROM pantry_items WHERE status = 'open' AND expires <= ? ORDER BY user_id, number
            """, arguments: [day.description]).map(PantrySchema.item)
    }
}
