import ArgumentParser
import Foundation
import GeoSpend

/// `geospend evaluate …`: GeoSpend's inferences measured against simulated ground truth.
struct EvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure an inference against simulated people whose truth is known.",
        discussion: """
            Example:
              geospend evaluate geotag
              geospend evaluate geotag --seeds 101-108 --speed --format json
            """,
        subcommands: [EvaluateGeotagCommand.self])
}

/// `geospend evaluate geotag`: the geotagger on `GeotagSimulator`'s people, scored by
/// `GeotagEvaluation` against issue 36's goals, on held-out seeds beside the tuning seeds;
/// `--speed` times the issue's 1M-position read and 100k-expense geotag (docs/GEOTAG.md).
struct EvaluateGeotagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geotag",
        abstract: "Score the geotagger on simulated people in Helsinki against issue 36's goals.",
        usage: """
            geospend evaluate geotag [--stores <stores>] [--seeds <seeds>]
              [--tuning-seeds <tuning-seeds>] [--people <people>] [--days <days>]
              [--format <format>] [--speed] [--speed-positions <n>]
              [--speed-expenses <n>]
            """,
        discussion: """
            For each seed, GeotagSimulator makes --people people living --days days
            among the places of --stores (their location histories, bank statements
            and where each payment really was); the geotagger places the statement
            lines and GeotagEvaluation scores the answers. Goals (issue 36):
            precision >= 0.98 (within 100 m, the right store when one is named),
            recall >= 0.90 of in-person payments with a timestamp and >= 0.75 of
            date-only ones, no online payment or income placed, median error <= 25 m,
            and of placements with confidence >= 0.9 at least 90 % right.

            --seeds are the held-out seeds the goals are judged on (default 101-108).
            The geotagger was tuned on seeds 1-8: they are reported beside, labelled
            "tuning seeds" (--tuning-seeds none leaves them out), and are not a test.

            --speed also writes a synthetic Takeout Records.json of --speed-positions
            fixes to a temporary file, times reading it (goal <= 10 s for 1,000,000,
            with the peak resident memory) and geotagging --speed-expenses expenses
            against the fixes read (goal <= 5 s for 100,000). Speed goals apply to a
            release build.

            --stores is the places file, else $GEOSPEND_PLACES, else
            Data/helsinki-places.geojson found as `generate` finds it. Progress goes
            to stderr. Exit status 1 when a goal is unmet on the held-out seeds'
            total (or, with --speed, a time goal at the default sizes).

            Example:
              geospend evaluate geotag
              geospend evaluate geotag --seeds 9-16 --people 10 --days 14
              geospend evaluate geotag --seeds 1,2,3 --tuning-seeds none --format json
              geospend evaluate geotag --speed --format json > geotag-eval.json
            """)

    @Option(help: "The places, GeoJSON or CSV (default: see below).") var stores: String?
    @Option(help: "Held-out seeds: a list and ranges, e.g. 101-108 or 1,2,3.") var seeds: SeedList = SeedList.holdout
    @Option(help: "The seeds the geotagger was tuned on, reported beside ('none' to skip).") var tuningSeeds: SeedList = SeedList.tuning
    @Option(help: "Simulated people per seed.") var people: Int = 20
    @Option(help: "Simulated days per person.") var days: Int = 28
    @Option(help: "table or json.") var format: EvaluateFormat = .table
    @Flag(help: "Also time reading 1M positions and geotagging 100k expenses.") var speed = false
    @Option(help: "Fixes in --speed's Records.json.") var speedPositions: Int = 1_000_000
    @Option(help: "Expenses geotagged in --speed.") var speedExpenses: Int = 100_000

    enum EvaluateFormat: String, ExpressibleByArgument { case table, json }

    func validate() throws {
        guard !seeds.values.isEmpty else { throw ValidationError("--seeds: give at least one seed") }
        guard (1...1000).contains(people) else { throw ValidationError("--people must be between 1 and 1000") }
        // The simulation starts 2026-02-02; a year of days at most.
        guard (1...366).contains(days) else { throw ValidationError("--days must be between 1 and 366") }
        guard (1...20_000_000).contains(speedPositions) else { throw ValidationError("--speed-positions must be between 1 and 20000000") }
        guard (1...10_000_000).contains(speedExpenses) else { throw ValidationError("--speed-expenses must be between 1 and 10000000") }
    }

    func run() async throws {
        let placesFile = try stores ?? GenerateCommand.defaultPlaces()
        let places = try Importer.readStores(from: placesFile)
        guard places.contains(where: { $0.name != nil }) else {
            throw ValidationError("--stores \(placesFile): no place has a name; the simulator needs named places")
        }
        let overlap = Set(seeds.values).intersection(SeedList.tuning.values)
        if !overlap.isEmpty {
            printErr("note: seeds \(SeedList(overlap.sorted()).text) are tuning seeds (the geotagger was tuned on 1-8): not a held-out test")
        }
        let holdout = evaluate(seeds.values, label: "held-out", places: places)
        let tuning = tuningSeeds.values.isEmpty ? nil : evaluate(tuningSeeds.values, label: "tuning", places: places)
        let timing = speed ? try SpeedRun.measure(GeotagSpeedWorkload(places: places, positions: speedPositions, expenses: speedExpenses)) : nil
        let atIssueSizes = speedPositions == 1_000_000 && speedExpenses == 100_000
        var unmet = holdout.total.unmetGoals
        if let timing, atIssueSizes { unmet += timing.unmetGoals }

        let report = EvaluationReport(
            placesFile: placesFile, places: places.count, people: people, days: days,
            holdout: holdout, tuning: tuning, speed: timing, unmetGoals: unmet)
        switch format {
        case .json: printOut(report.json.serialized() + "\n")
        case .table: printOut(report.table)
        }
        if !unmet.isEmpty {
            printErr("geospend: evaluate geotag: \(unmet.count) goal\(unmet.count == 1 ? "" : "s") unmet: \(unmet.joined(separator: "; "))")
            throw ExitCode(1)
        }
    }

    /// Simulates and scores each seed, and their total.
    private func evaluate(_ seeds: [UInt64], label: String, places: [Store]) -> SeedsEvaluation {
        var result = SeedsEvaluation(seeds: seeds)
        let clock = ContinuousClock()
        for seed in seeds {
            var run = SeedRun(seed: seed)
            let elapsed = clock.measure {
                let simulation = GeotagSimulator(stores: places, configuration: .init(seed: seed, people: people, days: days))
                run.statementLines = simulation.people.reduce(0) { $0 + $1.expenses.count }
                run.fixes = simulation.people.reduce(0) { $0 + $1.history.positions.count }
                run.evaluation = GeotagEvaluation(simulation: simulation)
            }
            run.seconds = elapsed.seconds
            printErr("evaluate geotag: \(label) seed \(seed): \(people) people × \(days) days, \(run.statementLines) statement lines, \(run.fixes) fixes, \(String(format: "%.1f", run.seconds)) s")
            result.runs.append(run)
            result.total.add(run.evaluation)
        }
        return result
    }
}

