import Foundation
import GeoSpend
import Logging
import PostgresNIO

/// The queries of one read scope on PostgreSQL.
///
/// PostGIS finds candidates, GeoSpend decides: the spatial predicates run on the sphere
/// (`ST_DWithin(…, false)`, `<->`), widened by `SphereBound`, and every distance that reaches an
/// answer is the project's own geodesic on WGS 84 (`Geodesic.distance`), ranked by `Ranking`, as
/// on the file: the same rows, distances and order to the bit. Expenses come in insertion
/// order (`pk`), as the file's rowid order gives them.
struct PostGISReader: ExpenseReader {
    let connection: PostgresConnection
    let logger: Logger
    /// The connection's prepared statements.
    let statements: PreparedStatements

    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        let (connection, logger) = (self.connection, self.logger)
        return try waitFor(on: connection) { try await connection.query(query, logger: logger).collect() }
    }

    /// The rows of `statement`, by its plan kept on this connection where there is one.
    func rows(_ statement: PostGISStatement) throws -> [PostgresRow] {
        try statements.rows(of: statement, on: connection, logger: logger) ?? rows(statement.query)
    }

    // MARK: Places

    func expenses(within radius: Distance, of center: Coordinate, filter: ExpenseFilter) throws -> [ExpenseHit] {
        var w = try PostGISFilter(filter)
        w.add("ST_DWithin(e.geog, \(w.point(center)), \(w.bind(SphereBound.candidateRadius(radius.meters))), false)")
        return try rows(w.query("SELECT \(PostGISRows.expenseColumns) FROM expenses AS e \(PostGISRows.categoryJoin)", suffix: ""))
            .map { try PostGISRows.expense($0.makeRandomAccess()) }
            .map { ExpenseHit(expense: $0, distanceMeters: Geodesic.distance(center, $0.location!.coordinate)) }
            .filter { $0.distanceMeters <= radius.meters }
            .sorted(by: Ranking.byDistance)
    }

    /// PostGIS's `<->` ranks by sphere distance, not the spheroid's, so the stores it finds
    /// nearest are only candidates. One statement takes `limit` + 10 of them in the index's
    /// `<->` order, as PostGIS's own nearest-neighbour idiom does, with each one's sphere
    /// distance. Ranked by `Geodesic`, they hold the true `limit` nearest when the last of them
    /// is farther on the sphere than the k-th nearest could be (`SphereBound.sphereReach`): every
    /// store left out is at least that far on the sphere, so farther on the spheroid. Else (the
    /// candidates about equally far, as far from any town) the statement runs again for four
    /// times as many, in the same order. StoreContractTests checks both against a scan.
    ///
    /// Going on in `<->` order reads only the stores it returns. A second statement that took
    /// every store within that reach by `ST_DWithin` read 11,232 rows of the index's bounding
    /// box at 110 km to return 17 (18 ms, against 0.7 ms for 200 in `<->` order;
    /// docs/MEASUREMENTS.md § Chained read transactions).
    func nearestStores(to center: Coordinate, limit: Int, maxDistance: Distance?, kind: String?) throws -> [StoreHit] {
        guard limit > 0 else { return [] }
        var taken = limit <= Int.max - 10 ? limit + 10 : limit
        while true {
            var w = PostGISFilter()
            let here = w.point(center)
            if let kind { w.add("s.kind = \(w.bind(kind))") }
            if let maxDistance { w.add("ST_DWithin(s.geog, \(here), \(w.bind(SphereBound.candidateRadius(maxDistance.meters))), false)") }
            // `taken` is in the text: a generic plan guesses a tenth of the table for `LIMIT $n`
            // and scanned every store (63 ms against 0.2 ms), so each count has a plan of its own.
            let found = try rows(w.query(
                "SELECT \(PostGISRows.storeColumns), s.geog <-> \(here) FROM stores AS s", suffix: "ORDER BY s.geog <-> \(here) LIMIT \(taken)"))
            var reach = 0.0  // the farthest candidate's sphere distance (the last, in `<->` order)
            let hits = try found.map { row in
                let r = row.makeRandomAccess()
                let store = try PostGISRows.store(r)
                reach = max(reach, try r[r.count - 1].decode(Double.self))
                return StoreHit(store: store, distanceMeters: Geodesic.distance(center, store.coordinate))
            }
            .filter { hit in maxDistance.map { hit.distanceMeters <= $0.meters } ?? true }
            .sorted(by: Ranking.byDistance)
            let everyStore = found.count < taken  // no store (of the kind, within reach of maxDistance) was left out
            if everyStore || hits.count >= limit && reach > SphereBound.sphereReach(of: hits[limit - 1].distanceMeters, around: center) {
                return Array(hits.prefix(limit))
            }
            taken = taken <= Int.max / 4 ? taken * 4 : Int.max  // at Int.max, fewer are always found
        }
    }

    func stores(within radius: Distance, of center: Coordinate, kind: String?) throws -> [StoreHit] {
        try stores(within: radius.meters, of: center, kind: kind)
    }

    private func stores(within meters: Double, of center: Coordinate, kind: String?) throws -> [StoreHit] {
        var w = PostGISFilter()
        w.add("ST_DWithin(s.geog, \(w.point(center)), \(w.bind(SphereBound.candidateRadius(meters))), false)")
        if let kind { w.add("s.kind = \(w.bind(kind))") }
        return try rows(w.query("SELECT \(PostGISRows.storeColumns) FROM stores AS s", suffix: ""))
            .map { try PostGISRows.store($0.makeRandomAccess()) }
            .map { StoreHit(store: $0, distanceMeters: Geodesic.distance(center, $0.coordinate)) }
            .filter { $0.distanceMeters <= meters }
            .sorted(by: Ranking.byDistance)
    }

    func counts() throws -> StoreCounts {
        let row = try rows("""
            SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM expenses),
                   (SELECT count(*) FROM expenses WHERE lat IS NOT NULL), (SELECT count(*) FROM stores)
            """)[0]
        let (users, expenses, geotagged, stores) = try row.decode((Int64, Int64, Int64, Int64).self)
        return StoreCounts(users: Int(users), expenses: Int(expenses), geotaggedExpenses: Int(geotagged), stores: Int(stores))
    }

    // MARK: Whole layers, in batches

    func forEachSpendingPointBatch(_ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: ([SpendingPoint]) throws -> Void) throws {
        let merchant = filter.readsMerchant ? "e.merchant" : "NULL::text"
        try inBatches(filter, geotaggedOnly: geotaggedOnly, columns: """
            e.id, e.user_id, e.store_id, e.lat, e.lon, e.kind, e.amount_minor, e.currency, e.occurred_ms, e.utc_offset_min, c.name, \(merchant)
            """) { r in
            let kind = try r[5].decode(String.self)
            let lat = try r[3].decode(Double?.self), lon = try r[4].decode(Double?.self)
            return SpendingPoint(
                id: try r[0].decode(String.self), userID: try r[1].decode(String.self), storeID: try r[2].decode(String?.self),
                coordinate: lat.flatMap { lat in lon.map { Coordinate(uncheckedLatitude: lat, longitude: $0) } },
                kind: ExpenseKind(rawValue: kind) ?? .expense,
                amountMinor: try r[6].decode(Int64.self), currency: try Currency(code: try r[7].decode(String.self)),
                occurredMilliseconds: try r[8].decode(Int64.self), utcOffsetMinutes: try r[9].decode(Int32?.self).map(Int.init),
                category: try r[10].decode(String?.self), merchant: try r[11].decode(String?.self))
        } body: { try body($0) }
    }

    func forEachLocatedAmountBatch(_ filter: ExpenseFilter, withUsers: Bool, _ body: ([LocatedAmount]) throws -> Void) throws {
        try inBatches(filter, geotaggedOnly: true, columns: "e.lat, e.lon, e.amount_minor, e.currency, e.user_id") { r in
            LocatedAmount(
                latitude: try r[0].decode(Double.self), longitude: try r[1].decode(Double.self), amountMinor: try r[2].decode(Int64.self),
                currencyKey: LocatedAmount.currencyKey(try Currency(code: try r[3].decode(String.self))),
                userKey: withUsers ? LocatedAmount.userKey(try r[4].decode(String.self)) : 0)
        } body: { try body($0) }
    }

    /// The rows of `filter` in `pk` order, `ReadBatch.size` at a time by keyset (`pk > last`):
    /// within the scope's snapshot the batches join up exactly, and no batch holds more than
    /// one round trip's rows in memory. `pk` is read as the last column. `storeColumns`: columns
    /// of each row's store (`s`, NULL without one) before the others; `columns` then name
    /// `e.store_id`.
    func inBatches<Row>(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, columns: String, storeColumns: String? = nil,
        decode: (PostgresRandomAccessRow) throws -> Row, body: ([Row]) throws -> Void
    ) throws {
        var last: Int64 = 0
        while true {
            var w = try PostGISFilter(filter)
            if geotaggedOnly { w.add("e.lat IS NOT NULL") }
            w.add("e.pk > \(w.bind(last))")
            let select = "SELECT \(columns), e.pk FROM expenses AS e \(PostGISRows.categoryJoin)", order = "ORDER BY e.pk LIMIT \(ReadBatch.size)"
            // Each row's store is looked up by its id after the batch is taken (LATERAL, LIMIT 1:
            // never joined as a set). Joined into the batch, the stores' cost estimate made
            // PostgreSQL gather two parallel workers for a user's 87 rows (7.3 ms against
            // 0.26 ms); joined to the batch, it hashed all 50,000 stores for the generic plan's
            // guess of 2,620 rows (24 ms against 3.0 ms for 958 rows at 1M expenses;
            // docs/MEASUREMENTS.md § Store labels with the rows).
            let found = try rows(
                storeColumns.map { stores in
                    w.query(
                        "SELECT \(stores), b.* FROM (\(select)",
                        suffix: """
                            \(order)) AS b LEFT JOIN LATERAL (SELECT \(stores) FROM stores AS s WHERE s.id = b.store_id LIMIT 1) AS s ON true \
                            ORDER BY b.pk
                            """)
                } ?? w.query(select, suffix: order))
            guard !found.isEmpty else { return }
            var batch: [Row] = []
            batch.reserveCapacity(found.count)
            for row in found {
                let r = row.makeRandomAccess()
                batch.append(try decode(r))
                last = try r[r.count - 1].decode(Int64.self)
            }
            try body(batch)
            if found.count < ReadBatch.size { return }
        }
    }

    // MARK: Lookups

    /// The centre of the box around every geotagged expense (the file reads it from its R*Tree's
    /// root; here one index-assisted aggregate).
    func geotaggedCenterHint() throws -> Coordinate? {
        let row = try rows("SELECT min(lat), max(lat), min(lon), max(lon) FROM expenses WHERE lat IS NOT NULL")[0]
        let (south, north, west, east) = try row.decode((Double?, Double?, Double?, Double?).self)
        guard let south, let north, let west, let east else { return nil }
        return Coordinate(uncheckedLatitude: (south + north) / 2, longitude: (west + east) / 2)
    }

    func stores(withIDs ids: Set<String>) throws -> [String: Store] {
        guard !ids.isEmpty else { return [:] }
        var w = PostGISFilter()
        w.add("s.id = ANY(\(w.bind(Array(ids))))")
        let found = try rows(w.query("SELECT \(PostGISRows.storeColumns) FROM stores AS s", suffix: ""))
        return Dictionary(try found.map { let s = try PostGISRows.store($0.makeRandomAccess()); return (s.id, s) }, uniquingKeysWith: { a, _ in a })
    }

    func timestamps(ofExpenses ids: Set<String>, userID: String) throws -> [String: Timestamp] {
        guard !ids.isEmpty else { return [:] }
        var w = PostGISFilter()
        w.add("e.user_id = \(w.bind(userID))")
        w.add("e.id = ANY(\(w.bind(Array(ids))))")
        let found = try rows(w.query("SELECT e.id, e.occurred_at, e.occurred_ms, e.utc_offset_min, e.local_date FROM expenses AS e", suffix: ""))
        return Dictionary(try found.map { row in
            let (id, text, ms, offset, day) = try row.decode((String, String, Int64, Int32?, String).self)
            return (id, Timestamp(text: text, epochMilliseconds: ms, utcOffsetMinutes: offset.map(Int.init), localDate: day))
        }, uniquingKeysWith: { a, _ in a })
    }

    func expensesWithoutStore(userID: String?) throws -> [UnsnappedExpense] {
        var w = PostGISFilter()
        w.add("e.store_id IS NULL")
        w.add("e.lat IS NOT NULL")
        if let userID { w.add("e.user_id = \(w.bind(userID))") }
        return try rows(w.query("SELECT e.id, e.lat, e.lon, e.accuracy_m, e.merchant, e.user_id FROM expenses AS e", suffix: "ORDER BY e.id, e.user_id"))
            .map { row in
                let (id, lat, lon, accuracy, merchant, user) = try row.decode((String, Double, Double, Double?, String?, String).self)
                return UnsnappedExpense(
                    id: id, userID: user, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), accuracyMeters: accuracy, merchant: merchant)
            }
    }

    func positionSources(_ filter: ExpenseFilter) throws -> [String: PositionSource] {
        guard let userID = filter.userID else { return [:] }
        var w = try PostGISFilter(ExpenseFilter(userID: userID, from: filter.from, to: filter.to))
        w.add("e.position_source IS NOT NULL")
        w.add("e.position_source <> 'device'")
        var sources: [String: PositionSource] = [:]
        for row in try rows(w.query("SELECT e.id, e.position_source FROM expenses AS e", suffix: "")) {
            let (id, source) = try row.decode((String, String).self)
            if let s = PositionSource(rawValue: source) { sources[id] = s }
        }
        return sources
    }

    func allStores(kind: String?) throws -> [Store] {
        var w = PostGISFilter()
        if let kind { w.add("s.kind = \(w.bind(kind))") }
        return try rows(w.query("SELECT \(PostGISRows.storeColumns) FROM stores AS s", suffix: "ORDER BY s.id"))
            .map { try PostGISRows.store($0.makeRandomAccess()) }
    }
}

