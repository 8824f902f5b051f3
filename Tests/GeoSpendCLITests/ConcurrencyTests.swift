import Foundation
import GeoSpend
import Testing

/// One process imports batch after batch while several others run `near`, `insights` and
/// `export`: no reader fails (no busy or locked error reaches a user), and every answer is
/// byte-identical to the answer of one committed state — before the import, after batch 1,
/// after batch 2, … — never of half a batch. Lock waits are what the readers' busy handlers
/// slept (`GEOSPEND_LOCK_WAIT_LOG`, one line per process).
@Suite(.serialized) struct ConcurrencyTests {
    static let queries: [(name: String, args: [String])] = [
        ("near", ["near", "--user", "user1", "--lat", "60.1699", "--lon", "24.9384", "--radius", "2km", "--format", "json"]),
        ("insights", ["insights", "--user", "user2", "--format", "json"]),
        ("export", ["export", "grid", "--all-users", "--shape", "hex", "--cell", "250m", "--min-users", "1", "--currency", "EUR"]),
    ]
    /// Fixed provenance time, so the same state always gives the same export bytes.
    static let env = ["SOURCE_DATE_EPOCH": "0"]

    /// What the reader threads saw; shared under a lock. States are kept apart by when the
    /// reader started: while imports ran, or after the last one had finished.
    final class Observations: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var statesSeen: [String: Set<Int>] = [:]
        private(set) var statesSeenAfterwards: [String: Set<Int>] = [:]
        private(set) var failures: [String] = []
        private(set) var latencies: [Double] = []
        private(set) var count = 0
        func record(_ query: String, state: Int?, afterImports: Bool, error: String?, seconds: Double) {
            lock.withLock {
                count += 1
                latencies.append(seconds)
                if let state {
                    if afterImports { statesSeenAfterwards[query, default: []].insert(state) } else { statesSeen[query, default: []].insert(state) }
                }
                if let error { failures.append(error) }
            }
        }
    }

    @Test func readersSeeWholeImportsOnlyAndNeverALockError() throws {
        let long = Reliability.isLong
        let (batches, rows, readers, rounds) = long ? (6, 4000, 4, 4) : (3, 1500, 3, 1)
        let dir = Reliability.scratch("concurrency")
        defer { try? FileManager.default.removeItem(at: dir) }
        let parts = try Reliability.expenseFiles(Array(repeating: rows, count: batches + 1), seed: Reliability.seed + 1, in: dir)
        let base = dir.appendingPathComponent("base.sqlite").path
        #expect(try Reliability.geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", base]).status == 0)
        #expect(try Reliability.geospend(["import", "expenses", parts[0], "--db", base]).status == 0)

        // The answer of every query in every committed state, computed alone, one state at a time.
        let sequential = dir.appendingPathComponent("sequential.sqlite").path
        try Reliability.copy(base, to: sequential)
        var answers: [String: [String: Int]] = [:]  // query → output → state
        for state in 0...batches {
            if state > 0 { #expect(try Reliability.geospend(["import", "expenses", parts[state], "--db", sequential]).status == 0) }
            for q in Self.queries {
                let r = try Reliability.geospend(q.args + ["--db", sequential], env: Self.env)
                try #require(r.status == 0, "\(q.name): \(r.err)")
                answers[q.name, default: [:]][r.out] = state
            }
        }
        for q in Self.queries { #expect(answers[q.name]!.count == batches + 1, "\(q.name) does not tell the states apart") }

        let expected = answers
        let seen = Observations()
        let lockLog = dir.appendingPathComponent("lock-waits.log").path
        var importSeconds: [Double] = []
        for round in 0..<rounds {
            let live = dir.appendingPathComponent("live.sqlite").path
            try Reliability.copy(base, to: live)
            let importing = NSLock()
            nonisolated(unsafe) var done = false
            let group = DispatchGroup()
            for reader in 0..<readers {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    func ask(_ q: (name: String, args: [String]), afterImports: Bool = false) {
                        let start = ContinuousClock.now
                        var env = Self.env
                        env["GEOSPEND_LOCK_WAIT_LOG"] = lockLog
                        let r = try? Reliability.geospend(q.args + ["--db", live], env: env)
                        let elapsed = ContinuousClock.now - start
                        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                        let state = r.flatMap { expected[q.name]![$0.out] }
                        var error: String?
                        if r?.status != 0 || !(r?.err.isEmpty ?? false) {
                            error = "round \(round) \(q.name): status \(r?.status ?? -1): \(r?.err ?? "did not run")"
                        } else if state == nil {
                            error = "round \(round) \(q.name): an answer of no committed state (half an import?)"
                        }
                        seen.record(q.name, state: state, afterImports: afterImports, error: error, seconds: seconds)
                    }
                    var i = reader
                    while !importing.withLock({ done }) {
                        ask(Self.queries[i % Self.queries.count])
                        i += 1
                    }
                    for q in Self.queries { ask(q, afterImports: true) }  // each query once more after the last import
                }
            }
            for batch in 1...batches {
                let start = ContinuousClock.now
                let r = try Reliability.geospend(["import", "expenses", parts[batch], "--db", live])
                let elapsed = ContinuousClock.now - start
                importSeconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                #expect(r.status == 0, "round \(round) import \(batch): \(r.err)")
            }
            importing.withLock { done = true }
            group.wait()
        }

        #expect(seen.failures.isEmpty, "\(seen.failures.prefix(5))")
        // The readers ran while the imports committed: between them they saw the database in
        // more than one state (else nothing above was tested concurrently). Only answers of
        // readers started during the imports count; the runs after them are checked apart.
        let whileImporting = Set(seen.statesSeen.values.flatMap { $0 })
        #expect(whileImporting.count >= 2, "readers running during the imports saw states \(whileImporting.sorted()): they never overlapped a commit")
        for q in Self.queries {
            #expect(seen.statesSeenAfterwards[q.name] == [batches], "\(q.name) after the last import: states \(seen.statesSeenAfterwards[q.name] ?? [])")
        }
        let waits = try String(contentsOfFile: lockLog, encoding: .utf8).split(separator: "\n").compactMap { Double($0.split(separator: " ")[0]) }
        #expect(waits.count == seen.count - seen.failures.count, "one lock-wait line per reader process")
        let intermediate = Self.queries.map { "\($0.name) \(seen.statesSeen[$0.name, default: []].sorted())" }.joined(separator: ", ")
        Reliability.report([
            "concurrency: \(rounds) rounds × \(batches) imports of \(rows) expenses with \(readers) reader processes: "
                + "\(seen.count) reader runs, \(seen.failures.count) failures (busy/locked errors or half imports)",
            "  states seen (0 = before the first import): \(intermediate)",
            String(format: "  reader lock wait (busy handler sleep): p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d of %d runs waited",
                Reliability.percentile(waits, 50), Reliability.percentile(waits, 99), waits.max() ?? 0, waits.filter { $0 > 0 }.count, waits.count),
            String(format: "  reader wall time per command: p50 %.0f ms, p99 %.0f ms; import of %d rows p50 %.0f ms",
                Reliability.percentile(seen.latencies, 50) * 1000, Reliability.percentile(seen.latencies, 99) * 1000, rows,
                Reliability.percentile(importSeconds, 50) * 1000),
        ])
    }
}
