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

    /// Now, or `$SOURCE_DATE_EPOCH` when set (reproducible outputs, as reproducible builds do it).
    public static func now() -> String {
        let env = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap { Int64($0) }
        let seconds = env ?? Int64(Date().timeIntervalSince1970)
        return Timestamp.rfc3339(epochMilliseconds: seconds * 1000, utcOffsetMinutes: 0)
    }
}

/// The layers `geospend export` writes (DESIGN.md §7).
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

/// What a grid cell's `weight` follows.
public enum GridMetric: String, Sendable, CaseIterable { case total, count, average }

public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    case writeFailed(String)
    /// The request would take more work or memory than one export is allowed (`DensityCost`).
    case tooMuchWork(String)

    public var description: String {
        switch self {
        case .writeFailed(let reason): "cannot write the export: \(reason)"
        case .tooMuchWork(let reason): "refusing the export: \(reason)"
        }
    }
}

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

    /// `points` as CSV: `id,latitude,longitude,amount,currency,kind,occurred_at,category,merchant,store_id,weight`.
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

/// The one currency of a layer and the others of the selection, left out.
struct LayerCurrency {
    let currency: Currency?
    let leftOut: [String]

    /// `counts` per currency; the most expenses wins, ties by code.
    init(counts: [(Currency, Int)]) {
        let sorted = counts.sorted { ($1.1, $0.0.code) < ($0.1, $1.0.code) }
        currency = sorted.first?.0
        leftOut = sorted.dropFirst().map { "\($0.0.code) \($0.1)" }
    }

    /// None of the selection's expenses is in the currency asked for: no layer currency, and
    /// `others`, the selection's currencies with their counts ("EUR 40"), all left out.
    init(noneOf others: [String]) {
        currency = nil
        leftOut = others
    }

    /// With `minUsers` > 1 (cross-user layers), a currency fewer distinct users paid in is as if
    /// absent: neither chosen nor listed as left out, so the layer does not tell that somebody
    /// paid in SEK, nor how often — a label, like a cell, is published only from enough users.
    /// - Parameter counts: expenses and distinct users (counted up to `minUsers`) per currency.
    init(counts: [(currency: Currency, expenses: Int, users: Int)], minUsers: Int) {
        self.init(counts: counts.filter { minUsers <= 1 || $0.users >= minUsers }.map { ($0.currency, $0.expenses) })
    }
}


extension Timestamp {
    /// RFC 3339 text of an instant in a recorded offset (`Z` for UTC), milliseconds when not
    /// whole seconds. A nil offset (a bare date, whose instant is its midnight read as UTC) gives
    /// the date alone.
    static func rfc3339(epochMilliseconds ms: Int64, utcOffsetMinutes offset: Int?) -> String {
        let sink = ByteSink(descriptor: -1, capacity: 64)
        sink.rfc3339(epochMilliseconds: ms, utcOffsetMinutes: offset)
        return String(decoding: sink.bytes, as: UTF8.self)
    }
}

extension ByteSink {
    /// `Timestamp.rfc3339` written straight into the sink (a points export writes millions).
    func rfc3339(epochMilliseconds ms: Int64, utcOffsetMinutes offset: Int?) {
        let local = ms + Int64(offset ?? 0) * 60_000
        let millis = ((local % 1000) + 1000) % 1000
        let seconds = (local - millis) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let daySeconds = Int(seconds - days * 86_400)
        let (y, m, d) = Timestamp.civilFromDays(days)
        padded(y, width: 4); byte(UInt8(ascii: "-")); padded(m, width: 2); byte(UInt8(ascii: "-")); padded(d, width: 2)
        guard let offset else { return }
        byte(UInt8(ascii: "T")); padded(daySeconds / 3600, width: 2); byte(UInt8(ascii: ":"))
        padded(daySeconds / 60 % 60, width: 2); byte(UInt8(ascii: ":")); padded(daySeconds % 60, width: 2)
        if millis != 0 { byte(UInt8(ascii: ".")); padded(Int(millis), width: 3) }
        if offset == 0 { byte(UInt8(ascii: "Z")); return }
        byte(UInt8(ascii: offset < 0 ? "-" : "+"))
        padded(abs(offset) / 60, width: 2); byte(UInt8(ascii: ":")); padded(abs(offset) % 60, width: 2)
    }
}