/// Seeds as `101-108`, `1,2,3`, `1-4,9` or `none`.
struct SeedList: ExpressibleByArgument, Sendable {
    var values: [UInt64]
    static let holdout = SeedList(Array(101...108))
    static let tuning = SeedList(Array(1...8))

    init(_ values: [UInt64]) { self.values = values }

    init?(argument: String) {
        guard argument != "none" else {
            self.values = []
            return
        }
        var out: [UInt64] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count), let a = UInt64(ends[0]), let b = UInt64(ends.last!), a <= b, b - a < 1000 else { return nil }
            out += Array(a...b)
        }
        guard out.count <= 1000, Set(out).count == out.count else { return nil }
        self.values = out
    }

    static var defaultCompletionKind: CompletionKind { .default }

    /// Back to the shortest text: runs of consecutive seeds as ranges.
    var text: String {
        var parts: [String] = []
        var i = 0
        while i < values.count {
            var j = i
            while j + 1 < values.count, values[j + 1] == values[j] &+ 1 { j += 1 }
            parts.append(i == j ? "\(values[i])" : "\(values[i])-\(values[j])")
            i = j + 1
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ",")
    }

    var defaultValueDescription: String { text }
}

extension SeedList: CustomStringConvertible {
    var description: String { text }
}

/// One seed's figures.
struct SeedRun {
    var seed: UInt64
    var statementLines = 0
    var fixes = 0
    var seconds = 0.0
    var evaluation = GeotagEvaluation()
}

