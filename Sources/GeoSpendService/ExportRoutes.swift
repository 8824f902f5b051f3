import GeoSpend
import Hummingbird

/// `/api/v1/export/{layer}`: the token user's `points`, `grid`, `density` and `places` layers as
/// `geospend export LAYER --user U` writes them (GeoJSON), streamed as they are produced.
/// Parameters are the CLI's options: from, to, period, kind, category, currency, precision,
/// shape (hex or square), cell, metric, bandwidth, min-count, properties (points).
struct ExportRoutes {
    let store: any Backend
    let streams: StreamSlots

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("export/{layer}", use: export)
    }

    @Sendable func export(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try context.user()
        let layer = try context.parameters.require("layer")
        let categories = q.all("category")
        var filter = try Self.filter(q, userID: user)
        let precision = try q.int("precision", in: 0...15) ?? 6
        let minCount = try q.int("min-count", in: 1...Int.max) ?? 1
        let kind = try Self.layer(layer, q, precision: precision)
        filter.period = try await q.checkedNames(user: user, categories: categories, in: store)?.id
        var asked = MapExportRequest(filter: filter, precision: precision, minCount: minCount)
        asked.pointProperties = try Self.pointProperties(q, layer: kind)
        let exportRequest = asked
        let store = self.store
        return try await StreamedBody.response(slots: streams, contentType: "application/geo+json", owner: user) { sink in
            _ = try await MapExport.geoJSON(kind, exportRequest, store: store, to: sink)
        }
    }

    /// The selection of `from`, `to`, `kind` (default expense), `category` and `currency`, as
    /// `geospend export` makes it (the period is checked apart, with the names).
    static func filter(_ q: QueryParameters, userID: String?) throws -> ExpenseFilter {
        let (from, to) = try q.window()
        let kinds = try q.kinds()
        var filter = ExpenseFilter(userID: userID, from: from, to: to, kinds: kinds.isEmpty ? [.expense] : kinds, categories: Set(q.all("category")))
        if let currency = q.string("currency") {
            do { filter.currency = try Currency(code: currency.uppercased()) } catch { throw Problem(.badRequest, "currency: \(error)") }
        }
        return filter
    }

    /// `properties=amount,position_source`: the points layer's features with only those
    /// (`geospend export points --properties`); nil, all of them.
    static func pointProperties(_ q: QueryParameters, layer: MapLayer) throws -> Set<PointProperty>? {
        guard let text = q.string("properties") else { return nil }
        guard layer == .points else { throw Problem(.badRequest, "properties: only the points layer takes a choice of properties") }
        do { return try PointProperty.selection(text, option: "properties") } catch let e as UsageError { throw Problem(.badRequest, e.message) }
    }

    /// The layer and its own parameters, checked as `geospend export` checks them.
    static func layer(_ name: String, _ q: QueryParameters, precision: Int) throws -> MapLayer {
        func cell(_ fallback: String) throws -> Double {
            let typed = q.string("cell") ?? fallback
            return try MapExportRequest.cellMeters(try q.distance("cell") ?? Distance(parsing: fallback), typed: typed, precision: precision, options: ("cell", "precision"))
        }
        switch name {
        case "points": return .points
        case "places": return .places
        case "grid":
            let shape = try q.string("shape").map { text in
                guard let s = MetricGrid.Shape(rawValue: text), s != .h3 else {
                    throw Problem(.badRequest, "shape: \"\(OutputEscaping.visible(text))\" is not hex or square")
                }
                return s
            } ?? .hex
            let metric = try q.string("metric").map { text in
                guard let m = GridMetric(rawValue: text) else { throw Problem(.badRequest, "metric: \"\(OutputEscaping.visible(text))\" is not total, count or average") }
                return m
            } ?? .total
            return .grid(shape, cellMeters: try cell(MapLayer.defaultGridCell), metric: metric)
        case "density":
            let size = try cell(MapLayer.defaultDensityCell)
            let h = (try q.distance("bandwidth") ?? Distance(parsing: MapLayer.defaultDensityBandwidth)).meters
            do {
                return try MapLayer.density(bandwidthMeters: h, cellMeters: size, options: ("bandwidth", "cell"))
            } catch let e as UsageError { throw Problem(.badRequest, e.message) }
        default:
            throw Problem(.notFound, "no layer \"\(OutputEscaping.visible(name))\"; the layers are points, grid, density and places")
        }
    }
}
