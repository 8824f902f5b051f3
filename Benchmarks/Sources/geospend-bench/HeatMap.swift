import Foundation
import GeoSpend
import GeoSpendSpatiaLite

/// The grid heat maps (250 m cells, all users, kind expense, the most common currency) written as
/// GeoJSON files: hexagons by GeoSpend and PostGIS, squares by GeoSpend and DuckDB
/// (Benchmarks/duckdb/engine.py), with the cells each one produced.
enum HeatMap {
    static let cellMeters = 250.0

    struct Layer {
        var cells: [CellTotal]
        /// The layer's projection (PROJ string) and currency, from GeoSpend's provenance member;
        /// PostGIS is given the same so both grids have the same cells.
        var projection: String
        var currency: String
        var bytes: Int

        /// The grid's origin, read from the projection's +lat_0 and +lon_0.
        var origin: Coordinate? {
            func value(_ key: String) -> Double? {
                projection.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Double($0.dropFirst(key.count + 1)) }
            }
            guard let lat = value("+lat_0"), let lon = value("+lon_0") else { return nil }
            return Coordinate(uncheckedLatitude: lat, longitude: lon)
        }
    }

    /// Timed in-process export to `path`; returns the duration and the layer read back. By
    /// default the layer's currency and origin are GeoSpend's choice (the most common currency,
    /// its extent's centre); `currency` and `origin` fix them.
    static func geoSpend(
        _ store: SpatiaLiteStore, shape: MetricGrid.Shape = .hex, currency: String? = nil, origin: Coordinate? = nil, to path: String
    ) throws -> (Double, Layer) {
        var filter = ExpenseFilter(userID: nil, kinds: [.expense])
        filter.currency = try currency.map { try Currency(code: $0) }
        let request = MapExportRequest(filter: filter, minUsers: 1, origin: origin)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw BenchFailure("cannot write \(path)") }
        defer { close(fd) }
        let sink = ByteSink(descriptor: fd)
        let start = ContinuousClock.now
        try store.readHere { try MapExport.geoJSON(.grid(shape, cellMeters: cellMeters, metric: .total), request, reader: $0, to: sink) }
        try sink.flush()
        let millis = LatencyRecorder.milliseconds(ContinuousClock.now - start)
        return (millis, try read(path))
    }

    /// GeoSpend's layer file read back: cell ids `hex-250m@LAT,LON:i,j` carry PostGIS's (i, j),
    /// `square-250m@LAT,LON:i,j` the square's (floor(x / s), floor(y / s)).
    static func read(_ path: String) throws -> Layer {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let provenance = root["geospend"] as? [String: Any], let grid = provenance["grid"] as? [String: Any],
              let projection = grid["projection"] as? String, let currency = provenance["currency"] as? String,
              let features = root["features"] as? [[String: Any]]
        else { throw BenchFailure("\(path) is not a GeoSpend grid layer") }
        let minorPerMajor = Double(try Currency(code: currency).minorUnitsPerMajor)
        let cells = features.map { feature -> CellTotal in
            let properties = feature["properties"] as! [String: Any]
            let id = properties["cell_id"] as! String
            let ij = id[id.index(after: id.lastIndex(of: ":")!)...].split(separator: ",").map { Int($0)! }
            let total = (properties["total"] as! NSNumber).doubleValue
            return CellTotal(i: ij[0], j: ij[1], count: (properties["count"] as! NSNumber).intValue, totalMinor: Int64((total * minorPerMajor).rounded()))
        }
        return Layer(cells: cells, projection: projection, currency: currency, bytes: data.count)
    }

    /// Registers GeoSpend's projection as SRID 990001 and builds the GiST expression index the
    /// PostGIS grid join needs (returned: its build time in ms, reported apart from the import).
    static func preparePostGIS(_ connection: PostgresConnection, projection: String) throws -> Double {
        try connection.execute("DELETE FROM spatial_ref_sys WHERE srid = 990001")
        try connection.execute("""
            INSERT INTO spatial_ref_sys (srid, auth_name, auth_srid, proj4text, srtext)
            VALUES (990001, 'geospend', 990001, '\(projection) +no_defs', '')
            """)
        try connection.execute("DROP INDEX IF EXISTS expenses_laea")
        let start = ContinuousClock.now
        try connection.execute("CREATE INDEX expenses_laea ON expenses USING gist (ST_Transform(geog::geometry, 990001))")
        try connection.execute("ANALYZE expenses")
        let millis = LatencyRecorder.milliseconds(ContinuousClock.now - start)
        // The PostGIS documentation's hexagon heat map: ST_HexagonGrid over the points' extent,
        // joined on ST_Intersects through the GiST index, one GeoJSON Feature per cell.
        try connection.prepare("hexgrid", """
            WITH points AS (
                SELECT ST_Transform(geog::geometry, 990001) AS g, amount FROM expenses
                WHERE kind = 'expense' AND currency = $1 AND geog IS NOT NULL),
            cells AS (
                SELECT h.i, h.j, count(*) AS count, sum(e.amount) AS total, avg(e.amount) AS average, h.geom
                FROM ST_HexagonGrid(\(cellMeters), (SELECT ST_SetSRID(ST_Extent(g), 990001) FROM points)) AS h
                JOIN expenses AS e ON ST_Intersects(ST_Transform(e.geog::geometry, 990001), h.geom)
                WHERE e.kind = 'expense' AND e.currency = $1
                GROUP BY h.i, h.j, h.geom)
            SELECT i, j, count, total,
                   ST_AsGeoJSON(t.*, 'geom', 6) FROM (
                SELECT i, j, count, total, average, ST_Transform(geom, 4326) AS geom FROM cells) AS t
            """)
        return millis
    }

    /// Timed PostGIS run: the query, its rows read and written to `path` as a FeatureCollection.
    static func postGIS(_ connection: PostgresConnection, currency: String, to path: String) throws -> (Double, [CellTotal]) {
        guard let file = fopen(path, "w") else { throw BenchFailure("cannot write \(path)") }
        defer { fclose(file) }
        var cells: [CellTotal] = []
        let start = ContinuousClock.now
        fputs("{\"type\":\"FeatureCollection\",\"features\":[\n", file)
        try connection.query("hexgrid", [currency]) { row in
            if !cells.isEmpty { fputs(",\n", file) }
            fputs(row.string(4), file)
            cells.append(CellTotal(i: row.int(0), j: row.int(1), count: row.int(2), totalMinor: try minorUnits(row.string(3), currency: currency)))
        }
        fputs("\n]}\n", file)
        fflush(file)
        return (LatencyRecorder.milliseconds(ContinuousClock.now - start), cells)
    }
}
