import Foundation

/// What to export and how: the expense filter (user or all users, window, kinds, categories,
/// currency), coordinate precision, suppression thresholds and the grid origin.
public struct MapExportRequest: Sendable {
    /// `userID` nil means every user (cross-user layers, with `minUsers` suppression).
    public var filter: ExpenseFilter
    /// Decimals of exported coordinates (6 ≈ 0.11 m).
    public var precision: Int
    /// Cells and places with fewer expenses are left out.
    public var minCount: Int
    /// Cells and places with fewer distinct users are left out.
    public var minUsers: Int
    /// The projection origin of grids and density surfaces; by default the data's extent centre
    /// rounded to whole degrees (`MetricGrid.origin`).
    public var origin: Coordinate?
    /// The generation time written into the layer's provenance, RFC 3339 UTC.
    public var generatedAt: String
    /// Masks, rounding and noise (see `ExportPrivacy`).
    public var privacy: ExportPrivacy
    /// When set, told of each feature written (the OGC API's pages); the sink must then collect
    /// in memory.
    public var featureIndex: FeatureIndex?
    /// The points layer's properties when only some are wanted (`PointProperty`); nil writes all.
    public var pointProperties: Set<PointProperty>?

    public init(
        filter: ExpenseFilter, precision: Int = 6, minCount: Int = 1, minUsers: Int = 1, origin: Coordinate? = nil,
        generatedAt: String = MapExportRequest.now(), privacy: ExportPrivacy = ExportPrivacy()
    ) {
        self.filter = filter
        self.precision = precision
        self.minCount = minCount
        self.minUsers = minUsers
        self.origin = origin
        self.generatedAt = generatedAt
        self.privacy = privacy
    }

    /// A grid or density cell size, in metres: large enough to be told apart at `precision`
    /// decimals, at most 1000 km. `typed` and `options` name them in the error (`--cell 1m`).
    public static func cellMeters(_ size: Distance, typed: String, precision: Int, options: (cell: String, precision: String)) throws -> Double {
        let resolution = 111_320 * pow(10, -Double(precision))
        guard size.meters >= 100 * resolution else {
            throw UsageError("\(options.cell) \(typed) is too small for \(options.precision) \(precision): use at least \(formatDecimal(100 * resolution, digits: 1)) m or more decimals")
        }
        guard size.meters <= 1_000_000 else { throw UsageError("\(options.cell) must be at most 1000km") }
        return size.meters
    }

    /// Now, or `$SOURCE_DATE_EPOCH` when set (reproducible outputs, as reproducible builds do it).
    public static func now() -> String {
        let seconds = Int64(ReproducibleClock.now().timeIntervalSince1970.rounded(.down))
        return Timestamp.rfc3339(epochMilliseconds: seconds * 1000, utcOffsetMinutes: 0)
    }
}

/// The layers `geospend export` writes (docs/DOMAIN.md § Map layers).
public enum MapLayer: Sendable, Hashable {
    /// One weighted Point per geotagged expense.
    case points
    /// Polygon cells of a metric grid with count, total, average and a 0–1 weight by `metric`.
    case grid(MetricGrid.Shape, cellMeters: Double, metric: GridMetric)
    /// A quartic-kernel density surface of amounts, as square Polygon cells.
    case density(bandwidthMeters: Double, cellMeters: Double)
    /// One Point per place (store or cluster) with its insight figures and simplestyle markers.
    case places
}

extension MapLayer {
    /// The cell of a hexagon or square grid when none is given: `geospend export grid`,
    /// `/api/v1/export/grid` and the OGC `hex` collection.
    public static let defaultGridCell = "250m"
    /// The cell and kernel radius of a density surface when none are given.
    public static let defaultDensityCell = "50m"
    public static let defaultDensityBandwidth = "300m"
    /// A kernel wider than this many cells is refused: each expense would touch (2·200+2)² cells.
    public static let maximumDensityBandwidthCells = 200.0

    /// A density layer whose kernel covers at least one cell and at most
    /// `maximumDensityBandwidthCells`; `options` name the two sizes in the refusal
    /// (`--bandwidth`/`--cell` on the command line, `bandwidth`/`cell` over HTTP).
    public static func density(bandwidthMeters h: Double, cellMeters size: Double, options: (bandwidth: String, cell: String)) throws -> MapLayer {
        guard h >= size else { throw UsageError("\(options.bandwidth) must be at least the \(options.cell) size") }
        guard h / size <= maximumDensityBandwidthCells else {
            throw UsageError("\(options.bandwidth) is more than \(Int(maximumDensityBandwidthCells)) cells wide; use a larger \(options.cell)")
        }
        return .density(bandwidthMeters: h, cellMeters: size)
    }
}

