import Foundation
import GeoSpend
import GRDB

/// The table behind `TokenStore` (migration v12): the SHA-256 of each token, never the token.
/// `AUTOINCREMENT`: a revoked token's id is never given to another. `user_id` with a cascading
/// key, so `users delete` (which finds tables by their user keys) takes a user's tokens along.
enum TokenSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE api_tokens (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                scope TEXT NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
                sha256 BLOB NOT NULL CHECK (length(sha256) = 32),
                created_at TEXT NOT NULL,
                expires_at TEXT
            );
            CREATE INDEX api_tokens_user ON api_tokens(user_id);
            """)
    }
}

extension SpatiaLiteStore: TokenStore {
    public func addToken(userID: String, scope: TokenScope, sha256: [UInt8], expiresAt: Timestamp?) async throws -> TokenRecord {
        try await offloaded { try self.addTokenNow(userID: Identity.normalized(userID), scope: scope, sha256: sha256, expiresAt: expiresAt) }
    }

    public func token(id: Int64) async throws -> (record: TokenRecord, sha256: [UInt8])? {
        try await offloaded {
            try self.readDatabase { db in
                try Row.fetchOne(db, sql: "SELECT \(Self.tokenColumns), sha256 FROM api_tokens WHERE id = ?", arguments: [id])
                    .map { (try Self.tokenRecord($0), [UInt8]($0[5] as Data)) }
            }
        }
    }

    public func tokens(userID: String?) async throws -> [TokenRecord] {
        try await offloaded {
            try self.readDatabase { db in
                let user = userID.map(Identity.normalized)
                return try Row.fetchAll(
                    db, sql: "SELECT \(Self.tokenColumns) FROM api_tokens WHERE ?1 IS NULL OR user_id = ?1 ORDER BY id",
                    arguments: [user]
                ).map(Self.tokenRecord)
            }
        }
    }

    public func revokeToken(userID: String, id: Int64) async throws -> Bool {
        try await offloaded {
            try self.writeTransaction { db in
                try db.execute(sql: "DELETE FROM api_tokens WHERE id = ? AND user_id = ?", arguments: [id, Identity.normalized(userID)])
                return db.changesCount > 0
            }
        }
    }

    private func addTokenNow(userID: String, scope: TokenScope, sha256: [UInt8], expiresAt: Timestamp?) throws -> TokenRecord {
        try writeTransaction { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [userID]) == true else {
                throw StoreError.notFound(what: "user", id: userID)
            }
            try db.execute(
                sql: "INSERT INTO api_tokens (user_id, scope, sha256, created_at, expires_at) VALUES (?, ?, ?, \(Self.nowSQL), ?)",
                arguments: [userID, scope.rawValue, Data(sha256), expiresAt?.text])
            let row = try Row.fetchOne(db, sql: "SELECT \(Self.tokenColumns) FROM api_tokens WHERE id = ?", arguments: [db.lastInsertedRowID])!
            return try Self.tokenRecord(row)
        }
    }

    private static let tokenColumns = "id, user_id, scope, created_at, expires_at"

    private static func tokenRecord(_ r: Row) throws -> TokenRecord {
        TokenRecord(
            id: r[0], userID: r[1], scope: TokenScope(rawValue: r[2]) ?? .read, createdAt: r[3],
            expiresAt: try (r[4] as String?).map { try Timestamp(parsing: $0) })
    }
}
