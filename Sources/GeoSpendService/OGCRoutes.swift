import Foundation
import GeoSpend
import Hummingbird

/// OGC API – Features – Part 1: Core, with GeoJSON (OGC 17-069r4,
/// https://docs.ogc.org/is/17-069r4/17-069r4.html), under /ogc: what QGIS and GDAL's OAPIF
/// driver read. Items pages carry `numberMatched` and `numberReturned` and a `next` link, so a
/// client loads a whole layer a page at a time; `bbox` may cross the antimeridian (west > east).
struct OGCRoutes {
    let store: any Backend
    let settings: ServiceSettings
    let layers: OGCLayerCache

    static let conformance = [
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    ]
    static let crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    static let defaultLimit = 10, maxLimit = 10_000

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("", use: landing)
        group.get("conformance", use: conformance)
        group.get("collections", use: collections)
        group.get("collections/{collection}", use: collection)
        group.get("collections/{collection}/items", use: items)
        group.get("collections/{collection}/items/{feature}", use: item)
    }

    @Sendable func landing(_ request: Request, context: ServiceContext) async throws -> Response {
        let base = settings.publicURL
        return JSONResponse.make(.object([
            ("title", .string("GeoSpend")),
            ("description", .string("Your geotagged expenses, places and spending grids, and the shared stores, as OGC API Features.")),
            ("links", .array([
                Self.link(base + "/ogc", rel: "self", type: "application/json", title: "This document"),
                Self.link(base + "/openapi.json", rel: "service-desc", type: "application/vnd.oai.openapi+json;version=3.1", title: "The API definition"),
                Self.link(base + "/ogc/conformance", rel: "conformance", type: "application/json", title: "Conformance classes"),
                Self.link(base + "/ogc/collections", rel: "data", type: "application/json", title: "Collections"),
            ])),
        ]))
    }

    @Sendable func conformance(_ request: Request, context: ServiceContext) async throws -> Response {
        JSONResponse.make(.object([("conformsTo", .array(Self.conformance.map { .string($0) }))]))
    }

    @Sendable func collections(_ request: Request, context: ServiceContext) async throws -> Response {
        let base = settings.publicURL
        return JSONResponse.make(.object([
            ("links", .array([Self.link(base + "/ogc/collections", rel: "self", type: "application/json", title: "Collections")])),
            ("collections", .array(OGCCollection.allCases.map { Self.describe($0, base: base) })),
        ]))
    }

    @Sendable func collection(_ request: Request, context: ServiceContext) async throws -> Response {
        JSONResponse.make(Self.describe(try Self.collection(context), base: settings.publicURL))
    }

    @Sendable func items(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let collection = try Self.collection(context)
        // Larger limits are not an error (OGC 17-069r4 /req/core/fc-limit-response-1): the maximum is used.
        let limit = min(try q.int("limit", in: 1...Int.max) ?? Self.defaultLimit, Self.maxLimit)
        let offset = try q.int("offset", in: 0...Int.max) ?? 0
        let bbox = try Self.bbox(q.string("bbox"))
        let window = try Self.window(q.string("datetime"))
        var features = try await layer(collection, user: try context.user(), window: window)
        if let bbox { features = features.filter { OGCFeatures.meets($0, bbox) } }
        let page = features.dropFirst(offset).prefix(limit)
        let base = settings.publicURL + "/ogc/collections/\(collection.rawValue)/items"
        var links = [Self.link(base + Self.query(q, offset: offset, limit: limit), rel: "self", type: "application/geo+json", title: "This page")]
        if offset + page.count < features.count {
            links.append(Self.link(base + Self.query(q, offset: offset + page.count, limit: limit), rel: "next", type: "application/geo+json", title: "Next page"))
        }
        let head = JSONOutput.object([
            ("type", .string("FeatureCollection")),
            ("numberMatched", .integer(Int64(features.count))), ("numberReturned", .integer(Int64(page.count))),
            ("timeStamp", .string(MapExportRequest.now())), ("links", .array(links)),
        ]).serialized(pretty: false)
        let body = String(head.dropLast()) + ",\"features\":[\n" + page.map(\.json).joined(separator: ",\n") + "\n]}\n"
        return JSONResponse.text(body, contentType: "application/geo+json")
    }

    @Sendable func item(_ request: Request, context: ServiceContext) async throws -> Response {
        let collection = try Self.collection(context)
        let id = try context.parameters.require("feature")
        let features = try await layer(collection, user: try context.user(), window: (nil, nil))
        guard let feature = features.first(where: { $0.id == id }) else {
            throw Problem(.notFound, "no feature \"\(OutputEscaping.visible(id))\" in \(collection.rawValue)")
        }
        return JSONResponse.text(feature.json + "\n", contentType: "application/geo+json")
    }

    /// The whole collection, built once per change of the data (`OGCLayerCache`).
    private func layer(_ collection: OGCCollection, user: String, window: (from: Timestamp?, to: Timestamp?)) async throws -> [OGCFeature] {
        let store = self.store
        return try await layers.features(.init(user: user, collection: collection, from: window.from, to: window.to)) {
            try await OGCFeatures.all(collection, user: user, window: window, store: store)
        }
    }

    static func collection(_ context: ServiceContext) throws -> OGCCollection {
        let id = try context.parameters.require("collection")
        guard let c = OGCCollection(rawValue: id) else {
            throw Problem(.notFound, "no collection \"\(OutputEscaping.visible(id))\"; /ogc/collections lists them")
        }
        return c
    }

    static func describe(_ c: OGCCollection, base: String) -> JSONOutput {
        let items = base + "/ogc/collections/\(c.rawValue)/items"
        return .object([
            ("id", .string(c.rawValue)), ("title", .string(c.title)), ("description", .string(c.description)),
            ("itemType", .string("feature")), ("crs", .array([.string(crs84)])),
            ("links", .array([
                link(base + "/ogc/collections/\(c.rawValue)", rel: "self", type: "application/json", title: c.title),
                link(items, rel: "items", type: "application/geo+json", title: c.title),
            ])),
        ])
    }

    static func link(_ href: String, rel: String, type: String, title: String) -> JSONOutput {
        .object([("href", .string(href)), ("rel", .string(rel)), ("type", .string(type)), ("title", .string(title))])
    }

    /// The request's `bbox` and `datetime` with this page's `offset` and `limit`.
    static func query(_ q: QueryParameters, offset: Int, limit: Int) -> String {
        var items = ["limit=\(limit)", "offset=\(offset)"]
        for name in ["bbox", "datetime"] {
            if let v = q.string(name) { items.append("\(name)=" + QueryText.encode(v)) }
        }
        return "?" + items.joined(separator: "&")
    }

    /// `bbox=west,south,east,north` (or with heights: six numbers, the heights ignored).
    static func bbox(_ text: String?) throws -> (w: Double, s: Double, e: Double, n: Double)? {
        guard let text else { return nil }
        let v = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 4 || v.count == 6, v.allSatisfy({ $0?.isFinite == true }) else {
            throw Problem(.badRequest, "bbox: give west,south,east,north in degrees, e.g. 24.9,60.1,25.0,60.2")
        }
        let n = v.map { $0! }
        let (w, s, e, north) = n.count == 4 ? (n[0], n[1], n[2], n[3]) : (n[0], n[1], n[3], n[4])
        guard (-180...180).contains(w), (-180...180).contains(e), (-90...90).contains(s), (-90...90).contains(north), s <= north else {
            throw Problem(.badRequest, "bbox: longitudes within ±180, latitudes within ±90, south ≤ north (west > east crosses the antimeridian)")
        }
        return (w, s, e, north)
    }

    /// `datetime`: an instant or date, or an interval `a/b` with `..` (or nothing) for an open
    /// end, both ends included; as the export window (`from` inclusive, an instant's `to`
    /// exclusive, so one millisecond is added to an instant's end).
    static func window(_ text: String?) throws -> (from: Timestamp?, to: Timestamp?) {
        guard let text else { return (nil, nil) }
        func instant(_ s: Substring) throws -> Timestamp? {
            guard !s.isEmpty, s != ".." else { return nil }
            do { return try Timestamp(parsing: String(s)) } catch { throw Problem(.badRequest, "datetime: \(error)") }
        }
        func end(_ t: Timestamp?) throws -> Timestamp? {
            guard let t, !t.isDateOnly else { return t }
            return try Timestamp(parsing: Timestamp.rfc3339(epochMilliseconds: t.epochMilliseconds + 1, utcOffsetMinutes: 0))
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw Problem(.badRequest, "datetime: an instant, or an interval start/end with .. for an open end") }
        let from = try instant(parts[0])
        let to = try end(parts.count == 2 ? try instant(parts[1]) : from)
        if parts.count == 1 && from == nil { throw Problem(.badRequest, "datetime: an instant, or an interval start/end with .. for an open end") }
        if let f = from, let t = to, TimeWindow.isEmpty(from: f, to: t) {
            throw Problem(.badRequest, "datetime: the interval ends before it starts")
        }
        return (from, to)
    }
}
