/// The heat layer of vector tiles: per zoom, square cells that are themselves quadtree tiles,
/// 2^6 × 2^6 of them in each tile (64 tile units a side), with count, exact total and average.
///
/// Suppression at every zoom, provably (docs/TILES.md): expenses are binned once, on the finest
/// cells (those of `--max-zoom`, level maxZoom + 6); those cells are suppressed as the grid layer
/// does it (`--min-count`, `--min-users`, complementary suppression). A cell at a coarser zoom
/// covers exactly 4^d finest cells (the quadtree nests them) and publishes the sum of its
/// *published* finest cells only. So
/// - every published cell at every zoom holds at least one published finest cell: it meets the
///   thresholds too (counts and user sets only grow under unions);
/// - a parent minus its published children is 0, whatever zooms are combined: a hidden cell
///   adds nothing to any number in the file; what the file reveals about hidden cells is only
///   the selection's true total minus the published one, which complementary suppression keeps
///   above the thresholds, as for one grid layer.
/// The cost: coarse zooms show less than the raw total (what was hidden at the finest cells).
/// The finest cells come from the map rollups when they can (docs/ROLLUPS.md), else one scan.
struct HeatPyramid {
    /// Cells per tile side: 2^cellLevels.
    static let cellLevels = 6

    struct Cell {
        /// Position at level zoom + cellLevels.
        let x: Int
        let y: Int
        var count: Int
        var total: Int64
    }

    let minZoom: Int
    let maxZoom: Int
    let currency: Currency?
    let choice: LayerCurrency
    let suppression: Suppression?
    /// Published cells per zoom (index zoom − minZoom), row then column order.
    let zooms: [[Cell]]
    /// The largest published total per zoom, for `weight`.
    let largest: [Int64]

    init(_ request: MapExportRequest, minZoom: Int, maxZoom: Int, reader: some ExpenseReader, progress: ExportProgress?) throws {
        (self.minZoom, self.maxZoom) = (minZoom, maxZoom)
        let finest = maxZoom + Self.cellLevels
        let privacy = PositionPrivacy(request.privacy)
        let withUsers = request.minUsers > 1
        // From the map rollups when they answer the request: their quadtree level nests every
        // finest level up to it exactly (a cell at level L − d is the cell at L shifted by d).
        let shift = MapRollup.tileLevel - finest
        let rolledUp = shift < 0 ? nil : try RollupBins.read(.tiles, request, reader: reader, cell: { c in
            MetricGrid.Cell(i: Int(c & 0xFFFF_FFFF) >> shift, j: Int(c >> 32) >> shift)
        })
        var bins = rolledUp ?? PerCurrency { (CellSums(), UserTally()) }
        var read = 0
        if rolledUp == nil {
            try reader.forEachLocatedAmount(request.filter, withUsers: withUsers) { p in
                // Masked expenses count nowhere, as in the grid layer.
                if privacy.isMasked(latitude: p.latitude, longitude: p.longitude) { return }
                let c = WebMercator.cell(latitude: p.latitude, longitude: p.longitude, level: finest)
                let k = bins.slot(p.currencyKey)
                let s = bins.values[k].0.slot(MetricGrid.Cell(i: c.x, j: c.y))
                bins.values[k].0.counts[s] += 1
                bins.values[k].0.totals[s] += p.amountMinor
                if withUsers {
                    bins.values[k].0.users[s].add(p.userKey, upTo: request.minUsers)
                    bins.values[k].1.add(p.userKey, upTo: request.minUsers)
                }
                read += 1
                if read % 65_536 == 0 { progress?(read, 0) }
            }
        }
        progress?(read, 0)
        let currencies = try bins.keys.map(LocatedAmount.currency(key:))
        choice = LayerCurrency(
            counts: zip(currencies, bins.values).map { ($0, $1.0.counts.reduce(0, +), $1.1.count) }, minUsers: request.minUsers)
        guard let currency = choice.currency, let chosen = currencies.firstIndex(of: currency) else {
            (self.currency, suppression, zooms) = (nil, nil, Array(repeating: [], count: maxZoom - minZoom + 1))
            largest = zooms.map { _ in 1 }
            return
        }
        self.currency = currency
        let sums = bins.values[chosen].0
        let (slots, suppression) = sums.published(
            minCount: request.minCount, minUsers: request.minUsers, value: sums.totals.map(Double.init))
        self.suppression = suppression
        // Each zoom sums the published finest cells under each of its cells, nothing else.
        zooms = (minZoom...maxZoom).map { z in
            let shift = maxZoom - z
            var index: [MetricGrid.Cell: Int] = [:]
            var cells: [Cell] = []
            for k in slots {
                let c = MetricGrid.Cell(i: sums.cells[k].i >> shift, j: sums.cells[k].j >> shift)
                if let n = index[c] {
                    cells[n].count += sums.counts[k]
                    cells[n].total += sums.totals[k]
                } else {
                    index[c] = cells.count
                    cells.append(Cell(x: c.i, y: c.j, count: sums.counts[k], total: sums.totals[k]))
                }
            }
            return cells.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
        }
        largest = zooms.map { max($0.map(\.total).max() ?? 1, 1) }
    }

    /// The tile of a cell at `zoom`.
    static func tile(of cell: Cell, zoom: Int) -> TileID { TileID(z: zoom, x: cell.x >> cellLevels, y: cell.y >> cellLevels) }

    /// The `heat` layer of one tile: `cells` are indices into `zooms[zoom − minZoom]`.
    func encode(zoom: Int, tile: TileID, cells: [Int]) -> TileLayerEncoder {
        var layer = TileLayerEncoder(name: "heat")
        guard let currency else { return layer }
        let all = zooms[zoom - minZoom]
        let largest = Double(largest[zoom - minZoom])
        let side = TileLayerEncoder.extent >> Self.cellLevels
        let mask = (1 << Self.cellLevels) - 1
        let major = Double(currency.minorUnitsPerMajor)
        let level = zoom + Self.cellLevels
        for n in cells {
            let c = all[n]
            let square = TileGeometry.square(x: Int32(c.x & mask) * side, y: Int32(c.y & mask) * side, side: side)
            let average = MoneyTotal(currency: currency, count: c.count, totalMinor: c.total).averageMinor
            layer.add(
                type: .polygon, geometry: TileGeometry.polygons([square]),
                properties: [
                    ("cell", .string("\(level)/\(c.x)/\(c.y)")),
                    ("count", .uint(UInt64(c.count))),
                    ("total", .double(Double(c.total) / major)),
                    ("total_minor", .sint(c.total)),
                    ("average", .double(Double(average) / major)),
                    ("average_minor", .sint(average)),
                    ("currency", .string(currency.code)),
                    ("weight", .double(Double(c.total) / largest)),
                ],
                id: UInt64(c.y) << UInt64(level) | UInt64(c.x))
        }
        return layer
    }

    static let fields = [
        "cell": "String", "count": "Number", "total": "Number", "total_minor": "Number", "average": "Number",
        "average_minor": "Number", "currency": "String", "weight": "Number",
    ]
}
