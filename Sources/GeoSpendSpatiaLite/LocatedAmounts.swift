import GeoSpend
import GRDB

/// The reads behind the heat layers and the grid origin: each geotagged expense's position,
/// amount and currency (and user, for cross-user layers), in batches.
extension SpatiaLiteReader {
    public func forEachLocatedAmountBatch(_ filter: ExpenseFilter, withUsers: Bool, _ body: ([LocatedAmount]) throws -> Void) throws {
        let (source, arguments) = Self.locatedSource(filter)
        let columns = "e.lat, e.lon, e.amount_minor, e.currency" + (withUsers ? ", e.user_id" : "")
        try read { db in
            let s = RawStatement(try db.cachedStatement(sql: "SELECT \(columns) \(source)"))
            defer { s.reset() }
            s.reset()
            for apply in arguments { apply(s) }
            var batch = Batch<LocatedAmount>()
            while try s.step(db) {
                try batch.add(LocatedAmount(
                    latitude: s.double(0), longitude: s.double(1), amountMinor: s.int64(2),
                    currencyKey: s.withText(3, LocatedAmount.currencyKey),
                    userKey: withUsers ? s.withText(4, LocatedAmount.userKey) : 0), to: body)
            }
            try batch.flush(to: body)
        }
    }

    /// The centre of the union of the boxes in the root node of `idx_expenses_geom` (layout:
    /// `RTreeNode`): the bounding box of every geotagged expense, give or take float
    /// rounding, read in one small row.
    public func geotaggedCenterHint() throws -> Coordinate? {
        try read { db in
            let root = RawStatement(try db.cachedStatement(sql: "SELECT data FROM idx_expenses_geom_node WHERE nodeno = 1"))
            defer { root.reset() }
            root.reset()
            guard try root.step(db) else { return nil }
            return root.withBlob(0) { node -> Coordinate? in
                guard RTreeNode.isWhole(node), RTreeNode.count(node) > 0 else { return nil }
                var (south, north, west, east) = (Float.infinity, -Float.infinity, Float.infinity, -Float.infinity)
                for i in 0..<RTreeNode.count(node) {
                    let cell = RTreeNode.cell(i, of: node)
                    west = min(west, cell.xmin); east = max(east, cell.xmax); south = min(south, cell.ymin); north = max(north, cell.ymax)
                }
                return try? Coordinate(latitude: Double(south + north) / 2, longitude: Double(west + east) / 2)
            }
        }
    }

    /// `FROM … WHERE …` over the geotagged expenses of a filter. Categories are joined only when
    /// filtered on, so without window or category filters every column read is in the
    /// `expenses_user_place` index and SQLite scans that instead of the table.
    private static func locatedSource(_ filter: ExpenseFilter) -> (String, [(RawStatement) -> Void]) {
        let (conditions, arguments) = StoredRows.conditions(for: filter, firstParameter: 1)
        let join = filter.categories.isEmpty ? "" : "LEFT JOIN categories AS c ON c.id = e.category_id"
        return ("FROM expenses AS e \(join) WHERE \((conditions + ["e.lat IS NOT NULL"]).joined(separator: " AND "))", arguments)
    }
}
