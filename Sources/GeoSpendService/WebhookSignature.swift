import Crypto
import Foundation

/// How a delivery is signed (docs/NOTIFICATIONS.md § Verifying): the header
/// `GeoSpend-Signature: t=<unix seconds>,v1=<hex>`, `v1` the lowercase hex HMAC-SHA256 of
/// `"<t>.<body>"` keyed with the webhook's secret (the text `whsec_…` as UTF-8), as Stripe signs.
/// A receiver recomputes it over the raw body, compares in constant time and refuses a `t` more
/// than five minutes from its clock (replays).
public enum WebhookSignature {
    public static let header = "GeoSpend-Signature"

    /// The header's value for `body` sent at `timestamp` (seconds since 1970).
    public static func value(body: String, secret: String, timestamp: Int64) -> String {
        "t=\(timestamp),v1=\(hmac(body: body, secret: secret, timestamp: timestamp))"
    }

    public static func hmac(body: String, secret: String, timestamp: Int64) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("\(timestamp).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `header` signs `body` with `secret` (the receiver's side, for tests and Swift receivers).
    public static func verify(header: String, body: String, secret: String) -> Bool {
        var t: Int64?, v1: [String] = []
        for part in header.split(separator: ",") {
            let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            if kv[0] == "t" { t = Int64(kv[1]) } else if kv[0] == "v1" { v1.append(kv[1]) }
        }
        guard let t else { return false }
        let expected = Array(hmac(body: body, secret: secret, timestamp: t).utf8)
        return v1.contains { given in
            let g = Array(given.utf8)
            guard g.count == expected.count else { return false }
            return zip(g, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }
}
