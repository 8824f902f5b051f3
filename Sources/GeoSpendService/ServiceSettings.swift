import Foundation
import Synchronization

/// What the operator decides when the service starts and no request can change: where clients
/// reach it, the privacy floor of cross-user answers and whether
/// `/metrics` is served. `geospend serve` builds it from its options.
public struct ServiceSettings: Sendable {
    /// The address clients reach the service at, scheme included (`https://maps.example.org`),
    /// with no trailing slash. Every absolute URL the service writes (OGC links, TileJSON
    /// `tiles`, `Link: rel="next"`) starts with it — never with the request's `Host` header,
    /// which a client sets: GDAL and QGIS follow those links with the token attached.
    public var publicURL: String { publicAddress.url }
    /// Set once the port is known when the service was asked for any free port and given no URL.
    public let publicAddress: PublicAddress
    /// The fewest distinct users a cross-user figure (store reports, all-users tiles) may come
    /// from. A request may ask for more (`min-users`), never fewer: k-anonymity is the
    /// operator's choice, not the caller's.
    public var minUsersFloor: Int
    /// `/metrics` (request counts by route) is served only when asked for: the counts tell an
    /// unauthenticated caller what the service's users do.
    public var exposeMetrics: Bool
    /// The receipt photos read (OCR) at once (`POST /api/v1/receipts`), each on one thread
    /// (`geospend serve` runs with `OMP_THREAD_LIMIT=1`, `ReceiptScanner.restartSingleThreaded`);
    /// more are 503 with `Retry-After`. Two by default: a scan takes about one second of one core
    /// and, for a 50-megapixel photo, a few hundred MB.
    public let scans: Slots
    /// The uploads in progress, shared by the routes that take files (and receipts): two at a
    /// time, each up to 64 MiB on disk and a chunk in memory; the imports behind them write one
    /// at a time anyway (one writer per database). Each service has its own: a process-wide count
    /// let one test's service refuse another's uploads when tests ran side by side.
    public let uploads: Slots
    /// The streamed downloads open, per user and in all (`StreamedBody`), this service's own.
    let streams = StreamSlots()
    /// The web app's basemap (`/`): the offline OpenStreetMap GeoJSON by default, or the
    /// operator's tiles (`geospend serve --basemap-tiles`).
    public var basemap: Basemap = .offline(file: nil)

    public init(publicURL: String = "http://127.0.0.1:8080", minUsersFloor: Int = 3, exposeMetrics: Bool = false, concurrentScans: Int = 2) {
        publicAddress = PublicAddress(publicURL)
        self.minUsersFloor = minUsersFloor
        self.exposeMetrics = exposeMetrics
        scans = Slots(limit: concurrentScans, busy: { "the service is reading \($0) receipt photos already; retry in a few seconds" }, retryAfter: 2)
        uploads = Slots(limit: 2, busy: { "the service is taking \($0) uploads already; retry in a few seconds" }, retryAfter: 5)
    }

    /// `text` as a public URL: `http` or `https`, a host, no query, fragment or user part; the
    /// trailing slash dropped. Nil when it is not one.
    public static func publicURL(_ text: String) -> String? {
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parts.host, !host.isEmpty, parts.query == nil, parts.fragment == nil, parts.user == nil, parts.password == nil,
              text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"<>\"'\\`{}|^".unicodeScalars.contains($0) })
        else { return nil }
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// The cross-user threshold for a request's `min-users`: the request's when it is at least
    /// the floor, the floor when none was given, a 400 when it is lower.
    func minUsers(_ asked: Int?) throws -> Int {
        guard let asked else { return minUsersFloor }
        guard asked >= minUsersFloor else {
            throw Problem(.badRequest, "min-users: this service publishes nothing from fewer than \(minUsersFloor) users (set when it started: `geospend serve --min-users`); ask for \(minUsersFloor) or more")
        }
        return asked
    }
}

/// The service's public URL, fixed before the first request is served.
public final class PublicAddress: Sendable {
    private let value: Mutex<String>
    public init(_ url: String) { value = Mutex(url) }
    public var url: String { value.withLock { $0 } }
    /// Only before the service answers its first request (`geospend serve --port 0`).
    public func set(_ url: String) { value.withLock { $0 = url } }
}

/// A query string built from parsed parameters, every value percent-encoded so that nothing a
/// client sent can end the URL, a header field or a JSON string early.
enum QueryText {
    /// RFC 3986 unreserved characters: all else is encoded.
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `?a=1&b=2` from name/value pairs in order, or "" for none.
    static func build(_ items: [(String, String)]) -> String {
        items.isEmpty ? "" : "?" + items.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }
}
