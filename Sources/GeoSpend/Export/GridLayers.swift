import Foundation

/// Sums per cell, with a bounded distinct-user tally for `minUsers` suppression.
struct CellSums {
    var index: [Int64: Int] = [:]
    var cells: [MetricGrid.Cell] = []
    var counts: [Int] = []
    var totals: [Int64] = []
    var densities: [Double] = []
    var users: [UserTally] = []

    /// The slot of a cell, created on first sight.
    @inline(__always)
    mutating func slot(_ c: MetricGrid.Cell) -> Int {
        // A regional grid's columns and rows stay within ±2²⁷ (2,400 km / 2 cm cells), its regions below 2⁷.
        let key = c.r == 0
            ? Int64(c.i) << 32 | Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: c.j)))
            : Int64(c.r) << 56 | (Int64(c.i) & 0x0FFF_FFFF) << 28 | (Int64(c.j) & 0x0FFF_FFFF)
        if let k = index[key] { return k }
        let k = cells.count
        index[key] = k
        cells.append(c)
        counts.append(0)
        totals.append(0)
        densities.append(0)
        users.append(UserTally())
        return k
    }

    /// Slots that pass suppression, complementary included (`Suppression`), in row-then-column
    /// order (stable output). Users are tallied only when `minUsers` > 1. `value` ranks cells of
    /// equal count for the complementary pick.
    func published(minCount: Int, minUsers: Int, value: [Double]) -> (slots: [Int], suppression: Suppression) {
        let suppression = Suppression(
            count: cells.count, passes: { counts[$0] >= minCount && (minUsers <= 1 || users[$0].count >= minUsers) },
            smaller: { (counts[$0], value[$0], cells[$0]) < (counts[$1], value[$1], cells[$1]) },
            hiddenPass: { hidden in
                hidden.reduce(0) { $0 + counts[$1] } >= minCount
                    && (minUsers <= 1 || UserTally.union(hidden.lazy.map { users[$0] }, upTo: minUsers) >= minUsers)
            })
        return (suppression.kept.sorted { cells[$0] < cells[$1] }, suppression)
    }
}

/// The one pass grids and density surfaces make over the selection. A layer shows one currency
/// (the filter's, else the most common) and its grid is centred on the request's origin, else on
/// that currency's extent — both known only once every row is read. So every currency is binned
/// at once, on a grid centred on a guess: for all users the store's hint (the spatial index's
/// root box), for one user their first row. When the chosen currency's extent settles on another
/// origin, a second pass bins that currency alone on the settled grid. Either way the cells are
/// those of the settled grid. Before, an extent pre-pass read the index twice: 27 % of a 100k-row
/// hex export's instructions (callgrind).
struct BinnedLayer {
    let grid: MetricGrid
    let extent: GeotaggedExtent?
    let choice: LayerCurrency
    let sums: CellSums

