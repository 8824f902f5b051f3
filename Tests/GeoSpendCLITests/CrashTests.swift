import Foundation
import GeoSpend
import Testing

/// SIGKILL at seeded random moments of `geospend import`, a real process on a real file: after
/// every kill the file holds none or all of the import's rows, SQLite's integrity check passes,
/// SpatiaLite's `CheckSpatialIndex` agrees with both tables, the schema (including the triggers
/// and indexes a first import sets aside) is exactly as before, and importing again succeeds.
/// Checked with Debian's `spatialite` shell, not with GeoSpend's own code.
@Suite(.serialized) struct CrashTests {
    /// What is being imported when the kill comes.
    enum Scenario: String, CaseIterable {
        /// 5,000 expenses into a file holding only stores: the bulk path (triggers and secondary
        /// indexes dropped, R*Tree packed, indexes rebuilt before commit).
        case firstExpenses = "first import into empty expenses"
        /// The same 5,000 into a file that already holds 2,000 expenses: the per-row R*Tree path.
        case moreExpenses = "import into non-empty expenses"
        /// 936 stores into a file that does not exist: creating SpatiaLite's metadata, the
        /// migrations, then the bulk load of stores.
        case firstStores = "first import into a new file"
    }

    struct Setup {
        var template: String?  // nil: the file does not exist before
        var arguments: [String]
        var after: Reliability.FileState
        var before: Int  // expenses (or stores) before
        var seconds: Double  // how long a whole import took
    }

    @Test func sigkillDuringImportLeavesNoneOrAllAndIntactIndexes() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Reliability.spatialite), "needs Debian's spatialite-bin")
        // Kills that land before the process exits; runs that finish first do not count (at most 4× as many runs).
        let kills = Reliability.runs(quick: 24)
        let dir = Reliability.scratch("crash")
        defer { try? FileManager.default.removeItem(at: dir) }
        let parts = try Reliability.expenseFiles([2000, 5000], seed: Reliability.seed, in: dir)
        let storesOnly = dir.appendingPathComponent("stores-only.sqlite").path
        let withExpenses = dir.appendingPathComponent("with-expenses.sqlite").path
        #expect(try Reliability.geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", storesOnly]).status == 0)
        try Reliability.copy(storesOnly, to: withExpenses)
        #expect(try Reliability.geospend(["import", "expenses", parts[0], "--db", withExpenses]).status == 0)

        // Each scenario once to the end: its final state, and how long it takes (the kill window).
        var setups: [Scenario: Setup] = [:]
        for scenario in Scenario.allCases {
            var setup: Setup
            switch scenario {
            case .firstExpenses: setup = Setup(template: storesOnly, arguments: ["import", "expenses", parts[1]], after: .init(integrity: "", spatialIndexes: [], schema: ""), before: 0, seconds: 0)
            case .moreExpenses: setup = Setup(template: withExpenses, arguments: ["import", "expenses", parts[1]], after: .init(integrity: "", spatialIndexes: [], schema: ""), before: 2000, seconds: 0)
            case .firstStores: setup = Setup(template: nil, arguments: ["import", "stores", "Data/helsinki-places.geojson"], after: .init(integrity: "", spatialIndexes: [], schema: ""), before: 0, seconds: 0)
            }
            // The fastest of three whole imports is the kill window (the machine is shared: a
            // slower run would put more kills after the end).
            let db = dir.appendingPathComponent("reference.sqlite").path
            var times: [Double] = []
            for _ in 0..<3 {
                try prepare(setup, db)
                let (seconds, finished) = try Reliability.launch(setup.arguments + ["--db", db], killAfter: nil)
                try #require(finished)
                times.append(seconds)
            }
            setup.seconds = times.min()!
            setup.after = try Reliability.state(of: db)
            #expect(setup.after.integrity == "ok" && setup.after.spatialIndexes == ["1", "1"])
            setups[scenario] = setup
        }

        var rng = SplitMix64(seed: Reliability.seed)
        var outcomes: [String: Int] = [:]
        var failures = 0
        let db = dir.appendingPathComponent("killed.sqlite").path
        var run = 0
        while run - outcomes["finished before the kill", default: 0] < kills && run < 4 * kills {
            defer { run += 1 }
            let scenario = Scenario.allCases[run % Scenario.allCases.count]
            let setup = setups[scenario]!
            try prepare(setup, db)
            // Uniform over the whole import, start-up and commit included.
            let delay = Double.random(in: 0...setup.seconds, using: &rng)
            let (_, finished) = try Reliability.launch(setup.arguments + ["--db", db], killAfter: delay)

            let state = try Reliability.state(of: db)
            let rows = scenario == .firstStores ? state.stores : state.expenses
            let afterRows = scenario == .firstStores ? setup.after.stores! : setup.after.expenses!
            let context = "run \(run) (\(scenario.rawValue), kill at \(String(format: "%.3f", delay)) s)"
            var ok = state.integrity == "ok"
            #expect(state.integrity == "ok", "\(context): integrity \(state.integrity)")
            if let rows {
                ok = ok && (rows == setup.before || rows == afterRows) && state.spatialIndexes == ["1", "1"]
                #expect(rows == setup.before || rows == afterRows, "\(context): \(rows) rows, neither \(setup.before) nor \(afterRows)")
                #expect(state.spatialIndexes == ["1", "1"], "\(context): CheckSpatialIndex \(state.spatialIndexes)")
                // A first open is all-or-nothing (built aside, linked in whole): a file that exists
                // has the whole schema, whenever the kill came. Imports never change it.
                #expect(state.schema == setup.after.schema, "\(context): the schema changed (triggers or indexes lost?)")
                ok = ok && state.schema == setup.after.schema
                outcomes[finished ? "finished before the kill" : rows == setup.before ? "killed: none of the rows" : "killed: all of the rows", default: 0] += 1
            } else {
                #expect(scenario == .firstStores, "\(context): GeoSpend's tables are gone")
                outcomes["killed: none of the rows (no tables yet)", default: 0] += 1
            }

            // Importing again finishes the job, whatever the kill left.
            let again = try Reliability.geospend(setup.arguments + ["--db", db])
            #expect(again.status == 0, "\(context): re-import failed: \(again.err)")
            // A first open killed half-way left its hidden temporary file; the next one removes it.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".killed.sqlite.creating-") }
            #expect(rows != nil || leftovers.isEmpty, "\(context): leftovers of the killed first open stayed: \(leftovers)")
            let repaired = try Reliability.state(of: db)
            #expect(repaired == setup.after, "\(context): after re-import the file differs from a clean import")
            if !ok || again.status != 0 || repaired != setup.after { failures += 1 }
        }
        #expect(run - outcomes["finished before the kill", default: 0] >= kills, "too few kills landed before the import ended")
        Reliability.report(
            ["crash (SIGKILL during import): \(run) runs, \(run - outcomes["finished before the kill", default: 0]) killed before exiting, \(failures) failures; kill windows "
                + Scenario.allCases.map { "\($0.rawValue) \(String(format: "%.2f", setups[$0]!.seconds)) s" }.joined(separator: ", ")]
                + outcomes.sorted { $0.key < $1.key }.map { "  \($0.key): \($0.value)" })
    }

    /// Puts the scenario's starting file at `db` (or removes it).
    private func prepare(_ setup: Setup, _ db: String) throws {
        if let template = setup.template {
            try Reliability.copy(template, to: db)
        } else {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
        }
    }
}
