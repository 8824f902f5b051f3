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
        let key = Int64(c.i) << 32 | Int64(UInt32(bitPattern: Int32(truncatingIfNeeded: c.j)))
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
            smaller: { (counts[$0], value[$0], cells[$0]) < (counts[$1], value[$1], cells[$1]) })
        return (suppression.kept.sorted { cells[$0] < cells[$1] }, suppression)
    }
}

/// What grids and density surfaces share before they aggregate: the layer's currency, the
/// filter narrowed to it, and the grid on a projection centred on the request's origin or the
/// data's rounded centre.
private struct MetricLayerSetup {
    let extent: GeotaggedExtent?
    let choice: LayerCurrency
    let filter: ExpenseFilter
    let grid: MetricGrid

    init(shape: MetricGrid.Shape, cellMeters: Double, _ request: MapExportRequest, store: some ExpenseStore) throws {
        (extent, choice) = try MapExport.extent(request.filter, store: store)
        var filter = request.filter
        filter.currency = extent?.currency
        self.filter = filter
        let origin = request.origin ?? extent.map { MetricGrid.origin(around: $0.center) } ?? Coordinate(uncheckedLatitude: 0, longitude: 0)
        grid = MetricGrid(shape: shape, size: cellMeters, projection: EqualAreaProjection(origin: origin))
    }

    var expected: Int { extent?.count ?? 0 }
}

extension FeatureWriter {
    /// Starts a cell's feature: its id, its polygon(s) and its `cell_id` property.
    mutating func beginCell(_ cell: MetricGrid.Cell, of grid: MetricGrid) {
        let id = grid.id(cell)
        beginFeature(id: id)
        polygons(grid.polygons(cell))
        beginProperties()
        string("cell_id", id)
    }
}