/// What exists to be named on the command line; orders by bytes (`COLLATE "C"`), as the file's.
extension PostGISReader {
    func hasUser(_ id: String) throws -> Bool {
        var w = PostGISFilter()
        w.add("u.id = \(w.bind(id))")
        return try !rows(w.query("SELECT 1 FROM users AS u", suffix: "")).isEmpty
    }

    func userIDs() throws -> [String] {
        try rows("SELECT id FROM users ORDER BY id").map { try $0.decode(String.self) }
    }

    func categoryCounts(userID: String?) throws -> [CategoryCount] {
        var w = PostGISFilter()
        if let userID { w.add("c.user_id = \(w.bind(userID))") }
        return try rows(w.query(
            "SELECT c.name, c.kind, (SELECT count(*) FROM expenses AS e WHERE e.category_id = c.id) FROM categories AS c",
            suffix: #"ORDER BY c.kind COLLATE "C", c.name COLLATE "C", c.user_id"#)
        ).map { row in
            let (name, kind, n) = try row.decode((String, String, Int64).self)
            return CategoryCount(name: name, kind: Category.Kind(rawValue: kind) ?? .expense, expenses: Int(n))
        }
    }

    func storeKindCounts() throws -> [StoreKindCount] {
        try rows(#"SELECT kind, count(*) AS n FROM stores GROUP BY kind ORDER BY kind IS NULL, n DESC, kind COLLATE "C""#).map { row in
            let (kind, n) = try row.decode((String?, Int64).self)
            return StoreKindCount(kind: kind, stores: Int(n))
        }
    }
}

/// How far the sphere may stray from the spheroid, so that sphere-distance candidates can never
/// miss a point within a spheroid distance.
///
/// Map each point of WGS 84 to the sphere PostGIS uses (radius 6,371,008.8 m) at the same
/// latitude and longitude. Along the meridian the ellipsoid's radius of curvature runs from
/// 6,335,439 m (equator) to 6,399,594 m (poles), across it from 6,378,137 to 6,399,594 m, so
/// the map stretches any length by at most 6,371,008.8 / 6,335,439 = 1.00562. The sphere's
/// distance between two points is at most the length of the image of the spheroid's geodesic,
/// hence at most 1.00562 times the spheroid distance. 1.01 and a metre of slack cover it with room.
enum SphereBound {
    static let factor = 1.01, slackMeters = 1.0

