import Foundation
import GeoSpend
import Hummingbird

/// `/tiles/{layer}/{z}/{x}/{y}.mvt` and `/tiles/{layer}.json` (TileJSON 3.0.0): the vector tiles
/// `geospend export tiles --layer heat|points|places` writes into MBTiles, one at a time, for the
/// token's user (`all-users=true`: every user, admin tokens only, heat and places only, with the
/// CLI's suppression: `min-users` the service's floor, 3 by default, or more). A tile's bytes are the MBTiles file's tile,
/// uncompressed (`application/vnd.mapbox-vector-tile`); a tile holding nothing is 204 No Content,
/// as tile servers answer (MapLibre, QGIS and GDAL draw nothing there).
///
/// The parameters are the CLI's options and must be the same for every tile of a map (the heat
/// layer's cells are suppressed at `max-zoom`; docs/TILES.md): the TileJSON's `tiles` template
/// carries the query it was asked with, so a client that starts from it asks every tile alike.
/// Making a tile reads the whole selection (O(expenses) per tile); `cache` (TileCache.swift)
/// keeps the answers until the data changes.
struct TileRoutes {
    let store: any Backend
    let cache: TileCache?
    let settings: ServiceSettings

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("{layer}.json", use: tileJSON)
        group.get("{layer}/{z}/{x}/{y}.mvt", use: tile)
    }

    static let contentType = "application/vnd.mapbox-vector-tile"

    @Sendable func tile(_ request: Request, context: ServiceContext) async throws -> Response {
        let tileRequest = try await Self.request(request, context: context, store: store, settings: settings)
        func number(_ name: String) throws -> Int {
            let text = try context.parameters.require(name)
            guard let n = Int(text) else { throw Problem(.notFound, "\(name): \"\(OutputEscaping.visible(text))\" is not a tile number") }
            return n
        }
        let id = TileID(z: try number("z"), x: try number("x"), y: try number("y"))
        guard id.isValid else { throw Problem(.notFound, "no tile \(id.z)/\(id.x)/\(id.y): at zoom z, x and y go from 0 to 2^z − 1") }
        guard (tileRequest.minZoom...tileRequest.maxZoom).contains(id.z) else {
            throw Problem(.notFound, "this tile set has zooms \(tileRequest.minZoom)–\(tileRequest.maxZoom) (min-zoom, max-zoom); clients draw deeper zooms from max-zoom's tiles")
        }
        let make = { try await self.make(id, of: tileRequest) }
        let key = TileCache.Key(owner: tileRequest.map.filter.userID, layer: tileRequest.layer, tile: id, query: request.uri.query ?? "")
        let bytes = if let cache { try await cache.tile(key, make: make) } else { try await make() }
        guard let bytes else {
            return Response(status: .noContent)
        }
        return Response(
            status: .ok, headers: [.contentType: Self.contentType],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// One tile, made from the whole layer.
    private func make(_ id: TileID, of tileRequest: VectorTileRequest) async throws -> [UInt8]? {
        try await VectorTileSet.tile(id, of: tileRequest, store: store)
    }

    /// TileJSON 3.0.0 (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0): the tiles'
    /// URL template on this host, zooms, bounds, centre and `vector_layers` (the MBTiles file's).
    @Sendable func tileJSON(_ request: Request, context: ServiceContext) async throws -> Response {
        let tileRequest = try await Self.request(request, context: context, store: store, settings: settings)
        let set = try await VectorTileSet.prepare(tileRequest, store: store)
        let metadata = Dictionary(set.metadata(name: "GeoSpend \(tileRequest.layer.rawValue)"), uniquingKeysWith: { a, _ in a })
        // The MBTiles file's bounds and centre (6 decimals), so the TileJSON and the file agree.
        let numbers = { (key: String) in (metadata[key] ?? "").split(separator: ",").compactMap { Double($0) } }
        let layers = (metadata["json"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])?["vector_layers"] ?? []
        // The asked query again, rebuilt from its parsed values (nothing raw from the request).
        let query = QueryText.build(request.uri.queryParameters.map { (String($0.key), String($0.value)) })
        let document: [String: Any] = [
            "tilejson": "3.0.0",
            "name": metadata["name"] ?? "",
            "description": metadata["description"] ?? "",
            "tiles": ["\(settings.publicURL)/tiles/\(tileRequest.layer.rawValue)/{z}/{x}/{y}.mvt\(query)"],
            "minzoom": tileRequest.minZoom,
            "maxzoom": tileRequest.maxZoom,
            "bounds": numbers("bounds"),
            "center": numbers("center"),
            "vector_layers": layers,
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return JSONResponse.text(String(decoding: data, as: UTF8.self) + "\n", contentType: "application/json")
    }

    /// The tile set a request asks for, checked as `geospend export tiles` checks its options.
    static func request(_ request: Request, context: ServiceContext, store: any Backend, settings: ServiceSettings) async throws -> VectorTileRequest {
        let q = QueryParameters(request)
        let name = try context.parameters.require("layer")
        guard let layer = TileLayerKind(rawValue: name) else {
            throw Problem(.notFound, "no tile layer \"\(OutputEscaping.visible(name))\"; the tile layers are heat, points and places")
        }
        let user = try context.user()
        let allUsers = try q.flag("all-users")
        if allUsers {
            guard let token = context.token, token.scope.allows(.admin) else {
                throw Problem(.forbidden, "all-users tiles add up every user's expenses: they need an admin token (`geospend tokens create --scope admin`)")
            }
            guard layer != .points else {
                throw Problem(.badRequest, "points tiles of all users would give every user's raw positions, one per expense; use the heat layer, which aggregates and suppresses cells of fewer than min-users users")
            }
        }
        let maxZoom = try q.int("max-zoom", in: VectorTileRequest.zooms) ?? 14
        let minZoom = try q.int("min-zoom", in: VectorTileRequest.zooms.lowerBound...maxZoom) ?? 0
        let minCount = try q.int("min-count", in: 1...Int.max)
        let minUsers = try q.int("min-users", in: 1...Int.max)
        if layer == .points && (minCount != nil || minUsers != nil) {
            throw Problem(.badRequest, "min-count and min-users apply to heat and places tiles, not points")
        }
        let categories = q.all("category")
        var filter = try ExportRoutes.filter(q, userID: allUsers ? nil : user)
        if allUsers {
            guard q.string("period") == nil else { throw Problem(.badRequest, "period is one user's: it does not go with all-users") }
            try await NameChecks.user(user, in: store, database: QueryRoutes.database)
            try await NameChecks.categories(categories, userID: nil, in: store)
        } else {
            filter.period = try await q.checkedNames(user: user, categories: categories, in: store)?.id
        }
        let map = MapExportRequest(filter: filter, minCount: minCount ?? 1, minUsers: allUsers ? try settings.minUsers(minUsers) : 1)
        return VectorTileRequest(layer: layer, minZoom: minZoom, maxZoom: maxZoom, map: map)
    }
}
