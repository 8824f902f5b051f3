import Foundation

/// The vector-tile layers `geospend export tiles` writes.
public enum TileLayerKind: String, Sendable, CaseIterable {
    /// Aggregated square cells, suppressed at the finest zoom and nested across zooms (`HeatPyramid`).
    case heat
    /// One Point per expense, as `export points` (raw positions: the same rules).
    case points
    /// One Point per place, as `export places`.
    case places
}

/// What to tile: a layer, the zooms, and the export request (filter, suppression, privacy).
public struct VectorTileRequest: Sendable {
    public var layer: TileLayerKind
    public var minZoom: Int
    public var maxZoom: Int
    public var map: MapExportRequest

    /// Zooms 0–16: the heat layer's finest cells are then quadtree tiles of zoom 22 (~10 m).
    public static let zooms = 0...16

    public init(layer: TileLayerKind, minZoom: Int = 0, maxZoom: Int = 14, map: MapExportRequest) {
        self.layer = layer
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.map = map
    }
}

/// Mapbox Vector Tiles 2.1 for one layer over a range of zooms, computed from one read of the
/// store (no rollups: O(expenses) per export), then encoded tile by tile.
///
/// ```swift
/// let set = try await VectorTileSet.prepare(VectorTileRequest(layer: .heat, map: request), store: store)
/// try set.forEachTile { id, mvt in … }   // uncompressed MVT bytes; gzip with `Gzip.compress` for MBTiles
/// ```
/// Immutable once prepared, hence `@unchecked Sendable` (its parts are plain values).
public struct VectorTileSet: @unchecked Sendable {
    /// Tiles above this many bytes (uncompressed) are refused, never written (the size
    /// tippecanoe and Mapbox keep vector tiles under).
    public static let maxTileBytes = 500_000

    private enum Content {
        case heat(HeatPyramid)
        case features(PointFeatures)
    }

    public let request: VectorTileRequest
    private let content: Content
    /// What the layer publishes (at the finest zoom for the heat layer), for the closing line.
    public let summary: MapExportSummary
    /// Tiles holding features, per zoom from `minZoom`.
    public let tilesPerZoom: [Int]
    public var tileCount: Int { tilesPerZoom.reduce(0, +) }

    /// Reads the store once (one read scope).
    public static func prepare(_ request: VectorTileRequest, store: some ExpenseStore, progress: ExportProgress? = nil) async throws -> VectorTileSet {
        try await store.read { try prepare(request, reader: $0, progress: progress) }
    }

    public static func prepare(_ request: VectorTileRequest, reader: some ExpenseReader, progress: ExportProgress? = nil) throws -> VectorTileSet {
        precondition(VectorTileRequest.zooms.contains(request.minZoom) && request.minZoom <= request.maxZoom
            && VectorTileRequest.zooms.contains(request.maxZoom), "zooms are checked by the caller")
        switch request.layer {
        case .heat:
            let heat = try HeatPyramid(request.map, minZoom: request.minZoom, maxZoom: request.maxZoom, reader: reader, progress: progress)
            let finest = heat.zooms.last ?? []
            let summary = MapExportSummary(
                features: finest.count, suppressed: heat.suppression?.suppressed ?? 0, currency: heat.currency,
                totalMinor: finest.reduce(0) { $0 + $1.total }, leftOutCurrencies: heat.choice.leftOut)
            return VectorTileSet(request: request, content: .heat(heat), summary: summary)
        case .points:
            let (features, summary) = try PointFeatures.points(request.map, reader: reader, progress: progress)
            return VectorTileSet(request: request, content: .features(features), summary: summary)
        case .places:
            let (features, summary) = try PointFeatures.places(request.map, reader: reader)
            return VectorTileSet(request: request, content: .features(features), summary: summary)
        }
    }

    private init(request: VectorTileRequest, content: Content, summary: MapExportSummary) {
        self.request = request
        self.content = content
        self.summary = summary
        tilesPerZoom = (request.minZoom...request.maxZoom).map { [content] z in Self.groups(content, zoom: z).count }
    }

