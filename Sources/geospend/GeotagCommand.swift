import ArgumentParser
import Foundation
import GeoSpend

/// `geospend geotag`: put a user's bank payments on the map from their location history and
/// the merchant text (issue 36, docs/GEOTAG.md).
struct GeotagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geotag",
        abstract: "Place a user's expenses that have no position, from their location history and the merchant text.",
        discussion: """
            For each expense without a position: a timestamped payment is placed where
            the phone was then; a date-only booking at a store the merchant text names
            near that day's (or the day before's) stays; without history, at the one
            store of that name. Online payments (web shops, subscriptions, app stores,
            monthly series), income and transfers are never placed; a chain with
            several branches is decided by the history, or left for review.

            Examples:
              geospend import positions Timeline.json --user alice
              geospend geotag --user alice --timezone Europe/Helsinki --dry-run
              geospend geotag --user alice --timezone Europe/Helsinki --format json
              geospend geotag review --user alice
              geospend geotag confirm x0192… --user alice --store 288130404
              geospend geotag undo --user alice
            """,
        subcommands: [Run.self, Review.self, Confirm.self, Undo.self],
        defaultSubcommand: Run.self)

    enum Format: String, ExpressibleByArgument { case table, json }

    struct Options: ParsableArguments {
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user whose expenses to place.") var user: String
        @Option(help: "Expenses from this date (a local day) or RFC 3339 instant; inclusive.") var from: String?
        @Option(help: "Expenses to this date (inclusive) or RFC 3339 instant (exclusive).") var to: String?
        @Option(help: "The user's IANA time zone: bare dates on the statement are its days (default: the user's setting, else this machine's).")
        var timezone: String?
        @Option(help: "Leave placements below this confidence (0…1) for review.") var minConfidence: Double = 0

        func validate() throws {
            guard minConfidence.isFinite, (0...1).contains(minConfidence) else {
                throw ValidationError("--min-confidence takes a number from 0 to 1, not \(minConfidence)")
            }
            if let timezone { _ = try PositionsCommand.zone(named: timezone) }
        }

        func run(dryRun: Bool, on store: any Backend & PositionStore) async throws -> GeotagReport {
            let (from, to) = try TimeWindow.parsed(from: from, to: to, options: ("--from", "--to"))
            let run = GeotagRun(
                userID: Identity.normalized(user), from: from, to: to, timeZone: try await PositionsCommand.zone(timezone, of: user, in: store),
                minimumConfidence: minConfidence, dryRun: dryRun)
            return try await run.run(on: store)
        }

        func store(writable: Bool) async throws -> any Backend & PositionStore {
            let store = try await database.openBackend(writable: writable)
            try await NameChecks.user(user, in: store, database: database.path)
            return store
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Place the expenses (the default: `geospend geotag --user U` runs this).",
            usage: """
                geospend geotag [run] --user <user> [--from <from>] [--to <to>]
                  [--timezone <timezone>] [--min-confidence <p>] [--dry-run]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                A second run places nothing it placed before; an expense that has a
                position keeps it. Placed positions keep their provenance
                (position_source history, merchant or history+merchant, and the
                confidence), shown by `geospend expenses show` and in exported layers.

                Example:
                  geospend geotag --user alice --timezone Europe/Helsinki --dry-run
                """)
        @OptionGroup var options: Options
        @Flag(help: "Decide and report; write nothing.") var dryRun = false
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await options.store(writable: !dryRun)
            let report = try await options.run(dryRun: dryRun, on: store)
            switch format {
            case .json: printOut(GeotagJSON.report(report, dryRun: dryRun).serialized() + "\n")
            case .table: printOut(try await GeotagCommand.table(report, dryRun: dryRun, store: store))
            }
        }
    }

    struct Review: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "review",
            abstract: "List the expenses geotagging could not decide, with their candidate stores.",
            usage: """
                geospend geotag review --user <user> [--from <from>] [--to <to>]
                  [--timezone <timezone>] [--min-confidence <p>] [--format <format>]
                  [--db <db>]
                """,
            discussion: """
                Settle one with `geospend geotag confirm ID --user U --store S`.

                Example:
                  geospend geotag review --user alice --timezone Europe/Helsinki
                """)
        @OptionGroup var options: Options
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await options.store(writable: false)
            let report = try await options.run(dryRun: true, on: store).forReview
            switch format {
            case .json: printOut(GeotagJSON.report(report, dryRun: true).serialized() + "\n")
            case .table:
                let names = try await GeotagCommand.storeNames(Set(report.ambiguous.flatMap { $0.candidates.map(\.storeID) }), store)
                var rows: [[String]] = []
                for a in report.ambiguous {
                    for (n, c) in a.candidates.enumerated() {
                        rows.append([n == 0 ? a.id : "", c.storeID, OutputEscaping.visible(names[c.storeID] ?? "?"), String(format: "%.2f", c.score)])
                    }
                }
                printOut(TextTable(headers: ["expense", "store", "name", "score"], rows: rows).rendered())
                printErr("\(report.ambiguous.count) expenses to review; `geospend geotag confirm ID --user \(options.user) --store STORE` settles one")
            }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "confirm",
            abstract: "Settle one expense: place it at a store, or at a position given by hand.",
            usage: """
                geospend geotag confirm <id> --user <user>
                  (--store <store> | --lat <lat> --lon <lon>) [--db <db>]
                """,
            discussion: """
                Example:
                  geospend geotag confirm x0192… --user alice --store 288130404
                  geospend geotag confirm x0192… --user alice --lat 60.1699 --lon 24.9384
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The expense id.") var id: String
        @Option(help: "The user whose expense it is.") var user: String
        @Option(help: "The store it was paid at.") var store: String?
        @Option(parsing: .unconditional, help: "Latitude, with --lon, when no store fits.") var lat: Double?
        @Option(parsing: .unconditional, help: "Longitude, with --lat.") var lon: Double?

        func validate() throws {
            switch (store, lat, lon) {
            case (.some, nil, nil), (nil, .some, .some): return
            case (.some, _, _): throw ValidationError("--store or --lat/--lon: give one place")
            default: throw ValidationError("give --store STORE, or --lat and --lon")
            }
        }

        func run() async throws {
            let db = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            let place: GeotagConfirmation.Place = try store.map { .store($0) } ?? .position(Parse.coordinate(lat: lat!, lon: lon!))
            let user = Identity.normalized(user)
            switch try await GeotagConfirmation.confirm(id: id, userID: user, at: place, in: db) {
            case .placed(let stored):
                printOut(ExpenseOutput.render(stored, format: .text))
            case .noStore(let storeID):
                throw ValidationError("no store \(OutputEscaping.visible(storeID)); `geospend geotag review --user \(user)` lists the candidates")
            case .noExpense:
                throw ExpenseChanges.noExpense(id, user)
            case .alreadyPlaced(let existing):
                throw ValidationError(
                    "expense \(OutputEscaping.visible(id)) already has a position (\(existing.positionSource?.rawValue ?? "device")); "
                        + "`geospend geotag undo --user \(user) --id \(OutputEscaping.visible(id))` takes back an inferred one")
            }
        }
    }

    struct Undo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo",
            abstract: "Take back the positions geotagging inferred (all of the user's, or one).",
            discussion: """
                Positions given by hand, by a store confirmed with `geotag confirm`, or
                imported with the expense stay. Store links geotagging made go too.

                Example:
                  geospend geotag undo --user alice
                  geospend geotag undo --user alice --id x0192…
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user whose expenses to restore.") var user: String
        @Option(help: "Only this expense.") var id: String?

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let restored = try await store.unplace(userID: Identity.normalized(user), expenseID: id)
            if let id, restored.isEmpty {
                throw ValidationError("expense \(OutputEscaping.visible(id)) of user \(user) has no inferred position to take back")
            }
            printOut("restored \(restored.count) expenses to no position\(restored.isEmpty ? "" : ": " + restored.map(OutputEscaping.visible).joined(separator: ", "))\n")
        }
    }

    static func storeNames(_ ids: Set<String>, _ store: any ExpenseStore) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        return try await store.read { try $0.stores(withIDs: ids) }.mapValues(\.displayName)
    }

    /// The report for a person: what was placed where, what needs review, why the rest was not.
    static func table(_ r: GeotagReport, dryRun: Bool, store: any ExpenseStore) async throws -> String {
        let names = try await storeNames(Set(r.placed.compactMap(\.storeID)), store)
        var out = ""
        if !r.placed.isEmpty {
            out += TextTable(
                headers: ["expense", "lat", "lon", "store", "confidence", "source"],
                rows: r.placed.map { p in
                    [p.id, String(format: "%.6f", p.coordinate.latitude), String(format: "%.6f", p.coordinate.longitude),
                     OutputEscaping.visible(p.storeID.flatMap { names[$0] } ?? "-"), String(format: "%.2f", p.confidence), p.source.rawValue]
                }, rightAligned: [4]
            ).rendered()
        }
        return out + summary(r, dryRun: dryRun) + "\n"
    }

    /// One line: how many were placed, are ambiguous, and why the rest were not.
    static func summary(_ r: GeotagReport, dryRun: Bool) -> String {
        var reasons: [GeotagUnplacedReason: Int] = [:]
        for u in r.unplaced { reasons[u.reason, default: 0] += 1 }
        let why = GeotagUnplacedReason.allCases.compactMap { reason in reasons[reason].map { "\($0) \(reason.rawValue)" } }
        return "\(dryRun ? "would place" : "placed") \(r.placed.count), ambiguous \(r.ambiguous.count) (`geospend geotag review`), "
            + "unplaced \(r.unplaced.count)\(why.isEmpty ? "" : " (" + why.joined(separator: ", ") + ")")"
    }
}
