/// API tokens (`geospend tokens`, the HTTP service): each belongs to one user and acts as that
/// user. Only the SHA-256 hash of a token's secret is kept; the token is shown once, when made.
/// A token carries a random lookup key, so the service finds the one row whose hash it compares,
/// in constant time, with the hash of the secret sent. Ids are numbered per user (1, 2, 3 …,
/// never reused) for listing and revoking: they say nothing about other users' tokens.
public protocol TokenStore: Sendable {
    /// Stores a new token of an existing user (the store's not-found error otherwise) and returns it.
    func addToken(userID: String, scope: TokenScope, lookup: String, sha256: [UInt8], expiresAt: Timestamp?) async throws -> TokenRecord

    /// The token with this lookup key, hash included; nil when none (revoked or never made).
    func token(lookup: String) async throws -> (record: TokenRecord, sha256: [UInt8])?

    /// The user's tokens by id (every user's with nil), without hashes.
    func tokens(userID: String?) async throws -> [TokenRecord]

    /// Deletes one of the user's tokens; false when the user has no token with this id.
    func revokeToken(userID: String, id: Int64) async throws -> Bool
}

/// Tokens as a read scope hands them out (every `ExpenseReader` is one): the service checks a
/// request's token and answers the request in one scope, on one connection, instead of one
/// scope for each. A store that keeps no tokens finds none.
public protocol TokenReader {
    /// `TokenStore.token(lookup:)`, in the scope's snapshot.
    func token(lookup: String) throws -> (record: TokenRecord, sha256: [UInt8])?
    /// `TokenStore.tokens(userID:)`, in the scope's snapshot.
    func tokens(userID: String?) throws -> [TokenRecord]
}

/// A backend's token reads are its read scope's (written once, in its reader).
extension TokenStore where Self: ExpenseStore {
    public func token(lookup: String) async throws -> (record: TokenRecord, sha256: [UInt8])? {
        try await read { try $0.token(lookup: lookup) }
    }

    public func tokens(userID: String?) async throws -> [TokenRecord] { try await read { try $0.tokens(userID: userID) } }
}

/// What a token may do: `read` queries, `write` also changes the user's data, `admin` also
/// reads across users (store reports, every user's layers).
public enum TokenScope: String, Sendable, CaseIterable, Comparable {
    case read, write, admin

    /// Whether a token of this scope may do what `needed` allows.
    public func allows(_ needed: TokenScope) -> Bool { self >= needed }

    public static func < (a: TokenScope, b: TokenScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A stored token, without its hash.
public struct TokenRecord: Sendable, Hashable {
    public let id: Int64
    public let userID: String
    public let scope: TokenScope
    /// When it was made, `YYYY-MM-DDTHH:MM:SS.sssZ`.
    public let createdAt: String
    /// When it stops working (an RFC 3339 instant); nil: never.
    public let expiresAt: Timestamp?

    public init(id: Int64, userID: String, scope: TokenScope, createdAt: String, expiresAt: Timestamp?) {
        self.id = id
        self.userID = userID
        self.scope = scope
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Whether the token has expired at `now` (milliseconds since the epoch).
    public func isExpired(atEpochMilliseconds now: Int64) -> Bool {
        expiresAt.map { $0.epochMilliseconds <= now } ?? false
    }
}