/// Several seeds' figures and their total.
struct SeedsEvaluation {
    var seeds: [UInt64]
    var runs: [SeedRun] = []
    var total = GeotagEvaluation()
}

/// `--speed`: reading a Records.json of the workload's fixes, then geotagging its expenses
/// against the fixes read.
struct SpeedRun {
    var positions = 0
    var expenses = 0
    var fileBytes: Int64 = 0
    var writeSeconds = 0.0
    var readSeconds = 0.0
    /// The process's peak resident memory before and after the read (getrusage), MiB.
    var peakRSSBeforeReadMiB = 0.0
    var peakRSSAfterReadMiB = 0.0
    /// Building the geotagger (stays detected from the fixes, the store index).
    var taggerSeconds = 0.0
    var geotagSeconds = 0.0
    var placed = 0
    var ambiguous = 0
    var unplaced = 0

    static let readGoalSeconds = 10.0
    static let geotagGoalSeconds = 5.0

    var totalGeotagSeconds: Double { taggerSeconds + geotagSeconds }

    var unmetGoals: [String] {
        var out: [String] = []
        if readSeconds > Self.readGoalSeconds {
            out.append("reading \(positions) positions took \(String(format: "%.2f", readSeconds)) s > \(Self.readGoalSeconds) s")
        }
        if totalGeotagSeconds > Self.geotagGoalSeconds {
            out.append("geotagging \(expenses) expenses took \(String(format: "%.2f", totalGeotagSeconds)) s > \(Self.geotagGoalSeconds) s")
        }
        return out
    }

