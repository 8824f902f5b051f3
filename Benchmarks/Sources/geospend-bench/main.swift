// Query latency of the library API in-process, warm: p50/p95 over seeded random centres.
// Usage: geospend-bench DATABASE [QUERIES]          radius and nearest-store workloads
//        geospend-bench --insights DATABASE USER    location insights for one user (20 runs)
//        geospend-bench --store-report DATABASE     reports for the 200 busiest stores
//        geospend-bench --export DATABASE DIR       hex grid and points exports, all users (7 runs)
// (databases from scripts/bench.sh)
// BENCH_ONLY_NEAREST=1 skips the radius workloads (for quick nearest-store tuning).
// BENCH_SCAN=1 with --export also times a bare forEachSpendingPoint scan (the read floor).
import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GRDB

let arguments = CommandLine.arguments
if arguments.count == 4 && arguments[1] == "--insights" {
    let store = try SpatiaLiteStore(path: arguments[2], readOnly: true)
    let request = InsightsRequest(userID: arguments[3])
    var micros: [Double] = []
    var rows = 0
    for run in 0..<22 {
        let start = ContinuousClock.now
        rows = try LocationInsights.compute(request, store: store).places.count
        let d = ContinuousClock.now - start
        if run >= 2 { micros.append(Double(d.components.attoseconds) / 1e12 + Double(d.components.seconds) * 1e6) }  // 2 warm-up runs
    }
    micros.sort()
    print(String(format: "insights, one user, all places            p50 %8.3f ms   p95 %8.3f ms   places %d", micros[10] / 1000, micros[18] / 1000, rows))
    exit(0)
}
if arguments.count == 3 && arguments[1] == "--store-report" {
    let store = try SpatiaLiteStore(path: arguments[2], readOnly: true)
    let busiest = try store.read { db in
        try String.fetchAll(db, sql: "SELECT store_id FROM expenses WHERE store_id IS NOT NULL GROUP BY store_id ORDER BY count(*) DESC LIMIT 200")
    }
    var micros: [Double] = []
    for (n, id) in (busiest + busiest.prefix(20)).enumerated() {
        let start = ContinuousClock.now
        _ = try StoreReport.compute(StoreReportRequest(storeID: id), store: store)
        let d = ContinuousClock.now - start
        if n >= 20 { micros.append(Double(d.components.attoseconds) / 1e12 + Double(d.components.seconds) * 1e6) }
    }
    micros.sort()
    print(String(format: "store report, 200 busiest stores           p50 %8.3f ms   p95 %8.3f ms", micros[micros.count / 2] / 1000,
                 micros[micros.count * 95 / 100] / 1000))
    exit(0)
}
if arguments.count == 4 && arguments[1] == "--export" {
    // All users, expenses in the most common currency (EUR): the layers a city-wide map shows.
    let store = try SpatiaLiteStore(path: arguments[2], readOnly: true)
    let request = MapExportRequest(filter: ExpenseFilter(userID: nil, kinds: [.expense]), minUsers: 1)
    let path = arguments[3] + "/bench-export.geojson"
    func timed(_ name: String, _ body: (ByteSink) throws -> MapExportSummary) throws {
        var millis: [Double] = []
        var summary: MapExportSummary?
        for _ in 0..<7 {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let sink = ByteSink(descriptor: fd)
            let start = ContinuousClock.now
            summary = try body(sink)
            try sink.flush()
            let d = ContinuousClock.now - start
            close(fd)
            millis.append(Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1e3)
        }
        millis.sort()
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        print(String(format: "%@ p50 %8.1f ms   max %8.1f ms   %d features, %.1f MB", name.padding(toLength: 42, withPad: " ", startingAt: 0),
                     millis[3], millis[6], summary?.features ?? 0, Double(size) / 1e6))
    }
    if ProcessInfo.processInfo.environment["BENCH_SCAN"] != nil {
        try timed("scan only (forEachSpendingPoint)") { _ in
            var n = 0
            try store.forEachSpendingPoint(request.filter, geotaggedOnly: true) { _ in n += 1 }
            return MapExportSummary(features: n, suppressed: 0, currency: nil, totalMinor: 0, leftOutCurrencies: [])
        }
    }
    try timed("export grid hex 250 m, all users (file)") { sink in
        try MapExport.geoJSON(.grid(.hex, cellMeters: 250, metric: .total), request, store: store, to: sink)
    }
    try timed("export points, all users (file)") { sink in try MapExport.geoJSON(.points, request, store: store, to: sink) }
    unlink(path)
    exit(0)
}
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: geospend-bench DATABASE [QUERIES]\n".utf8))
    exit(2)
}
let store = try SpatiaLiteStore(path: arguments[1], readOnly: true)
let queries = arguments.count > 2 ? Int(arguments[2]) ?? 2000 : 2000

