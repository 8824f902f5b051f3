// The benchmark harness behind `make bench` / `make bench-quick` (run through scripts/bench.sh).
//
//   geospend-bench compare --expenses CSV --stores CSV --work DIR --postgres CONNINFO
//                          --geospend BIN --python VENV_PYTHON --json OUT [--queries N] [--import-runs R]
//       imports the CSVs into GeoSpend, PostGIS and DuckDB (Benchmarks/duckdb/, run with
//       VENV_PYTHON), runs the same query list against GeoSpend, PostGIS, SpatiaLite's documented
//       way and DuckDB, cross-checks every answer, writes OUT; exits 1 if any PostGIS or DuckDB
//       answer differs from GeoSpend's.
//   geospend-bench render JSON...              markdown tables of result files (RESULTS.md)
//   geospend-bench insights DATABASE USER      insights of one heavy user (GeoSpend only)
//   geospend-bench store-report DATABASE       reports for the 200 busiest stores (GeoSpend only)
//   geospend-bench points-export DATABASE DIR  the all-users points layer to a file (GeoSpend only)
//   geospend-bench insights-per-store DATABASE [ENGINES [ROUNDS [ORDER]]]
//       "insights per store, one user" for compare's 200 users, GeoSpend and SpatiaLite's
//       documented SQL (ENGINES: both, geospend or spatialite), ROUNDS times (default 5);
//       ORDER "alternate" lets each engine go first for every other user (default: GeoSpend
//       first, as `compare` does, which warms the user's pages for the engine after it)
//   geospend-bench h3-layer DATABASE OUT RUNS
//       the all-users H3 res 9 heat layer written to OUT, RUNS times in one process after a
//       warm-up (scripts/bench-rollups.sh); prints {"millis": [...], "features": N}
//   geospend-bench pg-overhead POSTGRESQL_URL USER LAT LON [GAP_MS [POSTGIS_CONNINFO]]
//       what a read scope on PostgreSQL costs around its statements: postgres-nio alone
//       (SELECT 1, nearest stores), then scopes: empty, one and two prepared statements, a
//       radius query, nearest stores, the user's spending columns, insights per store, an
//       unprepared one (docs/MEASUREMENTS.md); GAP_MS: the calling thread computes that long
//       before each run (as it runs the other engines' queries in `compare`), 300 runs instead
//       of 2,000; POSTGIS_CONNINFO (the database `compare` loaded): PostGIS's own radius and
//       nearest SQL at the same point, the same way, and libpq's SELECT 1
import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GRDB

