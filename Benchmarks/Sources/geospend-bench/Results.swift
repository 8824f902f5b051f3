import Foundation

/// One run of `geospend-bench compare`, written as JSON (Benchmarks/results/bench-N.json).
struct BenchResults: Codable {
    var expenses: Int
    var stores: Int
    var date: String
    var machine: String
    var versions: [String: String]
    var workloads: [WorkloadResult]
    /// GeoSpend's CLI end to end (process start, open, query, print).
    var cli: [CLIResult]
    var notes: [String]
}

struct WorkloadResult: Codable {
    var name: String
    var queries: Int
    /// Engine name → latency; engines that do not run the workload are absent.
    var engines: [String: Latency]
    /// Engine name → number of queries whose answer differed from GeoSpend's.
    var mismatches: [String: Int]
    var firstMismatch: [String: String]
    /// Target for GeoSpend p50 / PostGIS p50 (issue 5), when there is one.
    var target: Double?
    /// Target for GeoSpend p50 / DuckDB p50 (issue 16), when there is one.
    var duckDBTarget: Double? = nil

    var ratio: Double? { ratio(to: EngineName.postGIS) }
    var duckDBRatio: Double? { ratio(to: EngineName.duckDB) }

    func ratio(to engine: String) -> Double? {
        guard let ours = engines[EngineName.geoSpend]?.p50Ms, let theirs = engines[engine]?.p50Ms, theirs > 0 else { return nil }
        return ours / theirs
    }
}

struct CLIResult: Codable {
    var command: String
    var latency: Latency
}

/// Markdown tables for Benchmarks/RESULTS.md from one or more result files, smallest size first.
enum ResultsTable {
    static func markdown(_ runs: [BenchResults]) -> String {
        var out: [String] = []
        let sorted = runs.sorted { $0.expenses < $1.expenses }
        for run in sorted {
            out.append("### \(count(run.expenses)) expenses, \(count(run.stores)) stores — \(run.date)")
            out.append("")
            out.append(run.machine + "; " + run.versions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ".")
            out.append("")
            out.append("| workload | GeoSpend p50 / p95 | PostGIS p50 / p95 | ratio p50 (target) | SpatiaLite documented p50 / p95 | DuckDB p50 / p95 | ratio to DuckDB (target) | answers |")
            out.append("|---|---:|---:|---:|---:|---:|---:|---|")
            for w in run.workloads {
                func cell(_ engine: String) -> String {
                    guard let l = w.engines[engine] else { return "—" }
                    return "\(ms(l.p50Ms)) / \(ms(l.p95Ms))"
                }
                func ratio(_ r: Double?, _ target: Double?) -> String {
                    guard let r else { return "—" }
                    guard let target else { return String(format: "%.3f", r) }
                    return String(format: "%.3f", r) + " (≤ \(target)) " + (r <= target ? "met" : "**missed**")
                }
                let checks = [EngineName.postGIS, EngineName.spatiaLite, EngineName.duckDB].compactMap { engine -> String? in
                    guard let n = w.mismatches[engine] else { return nil }
                    let short = engine == EngineName.spatiaLite ? "SpatiaLite" : engine
                    return n == 0 ? "\(short) same" : "\(short) **\(n) differ**"
                }
                let rows = w.engines[EngineName.geoSpend].flatMap { $0.meanRows > 0 ? String(format: "%.1f rows", $0.meanRows) : nil } ?? ""
                out.append("| \(w.name) (\(w.queries)×\(rows.isEmpty ? "" : ", " + rows)) | \(cell(EngineName.geoSpend)) | \(cell(EngineName.postGIS)) | \(ratio(w.ratio, w.target)) | \(cell(EngineName.spatiaLite)) | \(cell(EngineName.duckDB)) | \(ratio(w.duckDBRatio, w.duckDBTarget)) | \(checks.joined(separator: ", ")) |")
            }
            if !run.cli.isEmpty {
                out.append("")
                out.append("GeoSpend CLI end to end (process start to exit): " + run.cli.map { "`\($0.command)` p50 \(ms($0.latency.p50Ms)) / p95 \(ms($0.latency.p95Ms)) (\($0.latency.runs)×)" }.joined(separator: "; ") + ".")
            }
            for note in run.notes { out.append(""); out.append(note) }
            out.append("")
        }
        if sorted.count > 1 {
            out.append("### How p50 grows with the data (GeoSpend / PostGIS / DuckDB where it ran)")
            out.append("")
            out.append("| workload | " + sorted.map { count($0.expenses) }.joined(separator: " | ") + " |")
            out.append("|---|" + sorted.map { _ in "---:|" }.joined())
            for name in sorted[0].workloads.map(\.name) {
                let cells = sorted.map { run -> String in
                    guard let w = run.workloads.first(where: { $0.name == name }) else { return "—" }
                    let ours = w.engines[EngineName.geoSpend].map { ms($0.p50Ms) } ?? "—"
                    let theirs = w.engines[EngineName.postGIS].map { ms($0.p50Ms) } ?? "—"
                    let duck = w.engines[EngineName.duckDB].map { " / " + ms($0.p50Ms) } ?? ""
                    return "\(ours) / \(theirs)\(duck)"
                }
                out.append("| \(name) | " + cells.joined(separator: " | ") + " |")
            }
            out.append("")
        }
        return out.joined(separator: "\n")
    }

    static func ms(_ v: Double) -> String {
        switch v {
        case ..<1: return String(format: "%.3f ms", v)
        case ..<100: return String(format: "%.1f ms", v)
        case ..<10_000: return String(format: "%.0f ms", v)
        default: return String(format: "%.1f s", v / 1000)
        }
    }

    static func count(_ n: Int) -> String {
        n >= 1_000_000 ? "\(n / 1_000_000)M" : n >= 1000 ? "\(n / 1000)k" : "\(n)"
    }
}
