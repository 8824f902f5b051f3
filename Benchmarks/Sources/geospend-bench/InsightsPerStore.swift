import GeoSpend
import GeoSpendSpatiaLite

/// "insights per store, one user" without PostGIS or DuckDB: GeoSpend and SpatiaLite's documented
/// GROUP BY on the same file, the same 200 seeded users `compare` asks for, interleaved, answers
/// cross-checked. A quick A/B for work on the insights path, and a driver for profilers
/// (`engines` "geospend" alone under callgrind).
///
/// The engine that goes second finds the user's table pages in the CPU's caches, warmed by the
/// first: GeoSpend read first on every query makes it pay for both. `alternate` lets each go
/// first for every other user. Rounds after the first find the users' store labels in
/// GeoSpend's label cache (`StoreLabelCache`); `compare` asks each user once, as one round does.
enum InsightsPerStore {
    static func run(database: String, engines names: String, rounds: Int, alternate: Bool = false) throws {
        let store = try SpatiaLiteStore(path: database, readOnly: true)
        let workload = try Workload(store: store, count: 0)
        let all: [any Engine] = [GeoSpendEngine(store: store), SpatiaLiteDocumentedEngine(store: store)]
        let engines = names == "both" ? all : all.filter { $0.name.lowercased().hasPrefix(names) }
        guard !engines.isEmpty else { throw BenchFailure("engines: geospend, spatialite or both, not \(names)") }
        let users = (0..<200).map(workload.user)
        for engine in engines { for user in users.prefix(20) { _ = try engine.insights(user: user) } }
        var recorders = [LatencyRecorder](repeating: LatencyRecorder(), count: engines.count)
        for _ in 0..<rounds {
            for (n, user) in users.enumerated() {
                let order = alternate && n % 2 == 1 ? Array(engines.indices.reversed()) : Array(engines.indices)
                var answers = [[StoreTotal]](repeating: [], count: engines.count)
                for e in order { answers[e] = try recorders[e].time({ try engines[e].insights(user: user) }, rowCount: \.count) }
                if answers.count == 2, let difference = CrossCheck.sameRows(answers[0], answers[1]) {
                    throw BenchFailure("user \(user): \(difference)")
                }
            }
        }
        let p50 = recorders.map(\.latency.p50Ms)
        for (engine, recorder) in zip(engines, recorders) {
            let l = recorder.latency
            print(String(format: "%@ p50 %8.4f ms   p95 %8.4f ms   rows %.1f", engine.name.padding(toLength: 12, withPad: " ", startingAt: 0), l.p50Ms, l.p95Ms, l.meanRows))
        }
        if p50.count == 2 { print(String(format: "ratio GeoSpend / SpatiaLite p50: %.3f", p50[0] / p50[1])) }
    }
}