/// What a grid cell's `weight` follows.
public enum GridMetric: String, Sendable, CaseIterable { case total, count, average }

/// What an export wrote, for the command's closing line.
public struct MapExportSummary: Sendable, Equatable {
    public let features: Int
    /// Cells or places left out by `minCount`/`minUsers`, complementary suppression included.
    public let suppressed: Int
    public let currency: Currency?
    /// The layer's total as its provenance gives it (nil where that is withheld: a density
    /// surface with suppressed cells).
    public let totalMinor: Int64?
    /// Other currencies in the selection, with their expense counts ("SEK 12"), not exported.
    public let leftOutCurrencies: [String]

    public init(features: Int, suppressed: Int, currency: Currency?, totalMinor: Int64?, leftOutCurrencies: [String]) {
        self.features = features
        self.suppressed = suppressed
        self.currency = currency
        self.totalMinor = totalMinor
        self.leftOutCurrencies = leftOutCurrencies
    }
}

/// Reports progress: items done and the total expected (0 when not known in advance).
public typealias ExportProgress = @Sendable (_ done: Int, _ total: Int) -> Void

/// Writes map layers as streams: points go out as they are read; grids, density surfaces and
/// places are aggregated in memory proportional to their cells or places, then written.
///
/// ```swift
/// let sink = ByteSink(descriptor: 1)
/// let request = MapExportRequest(filter: ExpenseFilter(userID: "user1"))
/// try await MapExport.geoJSON(.grid(.hex, cellMeters: 250, metric: .total), request, store: store, to: sink)
/// try sink.flush()
/// ```
public enum MapExport {
    /// Writes one layer as an RFC 7946 FeatureCollection with a `geospend` provenance member.
    /// A layer holds one currency (totals and weights never add across currencies): the
    /// filter's, else the selection's most common one; the others are named in the summary and
    /// the provenance.
    /// - Throws: store errors; `ExportError.writeFailed`.
    @discardableResult
    public static func geoJSON(
        _ layer: MapLayer, _ request: MapExportRequest, store: some ExpenseStore, to sink: ByteSink,
        progress: ExportProgress? = nil
    ) async throws -> MapExportSummary {
        try await store.read { try geoJSON(layer, request, reader: $0, to: sink, progress: progress) }
    }

    /// `geoJSON` inside a read scope.
    @discardableResult
    public static func geoJSON(
        _ layer: MapLayer, _ request: MapExportRequest, reader: some ExpenseReader, to sink: ByteSink,
        progress: ExportProgress? = nil
    ) throws -> MapExportSummary {
        switch layer {
        case .points:
            return try PointsLayer.write(request, reader: reader, to: sink, progress: progress)
        case .grid(let shape, let cell, let metric):
            return try GridLayer.write(shape: shape, cellMeters: cell, metric: metric, request, reader: reader, to: sink, progress: progress)
        case .density(let bandwidth, let cell):
            return try DensityLayer.write(bandwidthMeters: bandwidth, cellMeters: cell, request, reader: reader, to: sink, progress: progress)
        case .places:
            return try PlacesLayer.write(request, reader: reader, to: sink)
        }
    }

    /// `points` as CSV: `id,latitude,longitude,amount,currency,kind,occurred_at,category,merchant,store_id,weight`,
    /// and for one user's layer `position_source`.
    @discardableResult
    public static func pointsCSV(
        _ request: MapExportRequest, store: some ExpenseStore, to sink: ByteSink, progress: ExportProgress? = nil
    ) async throws -> MapExportSummary {
        try await store.read { try PointsLayer.writeCSV(request, reader: $0, to: sink, progress: progress) }
    }

    /// Leaflet.heat's `[[lat, lon, intensity], …]` with intensity = amount / largest amount.
    @discardableResult
    public static func leafletHeat(
        _ request: MapExportRequest, store: some ExpenseStore, to sink: ByteSink, progress: ExportProgress? = nil
    ) async throws -> MapExportSummary {
        try await store.read { try PointsLayer.writeLeafletHeat(request, reader: $0, to: sink, progress: progress) }
    }

    /// The extent of the layer's currency (the most common; extents come most common first)
    /// and the currencies left out.
    static func extent(_ filter: ExpenseFilter, reader: some ExpenseReader) throws -> (GeotaggedExtent?, LayerCurrency) {
        let extents = try reader.geotaggedExtent(filter)
        return (extents.first, LayerCurrency(counts: extents.map { ($0.currency, $0.count) }))
    }
}
