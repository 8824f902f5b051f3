import GeoSpend
import Hummingbird

/// A request answered in one read scope: its token checked (as `TokenMiddleware` checks it: 401,
/// then 403), then `body` run as the token's user, on the same connection and snapshot. For the
/// small, frequent queries (`near`, `nearest-stores`), whose routes sit outside the middleware:
/// one scope instead of three (token, user check, query) takes two thread hand-offs and two
/// BEGIN/COMMITs off each request (Benchmarks/RESULTS.md, session 14); a quick read
/// (`ExpenseStore.quickRead`) takes the last hand-off off (session 16). A token revoked or
/// deleted in another process is refused by the next request, as behind the middleware.
enum TokenCheckedRead {
    static func run<T: Sendable>(
        _ request: Request, store: any ExpenseStore, _ body: @escaping @Sendable (TokenRecord, any ExpenseReader) throws -> T
    ) async throws -> T {
        let (header, method) = (request.headers[.authorization], request.method)
        return try await store.quickRead { reader in
            guard let token = try TokenAuth.verify(header, in: reader) else { throw Problem.unauthorized }
            try TokenAuth.authorize(token.scope, for: method)
            return try body(token, reader)
        }
    }
}
