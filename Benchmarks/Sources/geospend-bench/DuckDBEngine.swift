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
        defer { for path in [queriesPath, answersPath, grid.out] { unlink(path) } }
        _ = try runTimed(python, [Self.scripts + "/engine.py", "--db", database, "--queries", queriesPath, "--out", answersPath])
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
                radius[name] = ExternalAnswers(millis: millis, answers: try answers.map { try $0.map { r in
                    Found(id: Self.text(r, 0), meters: try Self.number(r, 1, name).doubleValue)
                } })
            case "insights":
                insights[name] = ExternalAnswers(millis: millis, answers: try answers.map { try $0.map { r in
                    let currency = Self.text(r, 1)
                    return StoreTotal(store: Self.text(r, 0), currency: currency, count: try Self.number(r, 2, name).intValue,
                                      totalMinor: try minorUnits(tenThousandths: try Self.number(r, 3, name).int64Value, currency: currency))
                } })
            case "grid":
                grid = ExternalAnswers(millis: millis, answers: try answers.map { try $0.map { r in
                    CellTotal(i: try Self.number(r, 0, name).intValue, j: try Self.number(r, 1, name).intValue, count: try Self.number(r, 2, name).intValue,
                              totalMinor: try minorUnits(tenThousandths: try Self.number(r, 3, name).int64Value, currency: gridCurrency))
                } })
            default:
                throw BenchFailure("engine.py: workload \(name) of unknown kind \(w["kind"] ?? "none")")
            }
        }
        for r in root["grid_check"] as? [[Any]] ?? [] {
            let currency = Self.text(r, 0)
            gridByCurrency[currency, default: []].append(CellTotal(
                i: try Self.number(r, 1, "grid_check").intValue, j: try Self.number(r, 2, "grid_check").intValue,
                count: try Self.number(r, 3, "grid_check").intValue,
                totalMinor: try minorUnits(tenThousandths: try Self.number(r, 4, "grid_check").int64Value, currency: currency)))
        }
    }

    /// A text column; a NULL (or anything else) as text, so it shows as a differing answer.
    private static func text(_ row: [Any], _ column: Int) -> String {
        column < row.count ? row[column] as? String ?? "\(row[column])" : "<missing>"
    }

    private static func number(_ row: [Any], _ column: Int, _ workload: String) throws -> NSNumber {
        guard column < row.count, let n = row[column] as? NSNumber else {
            throw BenchFailure("engine.py: \(workload): column \(column) of \(row) is not a number")
        }
        return n
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
