import Foundation

/// `density`: a kernel density estimate of amounts in metres — the quartic (biweight) kernel
/// QGIS' heat map uses, K(d) = 3/(π·h²)·(1 − d²/h²)² for d < h, weighted by amount — evaluated
/// at the centres of square cells and written as Polygon cells. `density` is the amount per
/// km² (the kernel integrates to 1, so the surface integrates to the layer's total); `count`
/// is how many expenses lie within the bandwidth of the cell's centre.
///
/// Data too wide for one projection gets the regional squares of `export grid` (docs/GRIDS.md):
/// each cell's density is measured in its own region's plane, and an expense near a region's
/// border is also projected into the neighbouring regions' planes, so the cells beyond the border
/// count it too.
enum DensityLayer {
    static func write(
        bandwidthMeters h: Double, cellMeters: Double, _ request: MapExportRequest, reader: some ExpenseReader,
        to sink: ByteSink, progress: ExportProgress?
    ) throws -> MapExportSummary {
        // Refused before any kernel work when too large; otherwise progress every ~4·10⁶ evaluations.
        let cost = DensityCost(bandwidthMeters: h, cellMeters: cellMeters, extents: try reader.geotaggedExtent(request.filter))
        try cost.check()
        var kernel = Kernel(bandwidth: h, cell: cellMeters, minUsers: request.minUsers)
        let layer = try BinnedLayer(
            shape: .square, cellMeters: cellMeters, request, reader: reader, progress: progress,
            progressEvery: max(1, 4_000_000 / cost.footprint), expected: cost.expenses
        ) { sums, grid, p in
            if grid.regional {
                kernel.spreadAcrossRegions(p, grid: grid, into: &sums)
            } else {
                let (x, y) = grid.projection.forward(latitude: p.latitude, longitude: p.longitude)
                kernel.spread(p, x: x, y: y, region: 0, shift: 0, into: &sums)
            }
        }
        let (grid, choice, sums, extent) = (layer.grid, layer.choice, layer.sums, layer.extent)

        var description = gridDescription(grid) + [
            ("bandwidth_m", .number(h, decimals: 3)),
            ("kernel", .string("quartic: 3/(pi h^2) (1 - d^2/h^2)^2, weighted by amount; density = amount per km2 at the cell centre")),
        ]
        if grid.regional {
            description.append(("distance", .string(
                "d in the plane of the cell's region; expenses within h of a region border count in the cells on both sides (docs/GRIDS.md)")))
        }
        guard let currency = extent?.currency else { return GridLayer.writeEmpty(layer: "density", request, sink: sink, extra: description) }
        let (slots, suppression) = sums.published(minCount: request.minCount, minUsers: request.minUsers, value: sums.densities)
        // Minor units · kernel (per m²) → major units per km².
        let scale = 3 / (Double.pi * h * h) / Double(currency.minorUnitsPerMajor) * 1_000_000
        let largest = slots.map { sums.densities[$0] }.max() ?? 1
        // The surface integrates to the selection's total: with that total published, total minus
        // the published cells' integral would give what the suppressed cells hide (a lone user far
        // from everyone, whole). Cells overlap, so no published-only total exists: none then.
        let whole = suppression.suppressed == 0
        let provenance = Provenance.object(
            layer: "density", request: request, currency: choice, features: slots.count,
            expenses: whole ? extent?.count ?? 0 : nil, totalMinor: whole ? extent?.totalMinor ?? 0 : nil, suppression: suppression,
            extra: [("grid", .object(description)), ("weight", .string("density / largest published density"))])
        var writer = FeatureWriter(sink: sink, precision: request.precision, provenance: provenance, index: request.featureIndex)
        let cellID = grid.cellIDs()
        for k in slots {
            writer.beginCell(sums.cells[k], of: grid, id: cellID(sums.cells[k]))
            writer.number("density", sums.densities[k] * scale, decimals: 6)
            writer.integer("count", sums.counts[k])
            writer.string("currency", currency.code)
            writer.number("weight", largest > 0 ? sums.densities[k] / largest : 0, decimals: 6)
            writer.number("cell_m", grid.size, decimals: 3)
            writer.endFeature()
        }
        writer.finish()
        return MapExportSummary(
            features: slots.count, suppressed: suppression.suppressed, currency: currency, totalMinor: whole ? extent?.totalMinor ?? 0 : nil,
            leftOutCurrencies: choice.leftOut)
    }

    /// Adds expenses' kernels to the cells around them.
    struct Kernel {
        let h: Double, h2: Double, c: Double, minUsers: Int
        /// Regional cells known to have a drawn part inside their region (cells cut at a border
        /// may have none: their square lies wholly in the neighbour's box, whose own cells cover it).
        var drawn: [MetricGrid.Cell: Bool] = [:]

        init(bandwidth: Double, cell: Double, minUsers: Int) {
            (h, h2, c, self.minUsers) = (bandwidth, bandwidth * bandwidth, cell, minUsers)
        }

        /// Every cell whose centre lies within h of the expense's position (x, y) in the plane,
        /// weighted by (1 − d²/h²)²·amount. `shift`: 0.5 for regional squares, centred on the
        /// region's centre (`MetricGrid.cell`); `keep` passes a cell or not.
        @inline(__always)
        mutating func spread(
            _ p: LocatedAmount, x: Double, y: Double, region: Int, shift: Double, into sums: inout CellSums,
            keep: (inout Kernel, MetricGrid.Cell) -> Bool = { _, _ in true }
        ) {
            let amount = Double(p.amountMinor), centre = 0.5 - shift
            let i0 = Int(((x - h) / c + shift).rounded(.down)), i1 = Int(((x + h) / c + shift).rounded(.down))
            let j0 = Int(((y - h) / c + shift).rounded(.down)), j1 = Int(((y + h) / c + shift).rounded(.down))
            for j in j0...j1 {
                let dy = (Double(j) + centre) * c - y
                for i in i0...i1 {
                    let dx = (Double(i) + centre) * c - x
                    let d2 = dx * dx + dy * dy
                    guard d2 < h2 else { continue }
                    let cell = MetricGrid.Cell(i: i, j: j, r: region)
                    guard keep(&self, cell) else { continue }
                    let u = 1 - d2 / h2
                    let k = sums.slot(cell)
                    sums.densities[k] += amount * u * u
                    sums.counts[k] += 1
                    if minUsers > 1 { sums.users[k].add(p.userKey, upTo: minUsers) }
                }
            }
        }

        /// A regional grid's expense: in its own region's plane when its kernel, and the cells that
        /// kernel reaches, stay inside that region; otherwise in the plane of every region within
        /// reach, keeping only cells with a drawn part in their region.
        mutating func spreadAcrossRegions(_ p: LocatedAmount, grid: MetricGrid, into sums: inout CellSums) {
            // A cell's centre within h in its plane, its body within c/√2 more; planes stretch
            // lengths by up to 1.72 %: 5 % and a whole cell cover both.
            let regions = GridRegion.reaching(latitude: p.latitude, longitude: p.longitude, radius: (h + c) * 1.05)
            for region in regions {
                let (x, y) = region.projection.forward(latitude: p.latitude, longitude: p.longitude)
                if regions.count == 1 {
                    spread(p, x: x, y: y, region: region.index, shift: 0.5, into: &sums)
                } else {
                    spread(p, x: x, y: y, region: region.index, shift: 0.5, into: &sums) { kernel, cell in
                        if let known = kernel.drawn[cell] { return known }
                        let isDrawn = !grid.polygons(cell).isEmpty
                        kernel.drawn[cell] = isDrawn
                        return isDrawn
                    }
                }
            }
        }
    }
}