func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: geospend-bench compare --expenses CSV --stores CSV --work DIR --postgres CONNINFO --geospend BIN --python VENV_PYTHON --json OUT [--queries N] [--import-runs R]
               geospend-bench render JSON...
               geospend-bench insights DATABASE USER | store-report DATABASE | points-export DATABASE DIR
               geospend-bench insights-per-store DATABASE [both|geospend|spatialite [ROUNDS [geospend-first|alternate]]]
               geospend-bench h3-layer DATABASE OUT RUNS
               geospend-bench pg-overhead POSTGRESQL_URL USER LAT LON [GAP_MS [POSTGIS_CONNINFO]]

        """.utf8))
    exit(2)
}

/// Options as `--name value` pairs.
func options(_ arguments: ArraySlice<String>) -> [String: String] {
    var result: [String: String] = [:]
    var i = arguments.startIndex
    while i < arguments.endIndex {
        guard arguments[i].hasPrefix("--"), i + 1 < arguments.endIndex else { usage() }
        result[String(arguments[i].dropFirst(2))] = arguments[i + 1]
        i += 2
    }
    return result
}

/// GeoSpend-only figures: `runs` timed calls after `warmup` untimed ones.
func timeGeoSpendOnly(_ name: String, runs: Int, warmup: Int, gapMs: Double = 0, _ body: () throws -> Int) rethrows {
    for _ in 0..<warmup { _ = try body() }
    var recorder = LatencyRecorder()
    for _ in 0..<runs {
        busy(milliseconds: gapMs)
        _ = try recorder.time(body, rowCount: { $0 })
    }
    let l = recorder.latency
    print(String(format: "%@ p50 %10.3f ms   p95 %10.3f ms   rows %.0f", name.padding(toLength: 44, withPad: " ", startingAt: 0), l.p50Ms, l.p95Ms, l.meanRows))
}

/// Keeps the calling thread computing for `milliseconds`.
func busy(milliseconds: Double) {
    guard milliseconds > 0 else { return }
    let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds * 1e6)
    while DispatchTime.now().uptimeNanoseconds < end {}
}

let arguments = CommandLine.arguments
do {
    switch arguments.dropFirst().first {
    case "compare":
        let o = options(arguments.dropFirst(2))
        guard let expenses = o["expenses"], let stores = o["stores"], let work = o["work"], let conninfo = o["postgres"],
              let geospend = o["geospend"], let python = o["python"], let json = o["json"] else { usage() }
        let compare = Compare(
            expensesCSV: expenses, storesCSV: stores, work: work, conninfo: conninfo, geospend: geospend,
            queries: Int(o["queries"] ?? "") ?? 500, importRuns: Int(o["import-runs"] ?? "") ?? 1,
            duckDB: DuckDBEngine(python: python, database: work + "/duckdb.duckdb"))
        let (results, failed) = try compare.run()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(results).write(to: URL(fileURLWithPath: json))
        print(ResultsTable.markdown([results]))
        if failed {
            progress("FAILED: PostGIS or DuckDB answered differently from GeoSpend (see the answers column)")
            exit(1)
        }
    case "pg-overhead" where (6...8).contains(arguments.count):
        // What a read scope on PostgreSQL costs around its statements (docs/MEASUREMENTS.md §
        // Prepared statements on PostgreSQL): URL of a GeoSpend database, a user, a point.
        let store = try blocking { try await PostGISStore(PostGISAddress(arguments[2])) }
        let user = arguments[3]
        guard let lat = Double(arguments[4]), let lon = Double(arguments[5]) else { usage() }
        let here = try Coordinate(latitude: lat, longitude: lon)
        guard let gapMs = arguments.count >= 7 ? Double(arguments[6]) : 0, gapMs >= 0, gapMs <= 1000 else { usage() }
        // Each run after a gap on the calling thread (docs/MEASUREMENTS.md § Idle threads).
        func timeGeoSpendOnly(_ name: String, runs: Int, warmup: Int, _ body: () throws -> Int) throws {
            try geospend_bench.timeGeoSpendOnly(
                name + (gapMs > 0 ? String(format: ", %.0f ms gap", gapMs) : ""), runs: gapMs > 0 ? min(runs, 300) : runs,
                warmup: warmup, gapMs: gapMs, body)
        }
        try timeGeoSpendOnly("blocking, nothing", runs: 2000, warmup: 100) { try blocking { 0 } }
        try DriverAlone.run(url: arguments[2], here: (lat, lon)) { name, body in try timeGeoSpendOnly(name, runs: 2000, warmup: 100, body) }
        try timeGeoSpendOnly("read scope, empty body", runs: 2000, warmup: 100) { try blocking { try await store.read { _ in 0 } } }
        try timeGeoSpendOnly("read scope, hasUser", runs: 2000, warmup: 100) {
            try blocking { try await store.read { try $0.hasUser(user) ? 1 : 0 } }
        }
        try timeGeoSpendOnly("read scope, hasUser twice", runs: 2000, warmup: 100) {
            try blocking { try await store.read { try $0.hasUser(user) && $0.hasUser(user) ? 1 : 0 } }
        }
        try timeGeoSpendOnly("read scope, radius 50 m of the user", runs: 2000, warmup: 100) {
            try blocking { try await store.read { try $0.expenses(within: .meters(50), of: here, filter: ExpenseFilter(userID: user)).count } }
        }
        try timeGeoSpendOnly("read scope, nearest 5 stores", runs: 2000, warmup: 100) {
            try blocking { try await store.read { try $0.nearestStores(to: here, limit: 5, maxDistance: nil, kind: nil).count } }
        }
        try timeGeoSpendOnly("read scope, the user's spending columns", runs: 500, warmup: 20) {
            try blocking { try await store.read { try $0.spendingColumns(ExpenseFilter(userID: user, kinds: [.expense])).count } }
        }
        try timeGeoSpendOnly("read scope, insights per store of the user", runs: 500, warmup: 20) {
            try blocking { try await store.read { try LocationInsights.compute(InsightsRequest(userID: user, grouping: .store), reader: $0).places.count } }
        }
        try timeGeoSpendOnly("read scope, userIDs (unprepared)", runs: 500, warmup: 20) { try blocking { try await store.read { try $0.userIDs().count } } }
        if arguments.count == 8 {
            let postgis = try PostGISEngine(conninfo: arguments[7])
            try timeGeoSpendOnly("PostGIS's SQL, radius 50 m of the user", runs: 2000, warmup: 100) {
                try postgis.radius(here, meters: 50, user: user).count
            }
            try timeGeoSpendOnly("PostGIS's SQL, nearest 5 stores", runs: 2000, warmup: 100) { try postgis.nearest(here, k: 5).count }
            try timeGeoSpendOnly("libpq, SELECT 1", runs: 2000, warmup: 100) { try postgis.connection.execute("SELECT 1").count }
        }
    case "render":
        let runs = try arguments.dropFirst(2).map { try JSONDecoder().decode(BenchResults.self, from: Data(contentsOf: URL(fileURLWithPath: $0))) }
        print(ResultsTable.markdown(runs))
    case "insights" where arguments.count == 4:
        let store = try SpatiaLiteStore(path: arguments[2], readOnly: true)
        try timeGeoSpendOnly("insights, one heavy user, all places", runs: 20, warmup: 2) {
            try store.readHere { try LocationInsights.compute(InsightsRequest(userID: arguments[3]), reader: $0) }.places.count
        }
    case "insights-per-store" where (3...6).contains(arguments.count):
        try InsightsPerStore.run(
            database: arguments[2], engines: arguments.count > 3 ? arguments[3] : "both",
            rounds: arguments.count > 4 ? Int(arguments[4]) ?? 5 : 5, alternate: arguments.count > 5 && arguments[5] == "alternate")
    case "h3-layer" where arguments.count == 5:
        guard let runs = Int(arguments[4]), runs > 0 else { usage() }
        try RollupLayer.run(database: arguments[2], out: arguments[3], runs: runs)
    case "store-report" where arguments.count == 3:
        let store = try SpatiaLiteStore(path: arguments[2], readOnly: true)
        let busiest = try store.readDatabase { db in
            try String.fetchAll(db, sql: "SELECT store_id FROM expenses WHERE store_id IS NOT NULL GROUP BY store_id ORDER BY count(*) DESC LIMIT 200")
        }
        var next = 0
        try timeGeoSpendOnly("store report, 200 busiest stores", runs: 200, warmup: 20) {
            defer { next += 1 }
            return try store.readHere { try StoreReport.compute(StoreReportRequest(storeID: busiest[next % busiest.count]), reader: $0) }.sections.count
        }
    case "points-export" where arguments.count == 4:
        let store = try SpatiaLiteStore(path: arguments[2], readOnly: true)
        let request = MapExportRequest(filter: ExpenseFilter(userID: nil, kinds: [.expense]), minUsers: 1)
        let path = arguments[3] + "/bench-points.geojson"
        defer { unlink(path) }
        try timeGeoSpendOnly("export points, all users (file)", runs: 7, warmup: 0) {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            defer { close(fd) }
            let sink = ByteSink(descriptor: fd)
            let summary = try store.readHere { try MapExport.geoJSON(.points, request, reader: $0, to: sink) }
            try sink.flush()
            return summary.features
        }
    default:
        usage()
    }
} catch {
    progress("error: \(error)")
    exit(1)
}