private func gridDescription(_ grid: MetricGrid) -> [(String, JSONOutput)] {
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
        store: some ExpenseStore, to sink: ByteSink, progress: ExportProgress?
    ) throws -> MapExportSummary {
        let setup = try MetricLayerSetup(shape: shape, cellMeters: cellMeters, request, store: store)
        let (grid, choice, expected) = (setup.grid, setup.choice, setup.expected)
        var sums = CellSums()
        var read = 0
        let privacy = PositionPrivacy(request.privacy)
        try store.forEachLocatedAmount(setup.filter) { p in
            if privacy.isMasked(latitude: p.latitude, longitude: p.longitude) { return }
            let k = sums.slot(grid.cell(latitude: p.latitude, longitude: p.longitude))
            sums.counts[k] += 1
            sums.totals[k] += p.amountMinor
            if request.minUsers > 1 { sums.users[k].add(p.userKey, upTo: request.minUsers) }
            read += 1
            if read % 65_536 == 0 { progress?(read, expected) }
        }
        progress?(read, expected)

        guard let currency = setup.extent?.currency else {
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
        var writer = FeatureWriter(sink: sink, precision: request.precision, provenance: provenance)
        for k in slots {
            writer.beginCell(sums.cells[k], of: grid)
            writer.integer("count", sums.counts[k])
            writer.money("total", sums.totals[k], currency)
            writer.money("average", average(k), currency)
            writer.string("currency", currency.code)
            writer.number("weight", value(k) / largest, decimals: 6)
            writer.number("cell_m", grid.size, decimals: 3)
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
        FeatureWriter(sink: sink, precision: request.precision, provenance: provenance).finish()
        return MapExportSummary(features: 0, suppressed: 0, currency: nil, totalMinor: 0, leftOutCurrencies: [])
    }
}

/// `density`: a kernel density estimate of amounts in metres — the quartic (biweight) kernel
/// QGIS' heat map uses, K(d) = 3/(π·h²)·(1 − d²/h²)² for d < h, weighted by amount — evaluated
/// at the centres of square cells and written as Polygon cells. `density` is the amount per
/// km² (the kernel integrates to 1, so the surface integrates to the layer's total); `count`
/// is how many expenses lie within the bandwidth of the cell's centre.
enum DensityLayer {
    static func write(
        bandwidthMeters h: Double, cellMeters: Double, _ request: MapExportRequest, store: some ExpenseStore,
        to sink: ByteSink, progress: ExportProgress?
    ) throws -> MapExportSummary {
        let setup = try MetricLayerSetup(shape: .square, cellMeters: cellMeters, request, store: store)
        let (grid, choice, expected, extent) = (setup.grid, setup.choice, setup.expected, setup.extent)
        var sums = CellSums()
        var read = 0
        var kept = 0
        var keptTotal: Int64 = 0
        let h2 = h * h
        let privacy = PositionPrivacy(request.privacy)
        try store.forEachLocatedAmount(setup.filter) { p in
            read += 1
            if read % 16_384 == 0 { progress?(read, expected) }
            if privacy.isMasked(latitude: p.latitude, longitude: p.longitude) { return }
            kept += 1
            keptTotal += p.amountMinor
            let (x, y) = grid.projection.forward(latitude: p.latitude, longitude: p.longitude)
            let user = p.userKey
            let amount = Double(p.amountMinor)
            let i0 = Int(((x - h) / cellMeters).rounded(.down)), i1 = Int(((x + h) / cellMeters).rounded(.down))
            let j0 = Int(((y - h) / cellMeters).rounded(.down)), j1 = Int(((y + h) / cellMeters).rounded(.down))
            for j in j0...j1 {
                let dy = (Double(j) + 0.5) * cellMeters - y
                for i in i0...i1 {
                    let dx = (Double(i) + 0.5) * cellMeters - x
                    let d2 = dx * dx + dy * dy
                    guard d2 < h2 else { continue }
                    let u = 1 - d2 / h2
                    let k = sums.slot(MetricGrid.Cell(i: i, j: j))
                    sums.densities[k] += amount * u * u
                    sums.counts[k] += 1
                    if request.minUsers > 1 { sums.users[k].add(user, upTo: request.minUsers) }
                }
            }
        }
        progress?(read, expected)

        let description = gridDescription(grid) + [
            ("bandwidth_m", .number(h, decimals: 3)),
            ("kernel", .string("quartic: 3/(pi h^2) (1 - d^2/h^2)^2, weighted by amount; density = amount per km2 at the cell centre")),
        ]
        guard let currency = extent?.currency else { return GridLayer.writeEmpty(layer: "density", request, sink: sink, extra: description) }
        let (slots, suppression) = sums.published(minCount: request.minCount, minUsers: request.minUsers, value: sums.densities)
        // Minor units · kernel (per m²) → major units per km².
        let scale = 3 / (Double.pi * h2) / Double(currency.minorUnitsPerMajor) * 1_000_000
        let largest = slots.map { sums.densities[$0] }.max() ?? 1
        let provenance = Provenance.object(
            layer: "density", request: request, currency: choice, features: slots.count, expenses: kept,
            totalMinor: keptTotal, suppression: suppression,
            extra: [("grid", .object(description)), ("weight", .string("density / largest published density"))])
        var writer = FeatureWriter(sink: sink, precision: request.precision, provenance: provenance)
        for k in slots {
            writer.beginCell(sums.cells[k], of: grid)
            writer.number("density", sums.densities[k] * scale, decimals: 6)
            writer.integer("count", sums.counts[k])
            writer.string("currency", currency.code)
            writer.number("weight", largest > 0 ? sums.densities[k] / largest : 0, decimals: 6)
            writer.number("cell_m", grid.size, decimals: 3)
            writer.endFeature()
        }
        writer.finish()
        return MapExportSummary(
            features: slots.count, suppressed: suppression.suppressed, currency: currency, totalMinor: keptTotal, leftOutCurrencies: choice.leftOut)
    }
}
