import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GRDB

/// The engines' names in results (JSON keys and table columns).
enum EngineName {
    static let geoSpend = "GeoSpend"
    static let postGIS = "PostGIS"
    static let spatiaLite = "SpatiaLite (documented)"
    static let duckDB = "DuckDB"
    static let geoSpendPostGIS = "GeoSpend on PostGIS"
}

/// What each engine answers in the comparison. Every call returns the rows an application would
/// get (ids, distances, totals), read into Swift values inside the timed call.
protocol Engine {
    var name: String { get }
    /// Expenses of any kind within `meters` of `center` (of one user, or of all when nil), nearest first.
    func radius(_ center: Coordinate, meters: Double, user: String?) throws -> [Found]
    /// The k stores nearest to `center`, nearest first.
    func nearest(_ center: Coordinate, k: Int) throws -> [Found]
    /// One user's spending (kind expense) per store and currency: count, total, average, median,
    /// min, max, first and last visit; the cross-check compares count and total.
    func insights(user: String) throws -> [StoreTotal]
}

/// GeoSpend through its library API, in-process.
struct GeoSpendEngine: Engine {
    let name = EngineName.geoSpend
    let store: SpatiaLiteStore

    func radius(_ center: Coordinate, meters: Double, user: String?) throws -> [Found] {
        try store.readHere { try $0.expenses(within: .meters(meters), of: center, filter: ExpenseFilter(userID: user)) }
            .map { Found(id: $0.expense.id, meters: $0.distanceMeters) }
    }

    func nearest(_ center: Coordinate, k: Int) throws -> [Found] {
        try store.readHere { try $0.nearestStores(to: center, limit: k, maxDistance: nil, kind: nil) }.map { Found(id: $0.store.id, meters: $0.distanceMeters) }
    }

    func insights(user: String) throws -> [StoreTotal] {
        try store.readHere { try LocationInsights.compute(InsightsRequest(userID: user, grouping: .store), reader: $0) }.places.map {
            StoreTotal(store: $0.place.id, currency: $0.currency.code, count: $0.count, totalMinor: $0.total.minorUnits)
        }
    }
}

/// PostgreSQL 15 + PostGIS 3 over one libpq connection with prepared statements
/// (tables from Benchmarks/postgis/load.sql).
final class PostGISEngine: Engine {
    let name = EngineName.postGIS
    let connection: PostgresConnection

    init(conninfo: String) throws {
        connection = try PostgresConnection(conninfo)
        try connection.execute("SET client_min_messages = warning")  // no NOTICEs on the bench's stderr
        let point = "ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography"
        let radiusColumns = """
            id, user_id, kind, amount, currency, occurred_at, title, category, merchant, lat, lon, store_id,
            ST_Distance(geog, \(point)) AS meters
            """
        try connection.prepare("radius_all", """
            SELECT \(radiusColumns) FROM expenses WHERE ST_DWithin(geog, \(point), $3) ORDER BY meters
            """)
        try connection.prepare("radius_user", """
            SELECT \(radiusColumns) FROM expenses WHERE user_id = $4 AND ST_DWithin(geog, \(point), $3) ORDER BY meters
            """)
        // PostGIS's nearest-neighbour idiom (GiST-driven `<->`). On geography `<->` is the
        // sphere's distance (7,413.8 m where ST_Distance's spheroid gives 7,429.1 m), which put a
        // store 0.3 m farther at rank 5 in the first run; so take k + 10 by `<->` and rank those
        // by ST_Distance. The cross-check catches any case where 10 spare candidates are too few.
        try connection.prepare("nearest", """
            SELECT id, name, kind, lat, lon, meters FROM (
                SELECT id, name, kind, lat, lon, ST_Distance(geog, \(point)) AS meters
                FROM stores ORDER BY geog <-> \(point) LIMIT $3 + 10) AS nearest
            ORDER BY meters, id LIMIT $3
            """)
        try connection.prepare("insights", """
            SELECT e.store_id, e.currency, count(*), sum(e.amount), avg(e.amount),
                   percentile_disc(0.5) WITHIN GROUP (ORDER BY e.amount), min(e.amount), max(e.amount),
                   min(e.occurred_at), max(e.occurred_at), min(s.name)
            FROM expenses e LEFT JOIN stores s ON s.id = e.store_id
            WHERE e.user_id = $1 AND e.kind = 'expense' AND e.store_id IS NOT NULL
            GROUP BY e.store_id, e.currency
            """)
    }

