import GeoSpend

/// A token as the file's `api_tokens` row keeps it: the SHA-256 of its secret, never the secret.
struct MemoryToken {
    let record: TokenRecord
    let lookup: String
    let sha256: [UInt8]
}

/// API tokens with the file's rules (Sources/GeoSpendSpatiaLite/TokenStorage.swift): numbered
/// per user and never reused; a user must exist to get one.
extension MemoryStore: TokenStore {
    public func addToken(userID: String, scope: TokenScope, lookup: String, sha256: [UInt8], expiresAt: Timestamp?) async throws -> TokenRecord {
        let user = Identity.normalized(userID)
        return try await edit { state in
            try state.requireUser(user)
            // The file's UNIQUE (lookup): a collision of random keys is refused, not shared.
            guard !state.tokens.contains(where: { ExactText($0.lookup) == ExactText(lookup) }) else {
                throw UsageError("a token with this lookup key exists already; make another")
            }
            let record = TokenRecord(
                id: state.nextNumber(.token, user: user), userID: user, scope: scope, createdAt: MemoryClock.now(), expiresAt: expiresAt)
            state.tokens.append(MemoryToken(record: record, lookup: lookup, sha256: sha256))
            return record
        }
    }

    public func revokeToken(userID: String, id: Int64) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let at = state.tokens.firstIndex(where: { ExactText($0.record.userID) == user && $0.record.id == id }) else { return false }
            state.tokens.remove(at: at)
            return true
        }
    }
}

extension MemoryReader {
    func token(lookup: String) throws -> (record: TokenRecord, sha256: [UInt8])? {
        state.tokens.first { ExactText($0.lookup) == ExactText(lookup) }.map { ($0.record, $0.sha256) }
    }

    /// The user's tokens (every user's with nil), by user (bytes) and id.
    func tokens(userID: String?) throws -> [TokenRecord] {
        let user = userID.map { ExactText(Identity.normalized($0)) }
        return state.tokens.map(\.record).filter { user == nil || ExactText($0.userID) == user! }
            .sorted { a, b in ExactText(a.userID) != ExactText(b.userID) ? byBytes(a.userID, b.userID) : a.id < b.id }
    }
}
