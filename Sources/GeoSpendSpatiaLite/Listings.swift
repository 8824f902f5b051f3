import GeoSpend
import GRDB

/// What exists to be named on the command line: user ids, a user's categories, store kinds.
/// The CLI checks names against these, so a typo is an error with a suggestion rather than an
/// empty result that reads like "no spending".
extension SpatiaLiteReader {
    public func hasUser(_ id: String) throws -> Bool {
        try read { db in try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)"), arguments: [id]) ?? false }
    }

    public func userIDs() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT id FROM users ORDER BY id") }
    }

    /// One lookup each in the `expenses_category` index for the counts.
    public func categoryCounts(userID: String?) throws -> [CategoryCount] {
        try read { db in
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

    public func storeKindCounts() throws -> [StoreKindCount] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT kind, count(*) AS n FROM stores GROUP BY kind ORDER BY kind IS NULL, n DESC, kind"
            ).map { StoreKindCount(kind: $0[0], stores: $0[1]) }
        }
    }
}

/// The same lists outside a scope, for the commands that list them (`users list`,
/// `categories`, `kinds`).
extension SpatiaLiteStore {
    public func hasUser(_ id: String) throws -> Bool { try readHere { try $0.hasUser(id) } }
    public func userIDs() throws -> [String] { try readHere { try $0.userIDs() } }
    public func categoryCounts(userID: String?) throws -> [CategoryCount] { try readHere { try $0.categoryCounts(userID: userID) } }
    public func storeKindCounts() throws -> [StoreKindCount] { try readHere { try $0.storeKindCounts() } }
}