    func radius(_ center: Coordinate, meters: Double, user: String?) throws -> [Found] {
        var found: [Found] = []
        var parameters = [String(center.longitude), String(center.latitude), String(meters)]
        if let user { parameters.append(user) }
        try connection.query(user == nil ? "radius_all" : "radius_user", parameters) { row in
            found.append(Found(id: row.string(0), meters: row.double(12)))
            for c in 1..<12 where !row.isNull(c) { _ = row.string(c) }  // as an application reads the row
        }
        return found
    }

    func nearest(_ center: Coordinate, k: Int) throws -> [Found] {
        var found: [Found] = []
        try connection.query("nearest", [String(center.longitude), String(center.latitude), String(k)]) { row in
            found.append(Found(id: row.string(0), meters: row.double(5)))
            for c in 1..<5 where !row.isNull(c) { _ = row.string(c) }
        }
        return found
    }

    func insights(user: String) throws -> [StoreTotal] {
        var totals: [StoreTotal] = []
        try connection.query("insights", [user]) { row in
            let currency = row.string(1)
            totals.append(StoreTotal(store: row.string(0), currency: currency, count: row.int(2), totalMinor: try minorUnits(row.string(3), currency: currency)))
            for c in 4..<row.columnCount where !row.isNull(c) { _ = row.string(c) }
        }
        return totals
    }
}

/// SpatiaLite used the way its documentation shows, on GeoSpend's own file: the `SpatialIndex`
/// virtual table with `ST_Distance(…, 1)` (ellipsoid metres) for radius queries, the `KNN`
/// virtual table for nearest stores, a plain GROUP BY for insights.
struct SpatiaLiteDocumentedEngine: Engine {
    let name = EngineName.spatiaLite
    let store: SpatiaLiteStore

    private static let radiusSQL = """
        SELECT id, ST_Distance(geom, MakePoint(?1, ?2, 4326), 1) AS meters FROM expenses
        WHERE ROWID IN (SELECT ROWID FROM SpatialIndex WHERE f_table_name = 'expenses' AND f_geometry_column = 'geom'
                        AND search_frame = BuildMbr(?3, ?4, ?5, ?6, 4326))
          AND meters <= ?7
        """

    func radius(_ center: Coordinate, meters: Double, user: String?) throws -> [Found] {
        // The circle's boxes from GeoSpend's SearchBox (the documented `BuildCircleMbr` takes a
        // radius in degrees and misses part of a metric circle: docs/MEASUREMENTS.md § A circle's bounding box).
        let sql = Self.radiusSQL + (user == nil ? "" : " AND user_id = ?8")
        return try store.readDatabase { db in
            let statement = try db.cachedStatement(sql: sql)
            var found: [Found] = []
            for box in SearchBox.boxes(around: center, radius: .meters(meters)) {
                var arguments: StatementArguments = [center.longitude, center.latitude, box.west, box.south, box.east, box.north, meters]
                if let user { arguments += [user] }
                let rows = try Row.fetchCursor(statement, arguments: arguments)
                while let row = try rows.next() { found.append(Found(id: row[0], meters: row[1])) }
            }
            return found.sorted { $0.meters < $1.meters }
        }
    }

    func nearest(_ center: Coordinate, k: Int) throws -> [Found] {
        try store.readDatabase { db in
            try Row.fetchAll(db, sql: """
                SELECT s.id, ST_Distance(s.geom, MakePoint(?1, ?2, 4326), 1) FROM KNN AS k JOIN stores AS s ON s.pk = k.fid
                WHERE k.f_table_name = 'stores' AND k.f_geometry_column = 'geom'
                  AND k.ref_geometry = MakePoint(?1, ?2, 4326) AND k.max_items = ?3
                ORDER BY k.pos
                """, arguments: [center.longitude, center.latitude, k])
                .map { Found(id: $0[0], meters: $0[1]) }
        }
    }

    func insights(user: String) throws -> [StoreTotal] {
        try store.readDatabase { db in
            // Median needs a window or a sort per group in SQLite; count and total are compared.
            try Row.fetchAll(db, sql: """
                SELECT store_id, currency, count(*), sum(amount_minor), avg(amount_minor), min(amount_minor),
                       max(amount_minor), min(occurred_at), max(occurred_at)
                FROM expenses WHERE user_id = ? AND kind = 'expense' AND store_id IS NOT NULL
                GROUP BY store_id, currency
                """, arguments: [user])
                .map { StoreTotal(store: $0[0], currency: $0[1], count: $0[2], totalMinor: $0[3]) }
        }
    }
}
