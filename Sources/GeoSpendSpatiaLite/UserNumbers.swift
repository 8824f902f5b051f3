import GRDB

/// Ids numbered per user (1, 2, 3 …) that never go back: a counter table (`period_numbers`,
/// `budget_numbers`: `user_id` primary key, `last`) keeps the last number issued, so a deleted
/// row's id is never given to a new one (a script holding "period 3" must not reach another
/// period), and one user's ids say nothing about how many rows other users have.
enum UserNumbers {
    /// The user's next number in `counter`, recorded as issued; call inside the write
    /// transaction that inserts the row.
    static func next(_ db: Database, counter: String, user: String) throws -> Int64 {
        let table = counter.quotedDatabaseIdentifier
        let last = try Int64.fetchOne(db, sql: "SELECT last FROM \(table) WHERE user_id = ?", arguments: [user]) ?? 0
        let number = last + 1
        try db.execute(
            sql: "INSERT INTO \(table) (user_id, last) VALUES (?1, ?2) ON CONFLICT (user_id) DO UPDATE SET last = ?2",
            arguments: [user, number])
        return number
    }

    /// `next`, for a user who must exist already (a token, a list): else `StoreError.notFound`.
    static func next(_ db: Database, counter: String, existingUser user: String) throws -> Int64 {
        guard try SpatiaLiteStore.userExists(db, user) else { throw StoreError.notFound(what: "user", id: user) }
        return try next(db, counter: counter, user: user)
    }
}
