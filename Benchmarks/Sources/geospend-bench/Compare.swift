import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GRDB

/// `geospend-bench compare`: the same data into GeoSpend, PostGIS and DuckDB, the same query list
/// against them (and SpatiaLite's documented way), answers cross-checked query by query.
struct Compare {
    var expensesCSV: String
    var storesCSV: String
    var work: String
    var conninfo: String
    var geospend: String
    var queries: Int
    var importRuns: Int
    var duckDB: DuckDBEngine

    /// Runs everything; returns the results and whether any PostGIS or DuckDB answer differed.
    func run() throws -> (BenchResults, failed: Bool) {
        let db = work + "/geospend.sqlite"
        var workloads: [WorkloadResult] = []
        workloads.append(try importAll(db: db))

        let store = try SpatiaLiteStore(path: db, readOnly: true)
        let postgis = try PostGISEngine(conninfo: conninfo)
        let onPostGIS = try GeoSpendPostGISEngine(url: postGISURL)
        let engines: [any Engine] = [GeoSpendEngine(store: store), postgis, SpatiaLiteDocumentedEngine(store: store), onPostGIS]
        let workload = try Workload(store: store, count: queries)
        let counts = try store.readHere { try $0.counts() }

        // DuckDB answers the same radius and insights queries, and squares on GeoSpend's grid.
        let oneUser = [50.0, 500, 5000].map { meters in
            DuckDBEngine.RadiusQueries(
                name: "radius \(Int(meters)) m, one user", meters: meters, centres: Array(workload.centres.prefix(queries)),
                users: (0..<queries).map(workload.user))
        }
        // Across all users a 5 km circle holds a large share of the city's expenses: fewer runs.
        let allUsers = [50.0, 500, 5000].map { meters in
            let n = meters >= 5000 ? min(queries, 50) : min(queries, 200)
            return DuckDBEngine.RadiusQueries(
                name: "radius \(Int(meters)) m, all users", meters: meters, centres: Array(workload.centres.prefix(n)),
                users: [String?](repeating: nil, count: n))
        }
        let insightsName = "insights per store, one user", insightsCount = min(queries, 200)
        let squarePath = work + "/square-geospend.geojson"
        let (_, squares) = try HeatMap.geoSpend(store, shape: .square, to: squarePath)
        let squareName = "square grid 250 m heat map, GeoJSON file"
        let duck = try duckDB.run(
            radius: oneUser + allUsers, insights: (insightsName, (0..<insightsCount).map(workload.user)),
            grid: .init(name: squareName, cellMeters: HeatMap.cellMeters, projection: squares.projection, currency: squares.currency,
                        runs: 7, out: work + "/square-duckdb.geojson"),
            work: work)

        for w in oneUser {
            workloads.append(try compare(w.name, w.centres.count, engines, duckDB: duck.radius[w.name], target: w.meters == 500 ? 0.5 : nil) { engine, i in
                try engine.radius(workload.centres[i], meters: w.meters, user: workload.user(i))
            } check: { CrossCheck.radius($0, $1, radius: w.meters) })
        }
        for w in allUsers {
            workloads.append(try compare(w.name, w.centres.count, engines, duckDB: duck.radius[w.name]) { engine, i in
                try engine.radius(workload.centres[i], meters: w.meters, user: nil)
            } check: { CrossCheck.radius($0, $1, radius: w.meters) })
        }
        for k in [1, 5, 20] {
            workloads.append(try compare("nearest stores k = \(k)", queries, engines, target: k == 5 ? 0.5 : nil) { engine, i in
                try engine.nearest(workload.centres[i], k: k)
            } check: { CrossCheck.nearest($0, $1) })
        }
        workloads.append(try compare(insightsName, insightsCount, engines, duckDB: duck.insights[insightsName]) { engine, i in
            try engine.insights(user: workload.user(i))
        } check: { CrossCheck.sameRows($0, $1) })
        var notes: [String] = []
        if let imported = workloads.first {
            let rows = Double(counts.expenses + counts.stores)
            let rates = [EngineName.geoSpend, EngineName.geoSpendPostGIS, EngineName.postGIS, EngineName.duckDB].compactMap { engine in
                imported.engines[engine].map { String(format: "%@ %.0f", engine, rows / ($0.p50Ms / 1000)) }
            }
            notes.append("Import rates (stores + expenses per second, p50 run, end to end): " + rates.joined(separator: ", ") + ".")
        }
        let (heatMap, indexMillis) = try heatMaps(store: store, postgis: postgis)
        workloads.append(heatMap)
        notes.append(String(format: "PostGIS's hex grid joins through a GiST expression index on the points projected to GeoSpend's grid projection; building it took %.1f s (not counted in its import or query times).", indexMillis / 1000))
        workloads.append(try squareGrids(store: store, first: squares, path: squarePath, duck: duck, name: squareName))
        notes.append(String(format: "DuckDB %@ (spatial extension %@ from the PyPI wheel), %d threads, memory limit %@: its queries ran in one Python process on an in-memory copy of the loaded file with the same R-trees (copying and indexing took %.1f s, not counted), as a block after its import, not interleaved with the other engines'.", duck.version, duck.spatialVersion, duck.threads, duck.memoryLimit, duck.prepareSeconds))

        let cli = try cliRuns(db: db, workload: workload)
        let failed = workloads.contains { w in
            [EngineName.postGIS, EngineName.duckDB, EngineName.geoSpendPostGIS].contains { (w.mismatches[$0] ?? 0) > 0 }
        }
        var versions = try versions(store: store, postgis: postgis.connection)
        versions["DuckDB"] = duck.version
        let results = BenchResults(
            expenses: counts.expenses, stores: counts.stores, date: Self.today(), machine: Self.machine(),
            versions: versions, workloads: workloads, cli: cli, notes: notes)
        return (results, failed)
    }

