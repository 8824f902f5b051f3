import GeoSpend
import GRDB

/// A user's category and how many of their expenses carry it (`geospend categories`).
public struct CategoryCount: Sendable, Hashable {
    public let name: String
    public let kind: GeoSpend.Category.Kind
    public let expenses: Int
}

/// A store kind (`amenity:cafe`, nil for stores without one) and how many stores have it
/// (`geospend kinds`).
public struct StoreKindCount: Sendable, Hashable {
    public let kind: String?
    public let stores: Int
}

/// What exists to be named on the command line: user ids, a user's categories, store kinds.
/// The CLI checks names against these, so a typo is an error with a suggestion rather than an
/// empty result that reads like "no spending".
extension SpatiaLiteStore {
    public func hasUser(_ id: String) throws -> Bool {
        try readDatabase { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [id]) ?? false }
    }

    /// Every user id, sorted (for suggestions only: no counts, so it stays cheap with many users).
    public func userIDs() throws -> [String] {
        try readDatabase { db in try String.fetchAll(db, sql: "SELECT id FROM users ORDER BY id") }
    }

    /// The user's categories (every user's with nil), expense and income, by kind then name,
    /// with their expense counts (one lookup each in the `expenses_category` index).
    public func categoryCounts(userID: String?) throws -> [CategoryCount] {
        try readDatabase { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.name, c.kind, (SELECT count(*) FROM expenses AS e WHERE e.category_id = c.id)
                    FROM categories AS c \(userID == nil ? "" : "WHERE c.user_id = ?")
                    ORDER BY c.kind, c.name, c.user_id
                    """,
                arguments: StatementArguments(userID.map { [$0] } ?? [])
            ).map { CategoryCount(name: $0[0], kind: GeoSpend.Category.Kind(rawValue: $0[1]) ?? .expense, expenses: $0[2]) }
        }
    }

    /// Store kinds with their store counts, most stores first, then by kind; stores without a
    /// kind last.
    public func storeKindCounts() throws -> [StoreKindCount] {
        try readDatabase { db in
            try Row.fetchAll(
                db, sql: "SELECT kind, count(*) AS n FROM stores GROUP BY kind ORDER BY kind IS NULL, n DESC, kind"
            ).map { StoreKindCount(kind: $0[0], stores: $0[1]) }
        }
    }
}
