import Crypto
import Foundation
import GeoSpend
import Hummingbird

/// Bearer tokens: `gs_<id>_<secret>`, the secret 32 random bytes in base64url. The store keeps
/// the SHA-256 of the secret only; the id finds the one row to compare with, and the hashes are
/// compared in constant time, so the time taken says nothing about how much of a guess was right.
public enum TokenAuth {
    /// A new secret and its hash (what `tokens create` stores).
    public static func newSecret() -> (secret: String, sha256: [UInt8]) {
        var generator = SystemRandomNumberGenerator()  // getrandom(2) on Linux: a CSPRNG
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let secret = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return (secret, hash(secret))
    }

    /// The token as users send it.
    public static func token(id: Int64, secret: String) -> String { "gs_\(id)_\(secret)" }

    static func hash(_ secret: String) -> [UInt8] { Array(SHA256.hash(data: Data(secret.utf8))) }

    /// Equal lengths and bytes, in time that depends on the length only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// The stored token `header` (`Bearer gs_…`) stands for, if any and not expired.
    static func verify(_ header: String?, in store: any TokenStore, now: Date = Date()) async throws -> TokenRecord? {
        guard let header, header.hasPrefix("Bearer ") else { return nil }
        let parts = header.dropFirst("Bearer ".count).split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "gs", let id = Int64(parts[1]), let stored = try await store.token(id: id) else { return nil }
        guard constantTimeEqual(hash(String(parts[2])), stored.sha256) else { return nil }
        guard !stored.record.isExpired(atEpochMilliseconds: Int64(now.timeIntervalSince1970 * 1000)) else { return nil }
        return stored.record
    }
}

/// Refuses requests without a valid token (401) and those whose token's scope is too small
/// (403): reading needs `read`, anything else `write`.
struct TokenMiddleware: RouterMiddleware {
    let store: any TokenStore

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        guard let token = try await TokenAuth.verify(request.headers[.authorization], in: store) else { throw Problem.unauthorized }
        let needed: TokenScope = [.get, .head].contains(request.method) ? .read : .write
        guard token.scope.allows(needed) else {
            throw Problem(.forbidden, "this token's scope is \(token.scope.rawValue); \(request.method) needs a \(needed.rawValue) token (`geospend tokens create --scope \(needed.rawValue)`)")
        }
        var context = context
        context.token = token
        return try await next(request, context)
    }
}
