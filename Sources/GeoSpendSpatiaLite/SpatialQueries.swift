import GeoSpend
import GRDB

/// Radius queries: the R*Tree is queried directly with the circle's bounding boxes
/// (`SearchBox`), and every candidate is refined with its exact geodesic distance (nearest
/// stores: NearestStores.swift).
/// Not SpatiaLite's `SpatialIndex`/`KNN` virtual tables: they cost milliseconds per query and
/// `KNN` is wrong across ±180° (docs/MEASUREMENTS.md § SpatiaLite's KNN and SpatialIndex).
extension SpatiaLiteStore {
    static let expenseColumns = """
        e.id, e.user_id, e.kind, e.amount_minor, e.currency, e.occurred_at, e.occurred_ms, e.utc_offset_min,
        e.local_date, e.title, c.name, e.merchant, e.lat, e.lon, e.accuracy_m, e.store_id, e.notes
        """

    /// - Complexity: O(log n + c) index work for c candidates in the box, plus one geodesic
    ///   distance per candidate.
    public func expenses(within radius: Distance, of center: Coordinate, filter: ExpenseFilter) throws -> [ExpenseHit] {
        let (conditions, arguments) = Self.conditions(for: filter, firstParameter: 5)  // ?1–?4 are the box
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
            SELECT \(Self.expenseColumns)
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
                    hits.append(ExpenseHit(expense: try Self.decodeExpense(statement), distanceMeters: d))
                }
            }
            statement.reset()
            return hits.sorted(by: Ranking.byDistance)
        }
    }

    /// SQL conditions (on `e` = expenses, `c` = categories) and their bindings for a filter,
    /// numbered from `firstParameter`. Shared by every query that takes an `ExpenseFilter`.
    static func conditions(for filter: ExpenseFilter, firstParameter: Int32) -> (sql: [String], bind: [(RawStatement) -> Void]) {
        var conditions: [String] = []
        var arguments: [(RawStatement) -> Void] = []
        var next = firstParameter
        func bind(_ apply: @escaping (RawStatement, Int32) -> Void) -> String {
            let index = next
            next += 1
            arguments.append { apply($0, index) }
            return "?\(index)"
        }
        if let user = filter.userID { conditions.append("e.user_id = \(bind { $0.bind($1, user) })") }
        if let from = filter.from {
            conditions.append(
                from.isDateOnly
                    ? "e.local_date >= \(bind { $0.bind($1, from.localDate) })"
                    : "e.occurred_ms >= \(bind { $0.bind($1, from.epochMilliseconds) })")
        }
        if let to = filter.to {
            conditions.append(
                to.isDateOnly
                    ? "e.local_date <= \(bind { $0.bind($1, to.localDate) })"
                    : "e.occurred_ms < \(bind { $0.bind($1, to.epochMilliseconds) })")
        }
        if !filter.kinds.isEmpty {
            let list = filter.kinds.sorted { $0.rawValue < $1.rawValue }.map { k in bind { $0.bind($1, k.rawValue) } }
            conditions.append("e.kind IN (\(list.joined(separator: ", ")))")
        }
        if let currency = filter.currency { conditions.append("e.currency = \(bind { $0.bind($1, currency.code) })") }
        if !filter.categories.isEmpty {
            let list = filter.categories.sorted().map { name in bind { $0.bind($1, name) } }
            conditions.append("c.name COLLATE NOCASE IN (\(list.joined(separator: ", ")))")
        }
        if !filter.storeIDs.isEmpty {
            let list = filter.storeIDs.sorted().map { id in bind { $0.bind($1, id) } }
            conditions.append("e.store_id IN (\(list.joined(separator: ", ")))")
        }
        if let period = filter.period {
            // Periods are numbered per user: the period of the expense's own user.
            conditions.append(
                "e.period_id = (SELECT p.pk FROM periods AS p WHERE p.user_id = e.user_id AND p.number = \(bind { $0.bind($1, period) }))")
        }
        return (conditions, arguments)
    }

    /// The columns `decodeStore` reads, in its order.
    static let storeColumns = "s.id, s.name, s.kind, s.brand, s.street, s.postcode, s.city, s.country, s.lat, s.lon, s.source_id"

    static func decodeStore(_ s: RawStatement) -> Store {
        Store(
            id: s.text(0) ?? "", name: s.text(1), kind: s.text(2), brand: s.text(3), street: s.text(4),
            postcode: s.text(5), city: s.text(6), country: s.text(7),
            coordinate: Coordinate(uncheckedLatitude: s.double(8), longitude: s.double(9)), sourceID: s.text(10))
    }

    /// Decodes a row of `expenseColumns`.
    static func decodeExpense(_ s: RawStatement) throws -> Expense {
        let currency = try Currency(code: s.text(4) ?? "")
        var location: ExpenseLocation?
        if !s.isNull(12) {
            location = ExpenseLocation(
                coordinate: Coordinate(uncheckedLatitude: s.double(12), longitude: s.double(13)),
                accuracyMeters: s.optionalDouble(14))
        }
        return Expense(
            id: s.text(0) ?? "", userID: s.text(1) ?? "", kind: ExpenseKind(rawValue: s.text(2) ?? "") ?? .expense,
            amount: Money(minorUnits: s.int64(3), currency: currency),
            occurredAt: Timestamp(
                text: s.text(5) ?? "", epochMilliseconds: s.int64(6), utcOffsetMinutes: s.optionalInt64(7).map { Int($0) },
                localDate: s.text(8) ?? ""),
            title: s.text(9), category: s.text(10), merchant: s.text(11), location: location,
            storeID: s.text(15), notes: s.text(16))
    }
}