    /// At most how many times its spheroid length the sphere makes a path that stays within
    /// `meters` (on the spheroid) of a point at `latitude`. The map above stretches a length by
    /// at most the sphere's radius over the meridian's radius of curvature M(φ) (never more
    /// than N(φ) across), and M grows away from the equator. Such a path keeps within `meters`
    /// / 6,335,439 radians of `latitude` (no path between two parallels is shorter than the
    /// meridian's arc, whose radius is never below M(0)), so M at the band's edge nearest the
    /// equator bounds it. At 60° and a few kilometres that is 0.998: the sphere shortens there.
    static func stretch(latitude: Double, within meters: Double) -> Double {
        let (a, e2, sphere, equatorM) = (6_378_137.0, 0.006_694_379_990_14, 6_371_008.8, 6_335_439.0)
        let nearest = max(0, abs(latitude) * .pi / 180 - meters / equatorM)
        let s = sin(nearest)
        let m = a * (1 - e2) / pow(1 - e2 * s * s, 1.5)
        return sphere / m
    }

    /// The sphere distance beyond which every point is farther than `meters` on the spheroid
    /// from `center`, with a ten-thousandth and a centimetre to spare for rounding and for the
    /// exact radius PostGIS takes.
    static func sphereReach(of meters: Double, around center: Coordinate) -> Double {
        meters * stretch(latitude: center.latitude, within: meters) * 1.0001 + 0.01
    }

    static func candidateRadius(_ meters: Double) -> Double { meters * factor + slackMeters }
}
