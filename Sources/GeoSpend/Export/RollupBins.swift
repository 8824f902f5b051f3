/// The cells of a layer read from the map rollups (`MapRollup`, docs/ROLLUPS.md) instead of
/// binned from every expense: the same per-currency `CellSums` and user tallies a scan builds,
/// so suppression, the layer's currency and every number written come out the same
/// (RollupTests and MapRollupCLITests compare the bytes).
enum RollupBins {
    /// Per currency, the cells and the currency's distinct users (tallied only when `minUsers` > 1,
    /// as the scans do), from `level`'s rows; `cell` turns a stored cell into the layer's. Nil
    /// when the request needs the expenses (`MapRollup.answers`) or the store keeps no rollups.
    static func read(
        _ level: MapRollup.Level, _ request: MapExportRequest, reader: some ExpenseReader, cell: (Int64) -> MetricGrid.Cell
    ) throws -> PerCurrency<(CellSums, UserTally)>? {
        guard MapRollup.answers(request) else { return nil }
        let withUsers = request.minUsers > 1
        var bins = PerCurrency { (CellSums(), UserTally()) }
        // All users: the cells' rollups, O(cells). Their distinct users are per kind, so with a
        // user threshold only one kind's rows can be read (users of two kinds may be the same).
        if request.filter.userID == nil, !withUsers || request.filter.kinds.count == 1 {
            let offered = try reader.forEachMapCellRollup(level, request.filter, listingUsersBelow: request.minUsers) { r in
                let k = bins.slot(r.currencyKey)
                let s = bins.values[k].0.slot(cell(r.cell))
                bins.values[k].0.counts[s] += r.count
                bins.values[k].0.totals[s] += r.totalMinor
                guard withUsers else { return }
                if r.users >= request.minUsers {
                    bins.values[k].0.users[s].reach(request.minUsers)
                    bins.values[k].1.reach(request.minUsers)
                }
                for u in r.userKeys {
                    bins.values[k].0.users[s].add(u, upTo: request.minUsers)
                    bins.values[k].1.add(u, upTo: request.minUsers)
                }
            }
            if offered { return bins }
        }
        let offered = try reader.forEachMapRollup(level, request.filter) { r in
            let k = bins.slot(r.currencyKey)
            let s = bins.values[k].0.slot(cell(r.cell))
            bins.values[k].0.counts[s] += r.count
            bins.values[k].0.totals[s] += r.totalMinor
            if withUsers {
                bins.values[k].0.users[s].add(r.userKey, upTo: request.minUsers)
                bins.values[k].1.add(r.userKey, upTo: request.minUsers)
            }
        }
        return offered ? bins : nil
    }
}

extension BinnedLayer {
    /// An H3 grid layer from the rollups of its resolution, or nil: another shape, a resolution
    /// not kept, a request they cannot answer, or a store without them.
    init?(rollupsFor shape: MetricGrid.Shape, cellMeters: Double, _ request: MapExportRequest, reader: some ExpenseReader) throws {
        let resolution = Int(cellMeters)
        guard shape == .h3, MapRollup.h3Resolutions.contains(resolution),
            let bins = try RollupBins.read(.h3(resolution), request, reader: reader, cell: { h in
                MetricGrid.Cell(i: Int(UInt64(bitPattern: h) >> 32), j: Int(UInt64(bitPattern: h) & 0xFFFF_FFFF))
            })
        else { return nil }
        let currencies = try bins.keys.map(LocatedAmount.currency(key:))
        let choice = LayerCurrency(
            counts: zip(currencies, bins.values).map { ($0, $1.0.counts.reduce(0, +), $1.1.count) }, minUsers: request.minUsers)
        // H3 cells do not depend on the projection's origin (the scan guesses one; any will do).
        let grid = MetricGrid(
            shape: .h3, size: cellMeters, projection: EqualAreaProjection(origin: request.origin ?? Coordinate(uncheckedLatitude: 0, longitude: 0)))
        guard let currency = choice.currency, let chosen = currencies.firstIndex(of: currency) else {
            (self.grid, self.extent, self.choice, self.sums) = (grid, nil, choice, CellSums())
            return
        }
        let sums = bins.values[chosen].0
        // The rollups keep no positions: the box is unknown (NaN). The grid layer reads only the
        // extent's currency; the density layer, which reads more, never comes here.
        let extent = GeotaggedExtent(
            currency: currency, count: sums.counts.reduce(0, +), totalMinor: sums.totals.reduce(0, +), maxMinor: 0,
            south: .nan, north: .nan, west: .nan, east: .nan, west360: .nan, east360: .nan)
        (self.grid, self.extent, self.choice, self.sums) = (grid, extent, choice, sums)
    }
}