    /// - Parameters:
    ///   - progressEvery: expenses between progress reports (fewer where each costs more).
    ///   - expected: the expenses the pass will read, when known (0 otherwise), for progress.
    init(
        shape: MetricGrid.Shape, cellMeters: Double, _ request: MapExportRequest, reader: some ExpenseReader,
        progress: ExportProgress?, progressEvery: Int = 16_384, expected: Int = 0,
        bin: (inout CellSums, MetricGrid, LocatedAmount) -> Void
    ) throws {
        let privacy = PositionPrivacy(request.privacy)
        func makeGrid(_ origin: Coordinate) -> MetricGrid {
            MetricGrid(shape: shape, size: cellMeters, projection: EqualAreaProjection(origin: origin))
        }
        func pass(_ filter: ExpenseFilter, grid: MetricGrid?) throws -> (MetricGrid?, PerCurrency<(ExtentAccumulator, CellSums, UserTally)>) {
            var g = grid
            var bins = PerCurrency { (ExtentAccumulator(), CellSums(), UserTally()) }
            var read = 0
            try reader.forEachLocatedAmount(filter, withUsers: request.minUsers > 1) { p in
                // Masked expenses count nowhere: not in cells, extents, currencies or the origin.
                if privacy.isMasked(latitude: p.latitude, longitude: p.longitude) { return }
                if g == nil { g = makeGrid(MetricGrid.origin(around: Coordinate(uncheckedLatitude: p.latitude, longitude: p.longitude))) }
                let k = bins.slot(p.currencyKey)
                bins.values[k].0.add(latitude: p.latitude, longitude: p.longitude, amountMinor: p.amountMinor)
                bin(&bins.values[k].1, g!, p)
                if request.minUsers > 1 { bins.values[k].2.add(p.userKey, upTo: request.minUsers) }
                read += 1
                if read % progressEvery == 0 { progress?(read, expected) }
            }
            progress?(read, expected)
            return (g, bins)
        }

        let hint = request.filter.userID == nil ? try reader.geotaggedCenterHint().map(MetricGrid.origin(around:)) : nil
        let (guessed, bins) = try pass(request.filter, grid: (request.origin ?? hint).map(makeGrid))
        let extents = try zip(bins.keys, bins.values).map { try $1.0.extent(currency: LocatedAmount.currency(key: $0)) }
        choice = LayerCurrency(
            counts: zip(extents, bins.values).map { ($0.currency, $0.count, $1.2.count) }, minUsers: request.minUsers)
        guard let currency = choice.currency, let chosen = extents.firstIndex(where: { $0.currency == currency }), let guessed else {
            (grid, extent, sums) = (makeGrid(request.origin ?? Coordinate(uncheckedLatitude: 0, longitude: 0)), nil, CellSums())
            return
        }
        extent = extents[chosen]
        let settled = request.origin ?? MetricGrid.origin(around: extents[chosen].center)
        // Data too wide for one projection, or reaching a polar cap, is binned region by region
        // (cells under 2 cm would overflow CellSums' regional key; nobody maps a continent so).
        let global = shape != .h3 && cellMeters >= 0.02 && !GridRegion.fitsOneProjection(extents[chosen], origin: settled)
        if shape == .h3 || (!global && settled == guessed.projection.origin) {  // H3 cells do not depend on the origin
            (grid, sums) = (guessed, bins.values[chosen].1)
        } else {
            var filter = request.filter
            filter.currency = currency
            let (again, rebinned) = try pass(filter, grid: global ? MetricGrid(regionalShape: shape, size: cellMeters) : makeGrid(settled))
            (grid, sums) = (again!, rebinned.values.first?.1 ?? CellSums())
        }
    }
}

extension FeatureWriter {
    /// Starts a cell's feature: its id, its polygon(s) and its `cell_id` property.
    mutating func beginCell(_ cell: MetricGrid.Cell, of grid: MetricGrid, id: String) {
        beginFeature(id: id)
        polygons(grid.polygons(cell))
        beginProperties()
        string("cell_id", id)
        if grid.shape == .h3 { string("h3", id) }  // the column kepler.gl's H3 layer and DuckDB h3 key on
    }
}

/// The `grid` object of a layer's provenance: shape, size and projection(s).
func gridDescription(_ grid: MetricGrid) -> [(String, JSONOutput)] {
    if grid.shape == .h3 {
        return [("shape", .string("h3")), ("resolution", .number(grid.size, decimals: 0)),
                ("cells", .string("H3 (h3geo.org), ids as in h3-py, DuckDB h3 and h3-pg"))]
    }
    if grid.regional {
        return [
            ("shape", .string(grid.shape.rawValue)),
            ("cell_m", .number(grid.size, decimals: 3)),
            ("cell_size", .string(grid.shape == .hex ? "hexagon edge = circumradius (as PostGIS ST_HexagonGrid)" : "square side, centred on the region's centre")),
            ("projection", .string(
                "per region: +proj=laea +lat_0=<lat> +lon_0=<lon> +ellps=WGS84 +units=m, <lat>,<lon> the region's centre in each cell_id after @region")),
            ("regions", .string(
                "data wider than 1500 km or beyond 75 degrees: caps beyond 75N and 75S centred on the poles, 30x30 degree boxes between "
                    + "centred on latitudes -60..60 and longitudes -150..180 by 30; cells are cut at region borders (docs/GRIDS.md)")),
        ]
    }
    let o = grid.projection.origin
    return [
        ("shape", .string(grid.shape.rawValue)),
        ("cell_m", .number(grid.size, decimals: 3)),
        ("cell_size", .string(grid.shape == .hex ? "hexagon edge = circumradius (as PostGIS ST_HexagonGrid)" : "square side")),
        ("projection", .string(
            "+proj=laea +lat_0=\(formatDecimal(o.latitude, digits: 6)) +lon_0=\(formatDecimal(o.longitude, digits: 6)) +ellps=WGS84 +units=m")),
    ]
}