    /// Times `body` for each engine on the same query i, interleaved, after 20 warm-up queries
    /// per engine; compares every answer with GeoSpend's (engines[0]). `duckDB`: DuckDB's answers
    /// and times for the same queries, run beforehand by engine.py, compared the same way; nil
    /// where DuckDB does not take part (nearest stores).
    private func compare<A>(
        _ name: String, _ count: Int, _ engines: [any Engine], duckDB: ExternalAnswers<A>? = nil, target: Double? = nil,
        _ body: (any Engine, Int) throws -> [A], check: ([A], [A]) -> String?
    ) throws -> WorkloadResult {
        progress("\(name): \(count) queries × \(engines.count + (duckDB == nil ? 0 : 1)) engines")
        if let duckDB, duckDB.answers.count != count || duckDB.millis.count != count {
            throw BenchFailure("DuckDB answered \(duckDB.answers.count) of the \(count) queries of \(name)")
        }
        for engine in engines { for i in 0..<min(20, count) { _ = try body(engine, i) } }
        var recorders = [LatencyRecorder](repeating: LatencyRecorder(), count: engines.count)
        var duckRecorder = LatencyRecorder()
        let names = engines.map(\.name) + (duckDB == nil ? [] : [EngineName.duckDB])
        var mismatches = [Int](repeating: 0, count: names.count)
        var first: [String: String] = [:]
        for i in 0..<count {
            var answers: [[A]] = []
            for (e, engine) in engines.enumerated() {
                answers.append(try recorders[e].time({ try body(engine, i) }, rowCount: \.count))
            }
            if let duckDB {
                answers.append(duckDB.answers[i])
                duckRecorder.record(milliseconds: duckDB.millis[i], rows: duckDB.answers[i].count)
            }
            for e in 1..<names.count {
                if let difference = check(answers[0], answers[e]) {
                    mismatches[e] += 1
                    if first[names[e]] == nil {
                        first[names[e]] = "query \(i): \(difference)"
                        progress("  \(names[e]) differs on query \(i): \(difference)")
                    }
                }
            }
        }
        var latencies = Dictionary(uniqueKeysWithValues: engines.indices.map { (names[$0], recorders[$0].latency) })
        if duckDB != nil { latencies[EngineName.duckDB] = duckRecorder.latency }
        return WorkloadResult(
            name: name, queries: count, engines: latencies,
            mismatches: Dictionary(uniqueKeysWithValues: names.indices.dropFirst().map { (names[$0], mismatches[$0]) }),
            firstMismatch: first, target: target)
    }

    /// GeoSpend's own database on the PostGIS server (`GeoSpendPostGISEngine`).
    var postGISURL: String { GeoSpendPostGISEngine.url(conninfo: conninfo, database: "geospend") }

