import Foundation
import GeoSpend
import GRDB

/// The tables behind `TokenStore` (migration v12): the SHA-256 of each token's secret, never
/// the secret. `number` is the id users see, unique per user and never reused
/// (`api_token_numbers`, as `period_numbers`); `lookup` the random key the token carries.
/// `user_id` with cascading keys, so `users delete` (which finds tables by their user keys)
/// takes a user's tokens along.
enum TokenSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE api_tokens (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                number BIGINT NOT NULL CHECK (number > 0),
                lookup TEXT NOT NULL UNIQUE,
                scope TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
                sha256 BLOB NOT NULL CHECK (length(sha256) = 32),
                created_at TEXT NOT NULL,
                expires_at TEXT,
                UNIQUE (user_id, number)
            );
            CREATE TABLE api_token_numbers (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                last BIGINT NOT NULL
            );
            """)
    }
}

extension SpatiaLiteStore: TokenStore {
    public func addToken(userID: String, scope: TokenScope, lookup: String, sha256: [UInt8], expiresAt: Timestamp?) async throws -> TokenRecord {
        let userID = Identity.normalized(userID)
        return try await writeTransaction { db in
            let number = try UserNumbers.next(db, counter: "api_token_numbers", existingUser: userID)
            try db.execute(
                sql: """
                    INSERT INTO api_tokens (user_id, number, lookup, scope, sha256, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, \(Self.nowSQL), ?)
                    """,
                arguments: [userID, number, lookup, scope.rawValue, Data(sha256), expiresAt?.text])
            let row = try Row.fetchOne(db, sql: "SELECT \(Self.tokenColumns) FROM api_tokens WHERE pk = ?", arguments: [db.lastInsertedRowID])!
            return try Self.tokenRecord(row)
        }
    }

    static func fetchToken(_ db: Database, lookup: String) throws -> (record: TokenRecord, sha256: [UInt8])? {
        // Cached: the service runs it on every request; prepared once per connection.
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(tokenColumns), sha256 FROM api_tokens WHERE lookup = ?"), arguments: [lookup])
            .map { (try tokenRecord($0), [UInt8]($0[5] as Data)) }
    }

    /// The user's tokens (every user's with nil), by user and id.
    static func fetchTokens(_ db: Database, userID: String?) throws -> [TokenRecord] {
        try Row.fetchAll(
            db, sql: "SELECT \(tokenColumns) FROM api_tokens WHERE ?1 IS NULL OR user_id = ?1 ORDER BY user_id, number",
            arguments: [userID]
        ).map(tokenRecord)
    }

    public func revokeToken(userID: String, id: Int64) async throws -> Bool {
        try await writeTransaction { db in
            try db.execute(sql: "DELETE FROM api_tokens WHERE number = ? AND user_id = ?", arguments: [id, Identity.normalized(userID)])
            return db.changesCount > 0
        }
    }

    private static let tokenColumns = "number, user_id, scope, created_at, expires_at"

    private static func tokenRecord(_ r: Row) throws -> TokenRecord {
        TokenRecord(
            id: r[0], userID: r[1], scope: TokenScope(rawValue: r[2]) ?? .read, createdAt: r[3],
            expiresAt: try (r[4] as String?).map { try Timestamp(parsing: $0) })
    }
}

extension SpatiaLiteReader: TokenReader {
    public func token(lookup: String) throws -> (record: TokenRecord, sha256: [UInt8])? {
        try SpatiaLiteStore.fetchToken(db, lookup: lookup)
    }

    public func tokens(userID: String?) throws -> [TokenRecord] {
        try SpatiaLiteStore.fetchTokens(db, userID: userID.map(Identity.normalized))
    }
}
