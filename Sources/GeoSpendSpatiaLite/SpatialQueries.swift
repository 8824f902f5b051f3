import GeoSpend
import GRDB

/// Radius queries: the R*Tree is queried directly with the circle's bounding boxes
/// (`SearchBox`), and every candidate is refined with its exact geodesic distance (nearest
/// stores: NearestStores.swift).
/// Not SpatiaLite's `SpatialIndex`/`KNN` virtual tables: they cost milliseconds per query and
/// `KNN` is wrong across ±180° (docs/MEASUREMENTS.md § SpatiaLite's KNN and SpatialIndex).
extension SpatiaLiteReader {
    /// - Complexity: O(log n + c) index work for c candidates in the box, plus one geodesic
    ///   distance per candidate.
    public func expenses(within radius: Distance, of center: Coordinate, filter: ExpenseFilter) throws -> [ExpenseHit] {
        let (conditions, arguments) = StoredRows.conditions(for: filter, firstParameter: 5)  // ?1–?4 are the box
        // Two access paths, the same boxes and the same exact refinement:
        // - one user's expenses: the (user_id, lat, lon) index, so other users' points in the box
        //   are never read (with 1,000 users, the R*Tree box holds ~1,000× more foreign rows);
        // - all users: SpatiaLite's R*Tree, joined directly on its bounding-box columns.
        let source = filter.userID == nil
            ? """
            idx_expenses_geom AS r JOIN expenses AS e ON e.pk = r.pkid
            LEFT JOIN categories AS c ON c.id = e.category_id
            WHERE r.xmin <= ?2 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?3
            """
            : """
            expenses AS e INDEXED BY expenses_user_place
            LEFT JOIN categories AS c ON c.id = e.category_id
            WHERE e.lat BETWEEN ?3 AND ?4 AND e.lon BETWEEN ?1 AND ?2
            """
        let sql = """
            SELECT \(StoredRows.expenseColumns)
            FROM \(source)
            \(conditions.map { "AND " + $0 }.joined(separator: " "))
            """
        let boxes = SearchBox.boxes(around: center, radius: radius)
        return try read { db in
            let statement = RawStatement(try db.cachedStatement(sql: sql))
            var hits: [ExpenseHit] = []
            for box in boxes {
                statement.reset()
                statement.bind(1, box.west); statement.bind(2, box.east)
                statement.bind(3, box.south); statement.bind(4, box.north)
                for apply in arguments { apply(statement) }
                while try statement.step(db) {
                    let lat = statement.double(12), lon = statement.double(13)
                    let d = Geodesic.distance(latitude1: center.latitude, longitude1: center.longitude, latitude2: lat, longitude2: lon)
                    guard d <= radius.meters else { continue }
                    hits.append(ExpenseHit(expense: try StoredRows.decodeExpense(statement), distanceMeters: d))
                }
            }
            statement.reset()
            Ranking.sortByDistance(&hits)
            return hits
        }
    }
}