    static func peakRSSMiB() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1024  // KiB on Linux
    }

    static func measure(_ workload: GeotagSpeedWorkload) throws -> SpeedRun {
        var run = SpeedRun(positions: workload.positionCount, expenses: workload.expenseCount)
        let clock = ContinuousClock()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-speed-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("Records.json").path
        TemporaryFiles.register(path)
        defer {
            try? FileManager.default.removeItem(at: folder)
            TemporaryFiles.unregister(path)
        }
        printErr("evaluate geotag: speed: writing \(workload.positionCount) fixes as Records.json to \(path)")
        run.writeSeconds = try clock.measure { try LocationHistoryWriter.write(workload.positions, format: .googleRecords, to: path) }.seconds
        run.fileBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
        run.peakRSSBeforeReadMiB = peakRSSMiB()
        printErr("evaluate geotag: speed: reading \(run.fileBytes / 1_000_000) MB (\(String(format: "%.1f", run.writeSeconds)) s to write)")
        var history = LocationHistory()
        run.readSeconds = try clock.measure { history = try LocationHistoryReader.read(path: path, format: .googleRecords).history }.seconds
        run.peakRSSAfterReadMiB = peakRSSMiB()
        guard history.positions.count == workload.positionCount else {
            throw ValidationError("--speed: read \(history.positions.count) of the \(workload.positionCount) fixes written")
        }
        let expenses = workload.expenses()
        printErr("evaluate geotag: speed: read in \(String(format: "%.2f", run.readSeconds)) s; geotagging \(expenses.count) expenses")
        var tagger: Geotagger?
        run.taggerSeconds = clock.measure {
            tagger = Geotagger(history: history, stores: workload.places, timeZone: GeotagSimulator.timeZone)
        }.seconds
        var report = GeotagReport([])
        run.geotagSeconds = clock.measure { report = tagger!.geotag(expenses) }.seconds
        (run.placed, run.ambiguous, run.unplaced) = (report.placed.count, report.ambiguous.count, report.unplaced.count)
        return run
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// What `evaluate geotag` prints, as a table or JSON.
struct EvaluationReport {
    var placesFile: String
    var places: Int
    var people: Int
    var days: Int
    var holdout: SeedsEvaluation
    var tuning: SeedsEvaluation?
    var speed: SpeedRun?
    var unmetGoals: [String]

    static var build: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    static func rounded(_ x: Double) -> JSONOutput { .number(x, decimals: 6) }

    static func json(_ e: GeotagEvaluation) -> [(String, JSONOutput)] {
        [
            ("in_person_timestamped", .integer(Int64(e.inPersonTimestamped))), ("in_person_date_only", .integer(Int64(e.inPersonDateOnly))),
            ("placed", .integer(Int64(e.placed))), ("placed_right", .integer(Int64(e.placedRight))), ("ambiguous", .integer(Int64(e.ambiguous))),
            ("precision", rounded(e.precision)), ("recall_timestamped", rounded(e.recallTimestamped)), ("recall_date_only", rounded(e.recallDateOnly)),
            ("online_placed", .integer(Int64(e.onlinePlaced))), ("non_expenses_placed", .integer(Int64(e.notExpensesPlaced))),
            ("median_error_m", .number(e.medianErrorMeters, decimals: 1)),
            ("history_only_placed", .integer(Int64(e.historyOnlyErrorsMeters.count))),
            ("median_error_history_only_m", .number(e.medianHistoryOnlyErrorMeters, decimals: 1)),
            ("calibration", rounded(e.calibration)), ("high_confidence_placed", .integer(Int64(e.highConfidence))),
            ("unmet_goals", .array(e.unmetGoals.map { .string($0) })),
        ]
    }

    static func json(_ s: SeedsEvaluation, label: String) -> JSONOutput {
        .object([
            ("label", .string(label)), ("seeds", .array(s.seeds.map { .integer(Int64($0)) })),
            ("total", .object(json(s.total) + [("mistakes", .array(s.total.mistakes.prefix(10).map { .string($0) }))])),
            (
                "per_seed",
                .array(s.runs.map { r in
                    .object(
                        [("seed", .integer(Int64(r.seed))), ("statement_lines", .integer(Int64(r.statementLines))), ("fixes", .integer(Int64(r.fixes)))]
                            + json(r.evaluation) + [("seconds", .number(r.seconds, decimals: 2))])
                })
            ),
        ])
    }

    var json: JSONOutput {
        typealias Goal = GeotagEvaluation.Goal
        var members: [(String, JSONOutput)] = [
            ("build", .string(Self.build)),
            ("stores_file", .string(placesFile)), ("places", .integer(Int64(places))),
            ("people", .integer(Int64(people))), ("days", .integer(Int64(days))),
            (
                "goals",
                .object([
                    ("precision", .number(Goal.precision, decimals: 2)), ("recall_timestamped", .number(Goal.recallTimestamped, decimals: 2)),
                    ("recall_date_only", .number(Goal.recallDateOnly, decimals: 2)), ("online_placed", .integer(Int64(Goal.onlinePlaced))),
                    ("median_error_m", .number(Goal.medianErrorMeters, decimals: 1)), ("calibration", .number(Goal.calibration, decimals: 2)),
                    ("read_seconds", .number(SpeedRun.readGoalSeconds, decimals: 1)), ("geotag_seconds", .number(SpeedRun.geotagGoalSeconds, decimals: 1)),
                ])
            ),
            ("holdout", Self.json(holdout, label: "held-out seeds")),
        ]
        if let tuning { members.append(("tuning", Self.json(tuning, label: "tuning seeds (not a held-out test)"))) }
        if let s = speed {
            members.append((
                "speed",
                .object([
                    ("positions", .integer(Int64(s.positions))), ("expenses", .integer(Int64(s.expenses))),
                    ("records_json_bytes", .integer(s.fileBytes)), ("write_seconds", .number(s.writeSeconds, decimals: 2)),
                    ("read_seconds", .number(s.readSeconds, decimals: 2)),
                    ("peak_rss_before_read_mib", .number(s.peakRSSBeforeReadMiB, decimals: 1)),
                    ("peak_rss_after_read_mib", .number(s.peakRSSAfterReadMiB, decimals: 1)),
                    ("tagger_build_seconds", .number(s.taggerSeconds, decimals: 2)), ("geotag_seconds", .number(s.geotagSeconds, decimals: 2)),
                    ("geotag_total_seconds", .number(s.totalGeotagSeconds, decimals: 2)),
                    ("placed", .integer(Int64(s.placed))), ("ambiguous", .integer(Int64(s.ambiguous))), ("unplaced", .integer(Int64(s.unplaced))),
                    ("unmet_goals", .array(s.unmetGoals.map { .string($0) })),
                ])
            ))
        }
        members += [("unmet_goals", .array(unmetGoals.map { .string($0) })), ("goals_met", .bool(unmetGoals.isEmpty))]
        return .object(members)
    }

    static func table(_ s: SeedsEvaluation, title: String) -> String {
        func f(_ x: Double) -> String { String(format: "%.3f", x) }
        func meters(_ x: Double) -> String { x.isFinite ? "\(Int(x.rounded())) m" : "-" }
        func row(_ name: String, _ lines: String, _ fixes: String, _ e: GeotagEvaluation) -> [String] {
            [
                name, lines, fixes, "\(e.inPersonTimestamped) / \(e.inPersonDateOnly)", "\(e.placed)", "\(e.ambiguous)", f(e.precision),
                f(e.recallTimestamped), f(e.recallDateOnly), "\(e.onlinePlaced)", "\(e.notExpensesPlaced)",
                meters(e.medianErrorMeters), "\(meters(e.medianHistoryOnlyErrorMeters)) (\(e.historyOnlyErrorsMeters.count))",
                "\(f(e.calibration)) (\(e.highConfidence))",
            ]
        }
        var rows = s.runs.map { row("\($0.seed)", "\($0.statementLines)", "\($0.fixes)", $0.evaluation) }
        rows.append(row(
            "total", "\(s.runs.reduce(0) { $0 + $1.statementLines })", "\(s.runs.reduce(0) { $0 + $1.fixes })", s.total))
        let table = TextTable(
            headers: ["seed", "lines", "fixes", "in person (ts / date)", "placed", "ambiguous", "precision", "recall ts", "recall date",
                "online placed", "non-expenses placed", "median error", "no store: median error (n)", "calibration (n)"],
            rows: rows, rightAligned: Set(1...13))
        var out = "\(title) \(SeedList(s.seeds).text)\n" + table.rendered()
        let perSeed = s.runs.filter { !$0.evaluation.unmetGoals.isEmpty }
        for r in perSeed { out += "  seed \(r.seed) alone misses: \(r.evaluation.unmetGoals.joined(separator: "; "))\n" }
        return out
    }

    var table: String {
        var out = "geotag evaluation (\(Self.build) build): \(people) people × \(days) days per seed, \(places) places from \(placesFile)\n"
        out += "goals: precision >= 0.98, recall >= 0.90 (timestamped) and >= 0.75 (date-only), 0 online placed, median error <= 25 m, calibration >= 0.9\n\n"
        out += Self.table(holdout, title: "held-out seeds")
        if let tuning { out += "\n" + Self.table(tuning, title: "tuning seeds (the geotagger was tuned on them; not a test)") }
        if let s = speed {
            out += "\nspeed (\(Self.build) build):\n"
            out += String(format: "  read %d positions from Records.json (%.0f MB): %.2f s (goal <= %.0f s); peak RSS %.0f MiB before the read, %.0f MiB after\n",
                s.positions, Double(s.fileBytes) / 1e6, s.readSeconds, SpeedRun.readGoalSeconds, s.peakRSSBeforeReadMiB, s.peakRSSAfterReadMiB)
            out += String(format: "  geotag %d expenses against them: %.2f s (goal <= %.0f s; %.2f s building the tagger, %.2f s deciding); %d placed, %d ambiguous, %d unplaced\n",
                s.expenses, s.totalGeotagSeconds, SpeedRun.geotagGoalSeconds, s.taggerSeconds, s.geotagSeconds, s.placed, s.ambiguous, s.unplaced)
        }
        out += "\n" + (unmetGoals.isEmpty ? "all goals met on the held-out seeds\n" : "unmet goals:\n" + unmetGoals.map { "  \($0)\n" }.joined())
        return out
    }
}
