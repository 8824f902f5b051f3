/// The points and places layers of vector tiles: one Point feature per published position (the
/// positions and properties of `export points` and `export places`), drawn at every zoom in the
/// one tile holding it. Nothing crosses a tile edge, so nothing is clipped or drawn twice:
/// a point on an edge goes to the tile to its right or below (`WebMercator.cell`).
struct PointFeatures {
    let name: String
    private(set) var latitudes: [Double] = []
    private(set) var longitudes: [Double] = []
    private(set) var properties: [[(String, TileValue)]] = []
    /// Property names and their MBTiles `json` types, as met.
    private(set) var fields: [String: String] = [:]

    init(name: String) { self.name = name }

    var count: Int { latitudes.count }

    mutating func append(_ c: Coordinate, _ props: [(String, TileValue?)]) {
        latitudes.append(c.latitude)
        longitudes.append(c.longitude)
        let present = props.compactMap { k, v in v.map { (k, $0) } }
        for (k, v) in present where fields[k] == nil { fields[k] = v.fieldType }
        properties.append(present)
    }

    /// The points of each tile at `zoom`, tiles in (x, y) order, points in input order.
    func groups(zoom: Int) -> [(TileID, [Int])] {
        var byTile: [TileID: [Int]] = [:]
        for n in latitudes.indices {
            let c = WebMercator.cell(latitude: latitudes[n], longitude: longitudes[n], level: zoom)
            byTile[TileID(z: zoom, x: c.x, y: c.y), default: []].append(n)
        }
        return byTile.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    func encode(tile: TileID, items: [Int]) -> TileLayerEncoder {
        var layer = TileLayerEncoder(name: name)
        for n in items {
            let p = WebMercator.tileUnits(latitude: latitudes[n], longitude: longitudes[n], in: tile)
            layer.add(type: .point, geometry: TileGeometry.points([p]), properties: properties[n], id: UInt64(n + 1))
        }
        return layer
    }

    /// `export points`' selection (currency, masks, noise, rounding, `--allow-raw-positions` is
    /// the CLI's), with its properties.
    static func points(_ request: MapExportRequest, reader: some ExpenseReader, progress: ExportProgress?) throws -> (PointFeatures, MapExportSummary) {
        let selection = try PointsLayer.Selection(request, reader: reader)
        let sources = try PointsLayer.Selection.positionSources(request, reader: reader)
        var features = PointFeatures(name: "points")
        let n = try selection.forEach(reader: reader, progress: progress) { p, c in
            let major = Double(p.currency.minorUnitsPerMajor)
            features.append(c, [
                ("id", .string(p.id)),
                ("amount", .double(Double(p.amountMinor) / major)),
                ("amount_minor", .sint(p.amountMinor)),
                ("currency", .string(p.currency.code)),
                ("kind", .string(p.kind.rawValue)),
                ("occurred_at", .string(Timestamp.rfc3339(epochMilliseconds: p.occurredMilliseconds, utcOffsetMinutes: p.utcOffsetMinutes))),
                ("category", p.category.map(TileValue.string)),
                ("merchant", p.merchant.map(TileValue.string)),
                ("store_id", p.storeID.map(TileValue.string)),
                ("position_source", sources.map { .string(($0[p.id] ?? .device).rawValue) }),
                ("weight", .double(selection.weight(p))),
            ])
        }
        return (features, selection.summary(features: n))
    }

    /// `export places`' rows: a user's insight places, or every store across users with its
    /// suppression. Figures that are one person's (min, max, visits) are left out, as there.
    static func places(_ request: MapExportRequest, reader: some ExpenseReader) throws -> (PointFeatures, MapExportSummary) {
        let published = try PlacesLayer.published(request, reader: reader)
        var features = PointFeatures(name: "places")
        let total = published.rows.reduce(Int64(0)) { $0 + $1.total }
        if let currency = published.choice.currency {
            let major = Double(currency.minorUnitsPerMajor)
            let largest = Double(max(published.rows.first?.total ?? 1, 1))
            for r in published.rows {
                features.append(r.coordinate, [
                    ("place_id", .string(r.id)),
                    ("kind", .string(r.kind.rawValue)),
                    ("name", r.name.map(TileValue.string)),
                    ("count", .uint(UInt64(r.count))),
                    ("users", r.users.map { .uint(UInt64($0)) }),
                    ("total", .double(Double(r.total) / major)),
                    ("total_minor", .sint(r.total)),
                    ("average", .double(Double(r.average) / major)),
                    ("currency", .string(currency.code)),
                    ("share", .double(r.share)),
                    ("weight", .double(Double(r.total) / largest)),
                ])
            }
        }
        let summary = MapExportSummary(
            features: published.rows.count, suppressed: published.suppression.suppressed, currency: published.choice.currency,
            totalMinor: total, leftOutCurrencies: published.choice.leftOut)
        return (features, summary)
    }
}