    /// Bulk import, timed end to end: `geospend import stores` + `import expenses` (CLI, one
    /// transaction each) into the file and into a fresh database (with the PostGIS extension)
    /// on the PostGIS server, against psql running Benchmarks/postgis/load.sql (COPY, indexes,
    /// ANALYZE) and Python running Benchmarks/duckdb/load.py (read_csv into typed tables,
    /// R-tree, checkpoint).
    private func importAll(db: String) throws -> WorkloadResult {
        var ours = LatencyRecorder(), theirs = LatencyRecorder(), duck = LatencyRecorder(), onPostGIS = LatencyRecorder()
        let loadSQL = try String(contentsOfFile: Self.benchmarksFolder + "/postgis/load.sql", encoding: .utf8)
            .replacingOccurrences(of: "{{expenses}}", with: expensesCSV)
            .replacingOccurrences(of: "{{stores}}", with: storesCSV)
        for run in 1...importRuns {
            progress("import \(run)/\(importRuns): GeoSpend")
            for suffix in ["", "-wal", "-shm"] { unlink(db + suffix) }
            let stores = try runTimed(geospend, ["import", "stores", storesCSV, "--db", db])
            let expenses = try runTimed(geospend, ["import", "expenses", expensesCSV, "--db", db])
            ours.record(milliseconds: stores + expenses)
            progress("import \(run)/\(importRuns): GeoSpend on PostGIS")
            _ = try runTimed("/usr/bin/psql", [conninfo, "-q", "-X", "-c", "DROP DATABASE IF EXISTS geospend WITH (FORCE)", "-c", "CREATE DATABASE geospend"])
            // With PostGIS in it, as load.sql's database has: creating the extension (about
            // 0.3 s) is a database's set-up, not its import.
            _ = try runTimed("/usr/bin/psql", [postGISURL, "-q", "-X", "-c", "CREATE EXTENSION postgis"])
            let pgStores = try runTimed(geospend, ["import", "stores", storesCSV, "--db", postGISURL])
            onPostGIS.record(milliseconds: pgStores + (try runTimed(geospend, ["import", "expenses", expensesCSV, "--db", postGISURL])))
            progress("import \(run)/\(importRuns): PostGIS")
            theirs.record(milliseconds: try runTimed("/usr/bin/psql", [conninfo, "-q", "-X", "-f", "-"], stdin: loadSQL))
            progress("import \(run)/\(importRuns): DuckDB")
            duck.record(milliseconds: try duckDB.load(stores: storesCSV, expenses: expensesCSV))
        }
        return WorkloadResult(
            name: "import (stores + expenses CSV)", queries: importRuns,
            engines: [EngineName.geoSpend: ours.latency, EngineName.postGIS: theirs.latency, EngineName.duckDB: duck.latency,
                      EngineName.geoSpendPostGIS: onPostGIS.latency],
            mismatches: [:], firstMismatch: [:], target: 1.0, duckDBTarget: 1.5)
    }

    /// Hex heat map, 7 runs each after one warm-up, alternating engines; cells compared per run.
    private func heatMaps(store: SpatiaLiteStore, postgis: PostGISEngine) throws -> (WorkloadResult, indexMillis: Double) {
        progress("hex grid heat map 250 m: 7 runs × 2 engines")
        let ourPath = work + "/hex-geospend.geojson", theirPath = work + "/hex-postgis.geojson"
        let (_, layer) = try HeatMap.geoSpend(store, to: ourPath)
        let indexMillis = try HeatMap.preparePostGIS(postgis.connection, projection: layer.projection)
        _ = try HeatMap.postGIS(postgis.connection, currency: layer.currency, to: theirPath)
        var ours = LatencyRecorder(), theirs = LatencyRecorder()
        var mismatches = 0
        var first: [String: String] = [:]
        for run in 0..<7 {
            let (a, mine) = try HeatMap.geoSpend(store, to: ourPath)
            ours.record(milliseconds: a, rows: mine.cells.count)
            let (b, cells) = try HeatMap.postGIS(postgis.connection, currency: layer.currency, to: theirPath)
            theirs.record(milliseconds: b, rows: cells.count)
            if let difference = CrossCheck.sameRows(mine.cells, cells) {
                mismatches += 1
                first[EngineName.postGIS] = first[EngineName.postGIS] ?? "run \(run): \(difference)"
            }
        }
        for path in [ourPath, theirPath] { unlink(path) }
        let result = WorkloadResult(
            name: "hex grid 250 m heat map, GeoJSON file", queries: 7,
            engines: [EngineName.geoSpend: ours.latency, EngineName.postGIS: theirs.latency],
            mismatches: [EngineName.postGIS: mismatches], firstMismatch: first, target: 0.1)
        return (result, indexMillis)
    }

