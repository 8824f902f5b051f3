import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GRDB

/// The map rollups (docs/ROLLUPS.md) in `make bench`: the H3 heat layer at resolution 9 (cells
/// ~0.1 km², about a 325 m square; all users, kind expense, `--min-users 1` as the other heat
/// maps here) written as a GeoJSON file, from the rollups and by a scan, against DuckDB's own
/// from-scratch square grid of 250 m cells over the same expenses in the same run (engine.py:
/// ST_Transform, floor, GROUP BY, GeoJSON file). DuckDB has no h3 extension here (PyPI has none
/// and the network reaches only PyPI), so its square grid is the aggregation it can do: the same
/// expenses, similar cell sizes, not the same cells. And what the rollups cost an import.
struct MapRollupBench {
    static let rolledUpName = "H3 res 9 heat map from rollups, GeoJSON file (DuckDB: its square grid 250 m from scratch)"
    static let scannedName = "H3 res 9 heat map by a scan of the expenses, GeoJSON file"
    var workloads: [WorkloadResult]
    var notes: [String] = []

    init(store: SpatiaLiteStore, work: String, duckDB: ExternalAnswers<CellTotal>?) throws {
        progress("H3 heat map res 9: 7 runs from rollups, 7 by a scan")
        let path = work + "/h3-geospend.geojson"
        defer { unlink(path) }
        func export() throws -> (millis: Double, bytes: Data) {
            let request = MapExportRequest(filter: ExpenseFilter(userID: nil, kinds: [.expense]), minUsers: 1, generatedAt: "2026-01-01T00:00:00Z")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchFailure("cannot write \(path)") }
            let sink = ByteSink(descriptor: fd)
            let start = ContinuousClock.now
            try store.readHere { try MapExport.geoJSON(.grid(.h3, cellMeters: 9, metric: .total), request, reader: $0, to: sink) }
            try sink.flush()
            let millis = LatencyRecorder.milliseconds(ContinuousClock.now - start)
            close(fd)
            return (millis, try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        func timed(scan: Bool) throws -> (LatencyRecorder, Data) {
            if scan { setenv("GEOSPEND_MAP_ROLLUPS", "scan", 1) }
            defer { unsetenv("GEOSPEND_MAP_ROLLUPS") }
            var recorder = LatencyRecorder()
            var last = try export().bytes  // warm-up
            for _ in 0..<7 {
                let (millis, bytes) = try export()
                recorder.record(milliseconds: millis)
                last = bytes
            }
            return (recorder, last)
        }
        let (rolled, fromRollups) = try timed(scan: false)
        let (scanned, fromScan) = try timed(scan: true)
        guard fromRollups == fromScan else { throw BenchFailure("the H3 layer from the rollups differs from the scan's") }
        var duck = LatencyRecorder()
        for (run, millis) in (duckDB?.millis ?? []).enumerated() { duck.record(milliseconds: millis, rows: duckDB!.answers[run].count) }
        workloads = [
            WorkloadResult(
                name: Self.rolledUpName, queries: 7,
                engines: [EngineName.geoSpend: rolled.latency].merging(duckDB == nil ? [:] : [EngineName.duckDB: duck.latency]) { $1 },
                mismatches: [:], firstMismatch: [:], target: nil, duckDBTarget: 0.2),
            WorkloadResult(
                name: Self.scannedName, queries: 7, engines: [EngineName.geoSpend: scanned.latency], mismatches: [:], firstMismatch: [:],
                target: nil),
        ]
        notes.append(String(
            format: "H3 heat map: the layer from the rollups and the one from a scan are the same %d bytes; the rollups' %@ (DuckDB's column) compares different cells (250 m squares) over the same expenses, from scratch.",
            fromRollups.count, Self.rolledUpName))
    }

    /// `geospend import expenses` (CLI, end to end) into a database with its stores, with the
    /// rollups and without them (the table dropped first: the import then keeps none), run in
    /// turn; the note gives both times and the files' sizes.
    static func importCost(geospend: String, expenses: String, stores: String, work: String, runs: Int) throws -> String {
        progress("import with and without map rollups: \(runs) runs each")
        let db = work + "/rollup-import.sqlite"
        func clean() { for suffix in ["", "-wal", "-shm"] { unlink(db + suffix) } }
        defer { clean() }
        var with = LatencyRecorder(), without = LatencyRecorder()
        var sizes: [Bool: Int] = [:]
        for _ in 0..<runs {
            for keep in [true, false] {
                clean()
                _ = try runTimed(geospend, ["import", "stores", stores, "--db", db])
                if !keep { try SpatiaLiteStore(path: db).writeTransaction { try $0.execute(sql: "DROP TABLE map_rollups") } }
                let millis = try runTimed(geospend, ["import", "expenses", expenses, "--db", db])
                if keep { with.record(milliseconds: millis) } else { without.record(milliseconds: millis) }
                sizes[keep] = (try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int) ?? 0
            }
        }
        let (a, b) = (with.latency.p50Ms, without.latency.p50Ms)
        return String(
            format: "Map rollups at import (`geospend import expenses`, CLI end to end, p50 of %d): %.1f s with them, %.1f s without (%+.0f %%); file %.0f MB with, %.0f MB without.",
            runs, a / 1000, b / 1000, (a / b - 1) * 100, Double(sizes[true] ?? 0) / 1e6, Double(sizes[false] ?? 0) / 1e6)
    }
}
