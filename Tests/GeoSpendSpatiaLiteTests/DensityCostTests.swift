import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// Density surfaces estimate their work first and refuse past a bound; long ones report
/// progress (issue 22, item 13).
@Suite struct DensityCostTests {
    /// `n` geotagged expenses at one spot (the cost model counts expenses, not where they are;
    /// one spot keeps the surface small for a debug build), the last `late` on a later day.
    static func store(_ scratch: Scratch, expenses n: Int, late: Int = 0) async throws -> SpatiaLiteStore {
        var csv = ImportTests.header
        for i in 0..<n {
            csv += "d\(i),ann,expense,1.00,EUR,\(i < n - late ? "2025-03-01" : "2025-03-02"),,,,60.17,24.94,,,\n"
        }
        let store = try scratch.store()
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", csv), into: store)
        return store
    }

    @Test func tooMuchKernelWorkIsRefusedBeforeItStarts() async throws {
        let scratch = Scratch()
        let store = try await Self.store(scratch, expenses: 13_000, late: 10)
        let request = MapExportRequest(filter: ExpenseFilter(userID: "ann"))
        // 13,000 expenses × (2·200/1 + 2)² = 2.1·10⁹ evaluations: over the bound. Refused up
        // front, not after the work: no kernel progress is ever reported (a count of work done,
        // not a wall-clock limit, which a loaded machine broke).
        nonisolated(unsafe) var progress: [(Int, Int)] = []
        await #expect {
            try await MapExport.geoJSON(.density(bandwidthMeters: 200, cellMeters: 1), request, store: store, to: ByteSink()) { done, total in
                progress.append((done, total))
            }
        } throws: { error in
            guard case ExportError.tooMuchWork(let reason) = error else { return false }
            return reason.contains("2.1e+09 kernel evaluations (13000 expenses × 161604 cells each)")
                && reason.contains("Use a larger --cell") && reason.contains("--user")
        }
        #expect(progress.isEmpty, "\(progress.count) progress reports before the refusal")
        // A window with 10 of the expenses passes.
        let window = MapExportRequest(filter: ExpenseFilter(userID: "ann", from: try Timestamp(parsing: "2025-03-02")))
        let summary = try await MapExport.geoJSON(.density(bandwidthMeters: 200, cellMeters: 1), window, store: store, to: ByteSink())
        #expect(summary.features > 100_000)
    }

    @Test func progressComesEveryFewMillionEvaluations() async throws {
        let scratch = Scratch()
        let store = try await Self.store(scratch, expenses: 60)
        let request = MapExportRequest(filter: ExpenseFilter(userID: "ann"))
        nonisolated(unsafe) var calls: [(Int, Int)] = []
        // 60 × (2·200/1 + 2)² = 9.7·10⁶ evaluations: a report every 24 expenses. Before, one at
        // the end: every 16,384 expenses was 2.6·10⁹ evaluations apart at this footprint.
        _ = try await MapExport.geoJSON(.density(bandwidthMeters: 200, cellMeters: 1), request, store: store, to: ByteSink()) { done, total in
            calls.append((done, total))
        }
        #expect(calls.count >= 3)
        #expect(calls.allSatisfy { $0.1 == 60 })
        #expect(calls.last?.0 == 60)
    }
}
