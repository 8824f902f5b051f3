import Crypto
import Foundation
import GeoSpend
import Hummingbird

/// Bearer tokens: `gs_<lookup>_<secret>`, the lookup key 9 and the secret 32 random bytes, both
/// base64url (no `_`: `-` and `.` stand for `+` and `/`). The store keeps the SHA-256 of the
/// secret only; the lookup key finds the one row to compare with, and the hashes are compared in
/// constant time, so the time taken says nothing about how much of a guess was right.
public enum TokenAuth {
    /// A new token: what the user is given (`text`) and what the store keeps.
    public struct NewToken: Sendable {
        public let lookup: String
        public let sha256: [UInt8]
        public let text: String
    }

    public static func newToken() -> NewToken {
        let (lookup, secret) = (randomText(bytes: 9), randomText(bytes: 32))
        return NewToken(lookup: lookup, sha256: hash(secret), text: "gs_\(lookup)_\(secret)")
    }

    private static func randomText(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2) on Linux: a CSPRNG
        let bytes = (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: ".").replacingOccurrences(of: "=", with: "")
    }

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
        guard let (lookup, secret) = parse(header) else { return nil }
        return check(secret, against: try await store.token(lookup: lookup), now: now)
    }

    /// `verify` inside a read scope, in its snapshot.
    static func verify(_ header: String?, in reader: any TokenReader, now: Date = Date()) throws -> TokenRecord? {
        guard let (lookup, secret) = parse(header) else { return nil }
        return check(secret, against: try reader.token(lookup: lookup), now: now)
    }

    /// The lookup key and the secret of `Bearer gs_<lookup>_<secret>`.
    private static func parse(_ header: String?) -> (lookup: String, secret: Substring)? {
        guard let header, header.hasPrefix("Bearer ") else { return nil }
        let parts = header.dropFirst("Bearer ".count).split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "gs" else { return nil }
        return (String(parts[1]), parts[2])
    }

    private static func check(_ secret: Substring, against stored: (record: TokenRecord, sha256: [UInt8])?, now: Date) -> TokenRecord? {
        guard let stored, constantTimeEqual(hash(String(secret)), stored.sha256) else { return nil }
        guard !stored.record.isExpired(atEpochMilliseconds: Int64(now.timeIntervalSince1970 * 1000)) else { return nil }
        return stored.record
    }

    /// Throws 403 unless a token of `scope` may make a request with `method`: reading needs
    /// `read`, anything else `write`.
    static func authorize(_ scope: TokenScope, for method: HTTPRequest.Method) throws {
        let needed: TokenScope = [.get, .head].contains(method) ? .read : .write
        guard scope.allows(needed) else {
            throw Problem(.forbidden, "this token's scope is \(scope.rawValue); \(method) needs a \(needed.rawValue) token (`geospend tokens create --scope \(needed.rawValue)`)")
        }
    }
}

/// Refuses requests without a valid token (401) and those whose token's scope is too small
/// (403): reading needs `read`, anything else `write`.
struct TokenMiddleware: RouterMiddleware {
    let store: any TokenStore

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        guard let token = try await TokenAuth.verify(request.headers[.authorization], in: store) else { throw Problem.unauthorized }
        try TokenAuth.authorize(token.scope, for: request.method)
        var context = context
        context.token = token
        return try await next(request, context)
    }
}
