import Foundation
import GeoSpend
import Hummingbird
import HTTPTypes
import Synchronization

/// The web app at `/` (issue 41): this month's money and where it went on a map, for the user of
/// the token given in the address's fragment (`/#token=…`), as `/map` takes it — never sent to the
/// server, taken out of the address bar at once, kept in a closure of the app's module only.
///
/// The page, script and style are files in `WebApp/`, shipped as SwiftPM resources and read
/// through `ServiceResources` (never `Bundle.module`, which crashes when the bundle is missing):
/// they stay real files a person can read, diff and lint (no Swift string escaping, no build
/// step), and `make install` copies the resource bundle next to the binary, where it looks first. The app reads the service's JSON endpoints only;
/// everything from the database reaches the page as text nodes (`textContent`), never HTML.
///
/// The basemap: by default the offline GeoJSON built from OpenStreetMap by
/// scripts/basemap/build_basemap.sh (Data/helsinki-basemap.geojson, ODbL), served gzipped when
/// the client accepts it; `geospend serve --basemap-tiles URL` replaces it by the operator's
/// raster tiles, whose origin is then the one other place the page may load images from.
struct WebAppRoutes {
    let basemap: Basemap
    let file: BasemapFile?

    init(basemap: Basemap) {
        self.basemap = basemap
        if case .offline(let path?) = basemap { file = BasemapFile(path: path) } else { file = nil }
    }

    func add(to router: Router<ServiceContext>) {
        let policy = Self.contentSecurityPolicy(basemap)
        router.get("/") { _, _ in try Self.asset("index.html", contentType: "text/html; charset=utf-8", policy: policy) }
        for (name, type) in [("app.js", "text/javascript; charset=utf-8"), ("app.css", "text/css; charset=utf-8")] {
            router.get("app/\(name)") { _, _ in try Self.asset(name, contentType: type, policy: policy) }
        }
        router.get("app/config.json") { [basemap] _, _ in
            var response = JSONResponse.make(Self.config(basemap))
            response.headers[.cacheControl] = "no-store"
            return response
        }
        router.get("app/basemap.geojson") { [file] request, _ in
            guard let file else { throw Problem(.notFound, "no offline basemap: this service was started with --basemap-tiles, or found no Data/helsinki-basemap.geojson (give one with geospend serve --basemap FILE)") }
            let gzip = (request.headers[.acceptEncoding] ?? "").lowercased().split(separator: ",").contains {
                $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "gzip"
            }
            let bytes = try gzip ? file.gzipped() : file.plain()
            var response = Response(status: .ok, headers: [.contentType: "application/geo+json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
            if gzip { response.headers[.contentEncoding] = "gzip" }
            response.headers[.vary] = "Accept-Encoding"
            response.headers[.cacheControl] = "public, max-age=3600"
            response.headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
            return response
        }
    }

    /// `/map`'s policy (scripts, styles, requests from this service only, none inline), with
    /// `blob:` images (a receipt's photo is fetched with the token and shown from an object URL:
    /// an `<img src>` to the API would carry no Authorization header) and the operator's tile
    /// origin when tiles replace the offline basemap.
    static func contentSecurityPolicy(_ basemap: Basemap) -> String {
        var images = "img-src 'self' data: blob:"
        if case .tiles(let template, _) = basemap, let origin = Basemap.origin(of: template) { images += " " + origin }
        return MapRoutes.contentSecurityPolicy.replacingOccurrences(of: "img-src 'self' data:", with: images)
    }

    /// What the app asks first: where its basemap comes from and whose data it is.
    static func config(_ basemap: Basemap) -> JSONOutput {
        switch basemap {
        case .offline(let path):
            return .object([("basemap", .object([
                ("type", .string("geojson")), ("url", path == nil ? .null : .string("/app/basemap.geojson")),
                ("attribution", .string(Basemap.openStreetMapCredit)),
            ]))])
        case .tiles(let template, let attribution):
            return .object([("basemap", .object([
                ("type", .string("tiles")), ("url", .string(template)), ("attribution", .string(attribution)),
            ]))])
        }
    }

    /// A file of `WebApp/`, with `/map`'s headers (CSP, nosniff, no referrer).
    static func asset(_ name: String, contentType: String, policy: String) throws -> Response {
        guard let text = ServiceResources.text("WebApp/" + name) else { throw ServiceResources.missing("the web app's \(name)") }
        var response = MapRoutes.file(text, contentType: contentType)
        response.headers[.contentSecurityPolicy] = policy
        response.headers[.cacheControl] = "no-cache"
        return response
    }
}

/// Where the web app's basemap comes from (`geospend serve --basemap FILE | --basemap-tiles URL`).
public enum Basemap: Sendable, Equatable {
    /// A GeoJSON file of OpenStreetMap features (`kind`, `name`), drawn as vectors; nil when none
    /// was found: the app then draws no basemap and says so.
    case offline(file: String?)
    /// Raster tiles: an `http(s)` URL template with `{z}`, `{x}` and `{y}`, and the credit the
    /// tiles' licence asks for.
    case tiles(template: String, attribution: String)

    public static let openStreetMapCredit = "© OpenStreetMap contributors, ODbL"

    /// `scheme://host[:port]` of a tile template, for the page's Content-Security-Policy; nil when
    /// `template` is not an http(s) URL with `{z}`, `{x}` and `{y}` and nothing that could end a
    /// header field or a policy directive.
    public static func origin(of template: String) -> String? {
        guard ["{z}", "{x}", "{y}"].allSatisfy(template.contains),
              template.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"<>\"'\\`|^;,".unicodeScalars.contains($0) }),
              let parts = URLComponents(string: template.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")),
              let scheme = parts.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = parts.host, !host.isEmpty,
              parts.user == nil, parts.password == nil
        else { return nil }
        return scheme + "://" + host + (parts.port.map { ":\($0)" } ?? "")
    }
}

/// The offline basemap's bytes, read at the first request and kept, gzipped once when asked.
final class BasemapFile: Sendable {
    let path: String
    private let cache = Mutex<(plain: [UInt8]?, gzipped: [UInt8]?)>((nil, nil))

    init(path: String) { self.path = path }

    func plain() throws -> [UInt8] {
        if let bytes = cache.withLock({ $0.plain }) { return bytes }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(.notFound, "the offline basemap \(path) cannot be read")
        }
        let bytes = [UInt8](data)
        cache.withLock { $0.plain = bytes }
        return bytes
    }

    func gzipped() throws -> [UInt8] {
        if let bytes = cache.withLock({ $0.gzipped }) { return bytes }
        let bytes = Gzip.compress(try plain())
        cache.withLock { $0.gzipped = bytes }
        return bytes
    }
}
