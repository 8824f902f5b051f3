import Foundation
import GeoSpend
import PostgresNIO

/// API tokens on PostgreSQL (migration v4), as the file keeps them
/// (Sources/GeoSpendSpatiaLite/TokenStorage.swift): only the SHA-256 of a token's secret.
extension PostGISStore: TokenStore {
    private static let tokenColumns = "number, user_id, scope, created_at, expires_at"

    public func addToken(userID: String, scope: TokenScope, lookup: String, sha256: [UInt8], expiresAt: Timestamp?) async throws -> TokenRecord {
        let user = Identity.normalized(userID)
        return try await editing { r in
            guard try r.hasUser(user) else { throw UsageError("no user \"\(OutputEscaping.visible(user))\"; `geospend users list` shows the users") }
            let number = try Self.nextNumber(r, counter: "api_token_numbers", user: user)
            return try Self.tokenRecord(try r.rows("""
                INSERT INTO api_tokens (user_id, number, lookup, scope, sha256, created_at, expires_at)
                VALUES (\(user), \(number), \(lookup), \(scope.rawValue), \(Data(sha256)), \(unescaped: Self.nowSQL), \(expiresAt?.text))
                RETURNING \(unescaped: Self.tokenColumns)
                """)[0])
        }
    }

    static func fetchToken(_ r: PostGISReader, lookup: String) throws -> (record: TokenRecord, sha256: [UInt8])? {
        try r.rows("SELECT \(unescaped: tokenColumns), sha256 FROM api_tokens WHERE lookup = \(lookup)").first.map { row in
            (try tokenRecord(row), [UInt8](try row.makeRandomAccess()[5].decode(Data.self)))
        }
    }

    public func revokeToken(userID: String, id: Int64) async throws -> Bool {
        try await editing { r in
            !(try r.rows("DELETE FROM api_tokens WHERE number = \(id) AND user_id = \(Identity.normalized(userID)) RETURNING 1")).isEmpty
        }
    }

    /// The user's tokens (every user's with nil), by user and id.
    static func fetchTokens(_ r: PostGISReader, userID: String?) throws -> [TokenRecord] {
        try r.rows("""
            SELECT \(unescaped: Self.tokenColumns) FROM api_tokens WHERE \(userID)::text IS NULL OR user_id = \(userID) ORDER BY user_id, number
            """).map(tokenRecord)
    }

    private static func tokenRecord(_ row: PostgresRow) throws -> TokenRecord {
        let x = row.makeRandomAccess()
        return TokenRecord(
            id: try x[0].decode(Int64.self), userID: try x[1].decode(String.self),
            scope: TokenScope(rawValue: try x[2].decode(String.self)) ?? .read, createdAt: try x[3].decode(String.self),
            expiresAt: try x[4].decode(String?.self).map { try Timestamp(parsing: $0) })
    }
}

extension PostGISReader: TokenReader {
    func token(lookup: String) throws -> (record: TokenRecord, sha256: [UInt8])? { try PostGISStore.fetchToken(self, lookup: lookup) }
    func tokens(userID: String?) throws -> [TokenRecord] { try PostGISStore.fetchTokens(self, userID: userID.map(Identity.normalized)) }
}