    /// The items of each tile at `zoom`, tiles in (x, y) order.
    private static func groups(_ content: Content, zoom: Int) -> [(TileID, [Int])] {
        switch content {
        case .features(let f): return f.groups(zoom: zoom)
        case .heat(let h):
            var byTile: [TileID: [Int]] = [:]
            for (n, c) in h.zooms[zoom - h.minZoom].enumerated() { byTile[HeatPyramid.tile(of: c, zoom: zoom), default: []].append(n) }
            return byTile.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    private func encode(_ id: TileID, items: [Int]) throws -> [UInt8] {
        let layer: TileLayerEncoder
        switch content {
        case .heat(let h): layer = h.encode(zoom: id.z, tile: id, cells: items)
        case .features(let f): layer = f.encode(tile: id, items: items)
        }
        let bytes = TileLayerEncoder.tile([layer])
        guard bytes.count <= Self.maxTileBytes else {
            let advice = request.layer == .heat
                ? "lower --max-zoom"
                : "raise --min-zoom above \(id.z)\(id.z == request.maxZoom ? " and --max-zoom with it" : "") (tiles of higher zooms hold fewer points), narrow the selection (--from/--to, --category), or use --layer heat, which aggregates"
            throw ExportError.tooMuchWork("""
                vector tile \(id) of the \(request.layer.rawValue) layer would be \(bytes.count) bytes (\(layer.featureCount) features), \
                more than the \(Self.maxTileBytes) a tile may hold (map renderers slow down or refuse larger tiles); nothing was written. \
                To fix: \(advice)
                """)
        }
        return bytes
    }

    /// Every tile holding features, zoom by zoom, as uncompressed MVT bytes.
    /// - Throws: `ExportError.tooMuchWork` for a tile over `maxTileBytes`.
    public func forEachTile(_ body: (TileID, [UInt8]) throws -> Void) throws {
        for z in request.minZoom...request.maxZoom {
            for (id, items) in Self.groups(content, zoom: z) { try body(id, try encode(id, items: items)) }
        }
    }

    /// One tile's uncompressed MVT bytes, nil when it holds nothing (or lies outside the zooms).
    /// For a tile server: prepare the set once per request with the same zooms as every other
    /// request (the heat layer's cells are suppressed at `maxZoom`; tiles cut from sets of
    /// different `maxZoom`s would not nest, docs/TILES.md).
    public func tile(_ id: TileID) throws -> [UInt8]? {
        guard id.isValid, (request.minZoom...request.maxZoom).contains(id.z) else { return nil }
        guard let items = Self.groups(content, zoom: id.z).first(where: { $0.0 == id })?.1 else { return nil }
        return try encode(id, items: items)
    }

    /// One tile's uncompressed MVT bytes straight from a store, for a tile server's
    /// `/tiles/{layer}/{z}/{x}/{y}.mvt`: one read scope, the whole layer prepared (O(expenses)
    /// per call until rollups exist), one tile encoded. `request` must be the same for every
    /// tile of a map (its `maxZoom` above all).
    public static func tile(_ id: TileID, of request: VectorTileRequest, store: some ExpenseStore) async throws -> [UInt8]? {
        try await prepare(request, store: store).tile(id)
    }

    /// The published extent, west, south, east, north (the whole square when nothing is published).
    public var bounds: (west: Double, south: Double, east: Double, north: Double) {
        switch content {
        case .features(let f) where f.count > 0:
            return (f.longitudes.min()!, max(-WebMercator.maxLatitude, f.latitudes.min()!),
                    f.longitudes.max()!, min(WebMercator.maxLatitude, f.latitudes.max()!))
        case .heat(let h) where !(h.zooms.last ?? []).isEmpty:
            let cells = h.zooms.last!, level = h.maxZoom + HeatPyramid.cellLevels
            let nw = WebMercator.corner(x: cells.map(\.x).min()!, y: cells.map(\.y).min()!, level: level)
            let se = WebMercator.corner(x: cells.map(\.x).max()! + 1, y: cells.map(\.y).max()! + 1, level: level)
            return (nw.longitude, se.latitude, se.longitude, nw.latitude)
        default:
            return (-180, -WebMercator.maxLatitude, 180, WebMercator.maxLatitude)
        }
    }

    /// The MBTiles 1.3 `metadata` rows (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md):
    /// name, format, bounds, center, minzoom, maxzoom, and the `json` row's `vector_layers`.
    public func metadata(name: String) -> [(String, String)] {
        let b = bounds
        func d(_ x: Double) -> String { formatDecimal(x, digits: 6) }
        let fields: [String: String]
        let description: String
        switch content {
        case .heat:
            fields = HeatPyramid.fields
            description = "GeoSpend heat: square cells (64 per tile side) with count, exact total_minor and average; "
                + "cells of fewer than \(request.map.minCount) expenses or \(request.map.minUsers) users are hidden at zoom "
                + "\(request.maxZoom) and left out of every coarser cell (\(summary.suppressed) hidden)"
        case .features(let f):
            fields = f.fields
            description = request.layer == .points ? "GeoSpend points: one per expense" : "GeoSpend places: one per place"
        }
        let layer: [String: Any] = [
            "id": request.layer.rawValue, "description": description, "minzoom": request.minZoom, "maxzoom": request.maxZoom,
            "fields": fields,
        ]
        let json = (try? JSONSerialization.data(withJSONObject: ["vector_layers": [layer]], options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return [
            ("name", name), ("format", "pbf"), ("type", "overlay"), ("version", "1"), ("description", description),
            ("bounds", "\(d(b.west)),\(d(b.south)),\(d(b.east)),\(d(b.north))"),
            ("center", "\(d((b.west + b.east) / 2)),\(d((b.south + b.north) / 2)),\(request.minZoom)"),
            ("minzoom", String(request.minZoom)), ("maxzoom", String(request.maxZoom)), ("json", json),
        ]
    }
}
