import Foundation
import GeoSpend

/// DuckDB 1.5 with its spatial extension, the third engine. Debian has no libduckdb, so DuckDB
/// runs in Python (the project venv, Benchmarks/duckdb/requirements.txt): `load.py` is the timed
/// import, `engine.py` answers a whole query list in one process and times each query itself
/// (time.perf_counter around execute + fetchall). This side writes the list, runs the script and
/// reads the answers back for the cross-check; DuckDB's queries therefore run as a block, not
/// interleaved with the other engines' as theirs are with each other.
struct DuckDBEngine {
    /// The venv's python, which has duckdb and duckdb-extension-spatial.
    let python: String
    /// The database file `load.py` writes (replaced on each import run).
    let database: String

    static var scripts: String { Compare.benchmarksFolder + "/duckdb" }

    /// The import, timed end to end like psql's (process start, CSV read, R-tree, checkpoint).
    func load(stores: String, expenses: String) throws -> Double {
        try runTimed(python, [Self.scripts + "/load.py", "--db", database, "--stores", stores, "--expenses", expenses])
    }

    /// One radius workload: a centre per query, with a user or across all users.
    struct RadiusQueries {
        var name: String
        var meters: Double
        var centres: [Coordinate]
        var users: [String?]
    }

    /// The square-grid heat map DuckDB draws: GeoSpend's layer's projection and currency.
    struct GridQuery {
        var name: String
        var cellMeters: Double
        var projection: String
        var currency: String
        var runs: Int
        var out: String
    }

    /// Writes the query list, runs engine.py on it, returns its answers.
    func run(radius: [RadiusQueries], insights: (name: String, users: [String]), grid: GridQuery, work: String) throws -> DuckDBAnswers {
        let queriesPath = work + "/duckdb-queries.json", answersPath = work + "/duckdb-answers.json"
        let spec: [String: Any] = [
            "warmup": 20,
            "radius": radius.map { w in
                ["name": w.name, "meters": w.meters, "queries": zip(w.centres, w.users).map { c, u in
                    ["lat": c.latitude, "lon": c.longitude, "user": u ?? NSNull()] as [String: Any]
                }] as [String: Any]
            },
            "insights": ["name": insights.name, "users": insights.users],
            "grid": ["name": grid.name, "cell_m": grid.cellMeters, "projection": grid.projection, "currency": grid.currency,
                     "runs": grid.runs, "out": grid.out],
        ]
        try JSONSerialization.data(withJSONObject: spec).write(to: URL(fileURLWithPath: queriesPath))
        progress("DuckDB: \(radius.map(\.centres.count).reduce(0, +) + insights.users.count) queries and \(grid.runs) grids in engine.py")
        _ = try runTimed(python, [Self.scripts + "/engine.py", "--db", database, "--queries", queriesPath, "--out", answersPath])
        defer { for path in [queriesPath, answersPath, grid.out] { unlink(path) } }
        return try DuckDBAnswers(json: Data(contentsOf: URL(fileURLWithPath: answersPath)), gridCurrency: grid.currency)
    }
}

/// Answers and per-query latencies of one workload run outside this process, in query order.
struct ExternalAnswers<A> {
    var millis: [Double]
    var answers: [[A]]
}

/// engine.py's output, typed.
struct DuckDBAnswers {
    var version: String
    var spatialVersion: String
    var threads: Int
    var memoryLimit: String
    /// Seconds to copy the loaded file's tables into memory and index them (not in any query time).
    var prepareSeconds: Double
    var radius: [String: ExternalAnswers<Found>] = [:]
    var insights: [String: ExternalAnswers<StoreTotal>] = [:]
    var grid: ExternalAnswers<CellTotal>?
    /// Every currency's cells of the same grid (untimed), for the cell-by-cell check.
    var gridByCurrency: [String: [CellTotal]] = [:]

    init(json: Data, gridCurrency: String) throws {
        guard let root = try JSONSerialization.jsonObject(with: json) as? [String: Any],
              let settings = root["settings"] as? [String: Any], let workloads = root["workloads"] as? [String: [String: Any]]
        else { throw BenchFailure("engine.py wrote no settings or workloads") }
        version = settings["duckdb"] as? String ?? "?"
        spatialVersion = settings["spatial"] as? String ?? "?"
        threads = (settings["threads"] as? NSNumber)?.intValue ?? 0
        memoryLimit = settings["memory_limit"] as? String ?? "?"
        prepareSeconds = (settings["prepare_s"] as? NSNumber)?.doubleValue ?? 0
        for (name, w) in workloads {
            guard let millis = (w["millis"] as? [NSNumber])?.map(\.doubleValue), let answers = w["answers"] as? [[[Any]]] else {
                throw BenchFailure("engine.py: workload \(name) has no millis or answers")
            }
            switch w["kind"] as? String {
            case "radius":
                radius[name] = ExternalAnswers(millis: millis, answers: answers.map { $0.map { Found(id: $0[0] as! String, meters: ($0[1] as! NSNumber).doubleValue) } })
            case "insights":
                insights[name] = ExternalAnswers(millis: millis, answers: try answers.map { try $0.map { r in
                    let currency = r[1] as! String
                    return StoreTotal(store: r[0] as! String, currency: currency, count: (r[2] as! NSNumber).intValue,
                                      totalMinor: try minorUnits(tenThousandths: (r[3] as! NSNumber).int64Value, currency: currency))
                } })
            case "grid":
                grid = ExternalAnswers(millis: millis, answers: try answers.map { try $0.map { r in
                    CellTotal(i: (r[0] as! NSNumber).intValue, j: (r[1] as! NSNumber).intValue, count: (r[2] as! NSNumber).intValue,
                              totalMinor: try minorUnits(tenThousandths: (r[3] as! NSNumber).int64Value, currency: gridCurrency))
                } })
            default:
                throw BenchFailure("engine.py: workload \(name) of unknown kind \(w["kind"] ?? "none")")
            }
        }
        for r in root["grid_check"] as? [[Any]] ?? [] {
            let currency = r[0] as! String
            gridByCurrency[currency, default: []].append(CellTotal(
                i: (r[1] as! NSNumber).intValue, j: (r[2] as! NSNumber).intValue, count: (r[3] as! NSNumber).intValue,
                totalMinor: try minorUnits(tenThousandths: (r[4] as! NSNumber).int64Value, currency: currency)))
        }
    }
}

/// Minor units of an exact amount given in 1/10,000 of the currency's unit (engine.py's totals),
/// refusing one that does not fall on a minor unit.
func minorUnits(tenThousandths value: Int64, currency: String) throws -> Int64 {
    let perMajor = Int64(try Currency(code: currency).minorUnitsPerMajor)
    guard 10_000 % perMajor == 0, value % (10_000 / perMajor) == 0 else {
        throw BenchFailure("DuckDB total \(value)/10000 \(currency) is not a whole number of minor units")
    }
    return value / (10_000 / perMajor)
}