/// `grid`: Polygon cells of a hex or square grid in metres with count, exact total and average,
/// and a 0–1 weight by the chosen metric. Each expense lands in exactly one cell, so published
/// cells plus suppressed ones add up to the selection.
enum GridLayer {
    static func write(
        shape: MetricGrid.Shape, cellMeters: Double, metric: GridMetric, _ request: MapExportRequest,
        reader: some ExpenseReader, to sink: ByteSink, progress: ExportProgress?
    ) throws -> MapExportSummary {
        // H3 at a kept resolution: from the map rollups when they answer the request (RollupBins).
        let layer = try BinnedLayer(rollupsFor: shape, cellMeters: cellMeters, request, reader: reader)
            ?? BinnedLayer(shape: shape, cellMeters: cellMeters, request, reader: reader, progress: progress) { sums, grid, p in
            let k = sums.slot(grid.cell(latitude: p.latitude, longitude: p.longitude))
            sums.counts[k] += 1
            sums.totals[k] += p.amountMinor
            if request.minUsers > 1 { sums.users[k].add(p.userKey, upTo: request.minUsers) }
        }
        let (grid, choice, sums) = (layer.grid, layer.choice, layer.sums)

        guard let currency = layer.extent?.currency else {
            return writeEmpty(layer: "grid", request, sink: sink, extra: gridDescription(grid))
        }
        let (slots, suppression) = sums.published(minCount: request.minCount, minUsers: request.minUsers, value: sums.totals.map(Double.init))
        func average(_ k: Int) -> Int64 { MoneyTotal(currency: currency, count: sums.counts[k], totalMinor: sums.totals[k]).averageMinor }
        func value(_ k: Int) -> Double {
            switch metric {
            case .total: Double(sums.totals[k])
            case .count: Double(sums.counts[k])
            case .average: Double(average(k))
            }
        }
        let largest = max(slots.map(value).max() ?? 1, 1)
        let total = slots.reduce(Int64(0)) { $0 + sums.totals[$1] }
        let expenses = slots.reduce(0) { $0 + sums.counts[$1] }
        let provenance = Provenance.object(
            layer: "grid", request: request, currency: choice, features: slots.count, expenses: expenses, totalMinor: total,
            suppression: suppression,
            extra: [("grid", .object(gridDescription(grid) + [("metric", .string(metric.rawValue))])),
                    ("weight", .string("\(metric.rawValue) / largest published cell \(metric.rawValue)"))])
        var writer = FeatureWriter(sink: sink, precision: request.precision, provenance: provenance, index: request.featureIndex)
        let cellID = grid.cellIDs()
        for k in slots {
            writer.beginCell(sums.cells[k], of: grid, id: cellID(sums.cells[k]))
            writer.integer("count", sums.counts[k])
            writer.money("total", sums.totals[k], currency)
            writer.money("average", average(k), currency)
            writer.string("currency", currency.code)
            writer.number("weight", value(k) / largest, decimals: 6)
            if grid.shape == .h3 {
                writer.integer("resolution", Int(grid.size))
            } else {
                writer.number("cell_m", grid.size, decimals: 3)
            }
            writer.endFeature()
        }
        writer.finish()
        return MapExportSummary(
            features: slots.count, suppressed: suppression.suppressed, currency: currency, totalMinor: total, leftOutCurrencies: choice.leftOut)
    }

    static func writeEmpty(layer: String, _ request: MapExportRequest, sink: ByteSink, extra: [(String, JSONOutput)]) -> MapExportSummary {
        let provenance = Provenance.object(
            layer: layer, request: request, currency: LayerCurrency(counts: []), features: 0, expenses: 0, totalMinor: 0, suppression: nil,
            extra: [("grid", .object(extra))])
        FeatureWriter(sink: sink, precision: request.precision, provenance: provenance, index: request.featureIndex).finish()
        return MapExportSummary(features: 0, suppressed: 0, currency: nil, totalMinor: 0, leftOutCurrencies: [])
    }
}