    /// Square heat map, GeoSpend's 7 in-process exports against DuckDB's 7 (engine.py, run
    /// beforehand); each DuckDB run's cells compared with GeoSpend's, then every currency's cells
    /// on the same grid (GeoSpend exporting that currency at the layer's origin).
    private func squareGrids(store: SpatiaLiteStore, first: HeatMap.Layer, path: String, duck: DuckDBAnswers, name: String) throws -> WorkloadResult {
        progress("square grid heat map 250 m: 7 GeoSpend runs; DuckDB's from engine.py; every currency checked")
        guard let theirs = duck.grid, theirs.answers.count == 7, theirs.millis.count == 7 else { throw BenchFailure("DuckDB did not draw the 7 square grids") }
        guard let origin = first.origin else { throw BenchFailure("no +lat_0/+lon_0 in GeoSpend's grid projection \(first.projection)") }
        var ours = LatencyRecorder(), duckRecorder = LatencyRecorder()
        var mismatches = 0
        var firstMismatch: String?
        func differs(_ what: String, _ difference: String?) {
            guard let difference else { return }
            mismatches += 1
            if firstMismatch == nil {
                firstMismatch = "\(what): \(difference)"
                progress("  DuckDB differs on \(what): \(difference)")
            }
        }
        for run in 0..<7 {
            let (millis, mine) = try HeatMap.geoSpend(store, shape: .square, to: path)
            ours.record(milliseconds: millis, rows: mine.cells.count)
            differs("run \(run)", CrossCheck.sameRows(mine.cells, theirs.answers[run]))
        }
        for (run, millis) in theirs.millis.enumerated() { duckRecorder.record(milliseconds: millis, rows: theirs.answers[run].count) }
        let currencies = try store.readDatabase { db in try String.fetchAll(db, sql: "SELECT DISTINCT currency FROM expenses WHERE kind = 'expense' AND lat IS NOT NULL") }
        for currency in Set(currencies).union(duck.gridByCurrency.keys).sorted() {
            let (_, layer) = try HeatMap.geoSpend(store, shape: .square, currency: currency, origin: origin, to: path)
            differs("\(currency) cells", CrossCheck.sameRows(layer.cells, duck.gridByCurrency[currency] ?? []))
        }
        progress("  square grid: \(currencies.count) currencies compared cell by cell")
        unlink(path)
        return WorkloadResult(
            name: name, queries: 7, engines: [EngineName.geoSpend: ours.latency, EngineName.duckDB: duckRecorder.latency],
            mismatches: [EngineName.duckDB: mismatches], firstMismatch: firstMismatch.map { [EngineName.duckDB: $0] } ?? [:],
            target: nil, duckDBTarget: nil)
    }

    /// The CLI end to end: a new process per query, as a shell script would call it.
    private func cliRuns(db: String, workload: Workload) throws -> [CLIResult] {
        progress("CLI end to end")
        func fixed(_ v: Double) -> String { String(format: "%.6f", v) }
        let cases: [(String, Int, (Int) -> [String])] = [
            ("near --radius 500m", 20, { i in
                ["near", "--db", db, "--user", workload.user(i), "--lat", fixed(workload.centres[i].latitude),
                 "--lon=" + fixed(workload.centres[i].longitude), "--radius", "500m"] }),
            ("nearest-stores -k 5", 20, { i in
                ["nearest-stores", "--db", db, "--lat", fixed(workload.centres[i].latitude), "--lon=" + fixed(workload.centres[i].longitude), "-k", "5"] }),
            ("insights --by store", 10, { i in ["insights", "--db", db, "--user", workload.user(i), "--by", "store"] }),
            ("export grid --shape hex --cell 250m --all-users", 3, { _ in
                ["export", "grid", "--db", db, "--shape", "hex", "--cell", "250m", "--all-users", "--min-users", "1", "--out", work + "/cli-hex.geojson"] }),
        ]
        return try cases.map { name, runs, arguments in
            _ = try runTimed(geospend, arguments(0))  // warm the page cache and the binary
            var recorder = LatencyRecorder()
            for i in 0..<runs { recorder.record(milliseconds: try runTimed(geospend, arguments(i))) }
            return CLIResult(command: "geospend " + name, latency: recorder.latency)
        }
    }

    private func versions(store: SpatiaLiteStore, postgis: PostgresConnection) throws -> [String: String] {
        var v = try store.readDatabase { db in
            let row = try Row.fetchOne(db, sql: "SELECT sqlite_version(), spatialite_version(), geos_version(), proj_version()")!
            return ["SQLite": row[0] as String, "SpatiaLite": row[1], "GEOS": row[2], "PROJ": row[3]] as [String: String]
        }
        v["PROJ"] = v["PROJ"].map { String($0.split(separator: ",").first ?? Substring($0)) }
        v["GEOS"] = v["GEOS"].map { String($0.split(separator: "-").first ?? Substring($0)) }
        v["PostgreSQL"] = try postgis.execute("SHOW server_version")[0][0]?.split(separator: " ").first.map(String.init)
        v["PostGIS"] = try postgis.execute("SELECT postgis_lib_version()")[0][0]
        v["GeoSpend"] = GeoSpendInfo.version
        return v
    }

    static var benchmarksFolder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    static func today() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: Date())
    }

    static func machine() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?
            .trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        let gib = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
        return String(format: "%@, %d cores, %.0f GiB", model, ProcessInfo.processInfo.activeProcessorCount, gib)
    }
}
