import Foundation
import GeoSpend

/// The features of the OGC API collections, each kept as the exact JSON text the export layer
/// wrote with the box it covers (`FeatureIndex`), so a page is those texts in order.
/// `expenses`, `places`, `hex` and `density` are the token user's export layers (one currency:
/// the most common, as `geospend export` picks it); `stores` is the shared store registry.
enum OGCCollection: String, CaseIterable {
    case expenses, places, hex, density, stores

    var title: String {
        switch self {
        case .expenses: return "My expenses"
        case .places: return "My places"
        case .hex: return "My spending on a hexagon grid (250 m)"
        case .density: return "My spending density (300 m kernel on 50 m cells; coarser for spread-out spending)"
        case .stores: return "Stores"
        }
    }

    var description: String {
        switch self {
        case .expenses: return "Your geotagged expenses in the most common currency (geospend export points)."
        case .places: return "Stores and clusters where you spent, with totals (geospend export places)."
        case .hex: return "Totals per 250 m hexagon (geospend export grid)."
        case .density: return "Kernel density of amounts (geospend export density --bandwidth 300m --cell 50m); for spending spread over regions the cells double until the layer holds at most 100,000."
        case .stores: return "Every store in the registry, shared by all users."
        }
    }

    var hasTime: Bool { self == .expenses }
}

/// One feature: its JSON text, id and extent (west, south, east, north).
struct OGCFeature: Sendable {
    let id: String?
    let json: String
    let box: (w: Double, s: Double, e: Double, n: Double)
}

enum OGCFeatures {
    /// The most cells of the `density` collection: about 35 MB of features kept per layer, built in
    /// seconds (132k cells took 22.6 s in a debug build on a loaded machine, near the 30 s limit).
    static let densityCells = 100_000

    /// The collection's features for `user`, in the layer's order, within `window` (ignored by
    /// stores, which have no time).
    static func all(_ collection: OGCCollection, user: String, window: (from: Timestamp?, to: Timestamp?), store: any Backend) async throws -> [OGCFeature] {
        let layer: MapLayer
        switch collection {
        case .stores: return try await stores(store)
        case .expenses: layer = .points
        case .places: layer = .places
        case .hex: layer = .grid(.hex, cellMeters: try Distance(parsing: MapLayer.defaultGridCell).meters, metric: .total)
        case .density:
            let filter = ExpenseFilter(userID: user, from: window.from, to: window.to, kinds: [.expense])
            let extents = try await store.read { try $0.geotaggedExtent(filter) }
            let scale = DensityScale.fitting(
                extents, bandwidthMeters: try Distance(parsing: MapLayer.defaultDensityBandwidth).meters,
                cellMeters: try Distance(parsing: MapLayer.defaultDensityCell).meters, maximumCells: densityCells)
            layer = .density(bandwidthMeters: scale.bandwidthMeters, cellMeters: scale.cellMeters)
        }
        var request = MapExportRequest(filter: ExpenseFilter(userID: user, from: window.from, to: window.to, kinds: [.expense]))
        let index = FeatureIndex(), sink = ByteSink()
        request.featureIndex = index
        _ = try await MapExport.geoJSON(layer, request, store: store, to: sink)
        try sink.flush()
        return index.features(in: sink.bytes).map { f in
            OGCFeature(id: f.id, json: f.json, box: (f.box.west, f.box.south, f.box.east, f.box.north))
        }
    }

    private static func stores(_ store: any Backend) async throws -> [OGCFeature] {
        try await store.read { try $0.allStores(kind: nil) }.map { s in
            let json = JSONOutput.object([
                ("type", .string("Feature")), ("id", .string(s.id)),
                ("geometry", .object([("type", .string("Point")), ("coordinates", .array([
                    .number(s.coordinate.longitude, decimals: 7), .number(s.coordinate.latitude, decimals: 7),
                ]))])),
                ("properties", .object([
                    ("name", .text(s.name)), ("kind", .text(s.kind)), ("brand", .text(s.brand)), ("street", .text(s.street)),
                    ("postcode", .text(s.postcode)), ("city", .text(s.city)), ("country", .text(s.country)),
                ])),
            ]).serialized(pretty: false)
            let (lon, lat) = (s.coordinate.longitude, s.coordinate.latitude)
            return OGCFeature(id: s.id, json: json, box: (lon, lat, lon, lat))
        }
    }

    /// Whether the feature's box meets `bbox` (west, south, east, north); west > east is a box
    /// across the antimeridian: [west, 180] and [-180, east].
    static func meets(_ f: OGCFeature, _ bbox: (w: Double, s: Double, e: Double, n: Double)) -> Bool {
        guard f.box.s <= bbox.n && f.box.n >= bbox.s else { return false }
        if bbox.w <= bbox.e { return f.box.w <= bbox.e && f.box.e >= bbox.w }
        return f.box.e >= bbox.w || f.box.w <= bbox.e
    }
}