// Centres: jittered store positions (realistic, mostly with hits) and a few in empty sea.
let stores = try store.read { db in
    try Row.fetchAll(db, sql: "SELECT lat, lon FROM stores ORDER BY pk")
}.map { Coordinate(uncheckedLatitude: $0[0], longitude: $0[1]) }
let users = try store.read { db in try String.fetchAll(db, sql: "SELECT id FROM users ORDER BY id") }
var rng = SplitMix64(seed: 42)
let centres: [Coordinate] = (0..<queries).map { i in
    if i % 10 == 9 { return Coordinate(uncheckedLatitude: 59.5 + rng.unit() * 0.1, longitude: 24.9 + rng.unit() * 0.1) }
    let s = stores[Int(rng.next() % UInt64(stores.count))]
    return Coordinate(uncheckedLatitude: s.latitude + (rng.unit() - 0.5) * 0.004, longitude: s.longitude + (rng.unit() - 0.5) * 0.008)
}

struct Stats {
    var name: String
    var micros: [Double]
    var results: Int
    func line() -> String {
        let s = micros.sorted()
        func pct(_ p: Double) -> Double { s[min(s.count - 1, Int(Double(s.count) * p))] }
        return String(format: "%-34@ p50 %8.3f ms   p95 %8.3f ms   mean results %.1f", name as NSString, pct(0.5) / 1000, pct(0.95) / 1000,
                      Double(results) / Double(s.count))
    }
}

func measure(_ name: String, queries: Int = queries, _ body: (Int) throws -> Int) rethrows -> Stats {
    for i in 0..<min(100, queries) { _ = try body(i) }  // warm caches and statement cache
    var micros: [Double] = []
    var results = 0
    let clock = ContinuousClock()
    for i in 0..<queries {
        var n = 0
        let d = try clock.measure { n = try body(i) }
        results += n
        micros.append(Double(d.components.attoseconds) / 1e12 + Double(d.components.seconds) * 1e6)
    }
    return Stats(name: name, micros: micros, results: results)
}

var report: [Stats] = []
for radius in [50.0, 500, 5000] where ProcessInfo.processInfo.environment["BENCH_ONLY_NEAREST"] == nil {
    // Unscoped queries return thousands of rows in this dense synthetic region: fewer runs.
    report.append(try measure("radius \(Int(radius)) m, all users (R*Tree)", queries: min(queries, 200)) { i in
        try store.expenses(within: .meters(radius), of: centres[i], filter: ExpenseFilter(userID: nil)).count
    })
    report.append(try measure("radius \(Int(radius)) m, one user") { i in
        try store.expenses(within: .meters(radius), of: centres[i], filter: ExpenseFilter(userID: users[i % users.count])).count
    })
}
for k in [1, 5, 20] {
    report.append(try measure("nearest stores k=\(k)") { i in
        try store.nearestStores(to: centres[i], limit: k, maxDistance: nil, kind: nil).count
    })
}
for s in report { print(s.line()) }
