import Foundation
import GeoSpend
import GeoSpendSpatiaLite

/// The H3 heat layer `scripts/bench-rollups.sh` times, in-process: the library call
/// `geospend export grid --shape h3 --resolution 9 --all-users --min-users 1 --out FILE` makes,
/// on one store opened once, each run writing the whole file. DuckDB's side of that comparison
/// (Benchmarks/duckdb/rollups.py) runs in-process on an open connection too, so this is the
/// like-for-like figure; the CLI's end-to-end time (process start, opening the file, loading
/// SpatiaLite) is measured beside it. Prints one JSON object: the runs' milliseconds and the
/// feature count. rollups.py checks the file against the CLI's, byte for byte.
enum RollupLayer {
    static func run(database: String, out path: String, runs: Int) throws {
        let store = try SpatiaLiteStore(path: database, readOnly: true)
        let request = MapExportRequest(filter: ExpenseFilter(userID: nil, kinds: [.expense]), minUsers: 1)
        func once() throws -> (Double, Int) {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw BenchFailure("cannot write \(path)") }
            defer { close(fd) }
            let sink = ByteSink(descriptor: fd)
            let start = ContinuousClock.now
            let summary = try store.readHere {
                try MapExport.geoJSON(.grid(.h3, cellMeters: 9, metric: .total), request, reader: $0, to: sink)
            }
            try sink.flush()
            return (LatencyRecorder.milliseconds(ContinuousClock.now - start), summary.features)
        }
        let (_, features) = try once()  // warm-up: page cache, the store's statements
        let millis = try (0..<runs).map { _ in try once().0 }
        let json = try JSONSerialization.data(withJSONObject: ["millis": millis, "features": features])
        FileHandle.standardOutput.write(json + Data("\n".utf8))
    }
}
