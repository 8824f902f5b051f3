import ArgumentParser
import Foundation
import GeoSpend

/// `geospend positions`: a user's location history as stored (issue 36).
struct PositionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "positions",
        abstract: "A user's location history: list the fixes, summarise the days covered, delete.",
        discussion: """
            The history comes in with `geospend import positions`; `geospend geotag`
            reads it to place payments. It is the most private data GeoSpend keeps:
            every command here names one user, and no output for other users or for
            all users reads it.

            Example:
              geospend positions summary --user alice --timezone Europe/Helsinki
              geospend positions list --user alice --from 2026-03-05 --to 2026-03-05
              geospend positions delete --user alice --before 2026-01-01 --yes
              geospend positions prune
            """,
        subcommands: [List.self, Summary.self, Delete.self, Prune.self])

    /// `--user`, `--from`, `--to` and `--timezone` (bare dates are local days in it).
    struct Selection: ParsableArguments {
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user whose history it is.") var user: String
        @Option(help: "From this date (a local day in --timezone) or RFC 3339 instant; inclusive.") var from: String?
        @Option(help: "To this date (a local day, inclusive) or RFC 3339 instant (exclusive).") var to: String?
        @Option(help: "The user's IANA time zone for bare dates and days (default: the user's setting, else this machine's).")
        var timezone: String?

        /// Bad dates and zone names are usage errors before any database is opened.
        func validate() throws {
            if let timezone { _ = try PositionsCommand.zone(named: timezone) }
            _ = try window(in: .gmt)
        }

        /// `--timezone`, else the user's setting, else this machine's zone.
        func zone(in store: some UserSettingsStore) async throws -> TimeZone {
            try await PositionsCommand.zone(timezone, of: user, in: store)
        }

        /// The window as instants `[from, to)`.
        func window(in zone: TimeZone) throws -> (from: Int64?, to: Int64?) {
            try PositionJSON.window(from: from, to: to, zone: zone, names: ("--from", "--to"))
        }

        /// The store, after checking the user exists (a typo gets a suggestion, not "no fixes").
        func store(writable: Bool = false) async throws -> any Backend & PositionStore {
            let store = try await database.openBackend(writable: writable)
            try await NameChecks.user(user, in: store, database: database.path)
            return store
        }
    }

    /// A `--timezone` value (`UserSettings.zone(named:)`); a usage error naming the option otherwise.
    static func zone(named name: String) throws -> TimeZone {
        guard let zone = UserSettings.zone(named: name) else {
            throw ValidationError("--timezone \(name): not an IANA time zone name (e.g. Europe/Helsinki, America/New_York)")
        }
        return zone
    }

    /// The zone `user`'s bare dates are days of: `--timezone` when given, else the user's
    /// setting (`geospend users settings`), else this machine's (docs/GEOTAG.md § Time zones).
    static func zone(_ name: String?, of user: String, in store: some UserSettingsStore) async throws -> TimeZone {
        if let name { return try zone(named: name) }
        return try await store.timeZone(of: user, else: .current)
    }


    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The user's fixes in time order (and the visits the history recorded).",
            usage: """
                geospend positions list --user <user> [--from <from>] [--to <to>]
                  [--timezone <timezone>] [--limit <limit>] [--format <format>]
                  [--db <db>]
                """,
            discussion: """
                Example:
                  geospend positions list --user alice --from 2026-03-05 --to 2026-03-05 \\
                    --timezone Europe/Helsinki
                  geospend positions list --user alice --format csv --limit 0 > fixes.csv
                """)
        @OptionGroup var selection: Selection
        @Option(help: "At most this many fixes (0: all).") var limit: Int = 100
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func validate() throws {
            guard limit >= 0 else { throw ValidationError("--limit must be 0 (all) or more, not \(limit)") }
        }

        func run() async throws {
            let store = try await selection.store()
            let (from, to) = try selection.window(in: try await selection.zone(in: store))
            let history = try await store.locationHistory(userID: Identity.normalized(selection.user), from: from, to: to)
            let fixes = limit == 0 ? history.positions[...] : history.positions.prefix(limit)
            switch format {
            case .json:
                printOut(PositionJSON.list(history, shown: fixes).serialized() + "\n")
            case .csv:
                var out = "time,lat,lon,accuracy,source\n"
                for p in fixes {
                    out += "\(PositionJSON.utcText(p.epochMilliseconds)),\(p.coordinate.latitude),\(p.coordinate.longitude),"
                        + "\(p.accuracyMeters.map { "\($0)" } ?? ""),\(p.source.rawValue)\n"
                }
                printOut(out)
            case .table:
                let rows = fixes.map { p in
                    [PositionJSON.utcText(p.epochMilliseconds), String(format: "%.6f", p.coordinate.latitude), String(format: "%.6f", p.coordinate.longitude),
                     p.accuracyMeters.map { String(format: "%.0f m", $0) } ?? "-", p.source.rawValue]
                }
                printOut(TextTable(headers: ["time (UTC)", "lat", "lon", "accuracy", "source"], rows: Array(rows)).rendered())
                if fixes.count < history.positions.count {
                    printErr("showing \(fixes.count) of \(history.positions.count) fixes; --limit 0 shows all")
                }
                if !history.visits.isEmpty { printErr("\(history.visits.count) recorded visits in the window (--format json lists them)") }
            }
        }
    }

    struct Summary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "summary",
            abstract: "How well the history covers each day: fixes, hours with a fix, visits.",
            usage: """
                geospend positions summary --user <user> [--from <from>] [--to <to>]
                  [--timezone <timezone>] [--format <format>] [--db <db>]
                """,
            discussion: """
                A payment can be placed from the history only when the phone recorded
                where it was then: days with few hours covered are where geotagging
                leaves payments unplaced.

                Example:
                  geospend positions summary --user alice --timezone Europe/Helsinki
                """)
        @OptionGroup var selection: Selection
        @Option(help: "table or json.") var format: OutputFormat = .table

        func run() async throws {
            let store = try await selection.store()
            let zone = try await selection.zone(in: store)
            let (from, to) = try selection.window(in: zone)
            let history = try await store.locationHistory(userID: Identity.normalized(selection.user), from: from, to: to)
            switch format {
            case .json:
                printOut(PositionJSON.summary(history, zone: zone).serialized() + "\n")
            case .csv, .table:
                let days = PositionCoverage.days(of: history, in: zone)
                let rows = days.map { d in
                    [d.day, "\(d.fixes)", "\(d.hoursWithFixes)/24", "\(d.visits)", d.medianAccuracyMeters.map { String(format: "%.0f m", $0) } ?? "-"]
                }
                if format == .csv {
                    printOut("day,fixes,hours_with_fixes,visits,median_accuracy_m\n" + days.map { d in
                        "\(d.day),\(d.fixes),\(d.hoursWithFixes),\(d.visits),\(d.medianAccuracyMeters.map { "\($0)" } ?? "")\n"
                    }.joined())
                } else {
                    printOut(TextTable(headers: ["day (\(zone.identifier))", "fixes", "hours", "visits", "median accuracy"], rows: rows, rightAligned: [1, 2, 3]).rendered())
                    printErr("\(history.positions.count) fixes and \(history.visits.count) recorded visits on \(days.count) days")
                }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete the user's history, or the part before a date (retention).",
            usage: """
                geospend positions delete --user <user> [--before <date> |
                  --older-than <days>] [--timezone <timezone>] [--yes] [--db <db>]
                """,
            discussion: """
                Removes the fixes (and recorded visits that started) before --before,
                or all of them; the freed space is zeroed. Positions geotagging already
                gave expenses stay with the expenses (`geospend geotag undo` takes
                them back). Asks on a terminal; elsewhere --yes is required.

                Example:
                  geospend positions delete --user alice --before 2026-01-01 --yes
                  geospend positions delete --user alice --older-than 90 --yes
                  geospend positions delete --user alice --yes
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user whose history it is.") var user: String
        @Option(help: "Only fixes before this date (a local day in --timezone) or RFC 3339 instant.") var before: String?
        @Option(help: "Only fixes older than this many days (a retention period).") var olderThan: Int?
        @Option(help: "The user's IANA time zone for --before (default: the user's setting, else this machine's).")
        var timezone: String?
        @Flag(help: "Delete without asking (required when stdin is not a terminal).") var yes = false

        func validate() throws {
            if before != nil && olderThan != nil { throw ValidationError("--before and --older-than say the same thing: give one") }
            if let days = olderThan, days < 0 || days > 100_000 { throw ValidationError("--older-than takes 0 to 100000 days, not \(days)") }
            if let timezone { _ = try PositionsCommand.zone(named: timezone) }
            if let before { _ = try Self.date(before) }
        }

        static func date(_ text: String) throws -> Timestamp {
            do { return try Timestamp(parsing: text) } catch { throw ValidationError("--before \(error)") }
        }

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            var bound: Int64?
            if let before {
                bound = PositionJSON.instant(try Self.date(before), in: try await PositionsCommand.zone(timezone, of: user, in: store), nextDay: false)
            } else if let days = olderThan {
                bound = PositionRetention.cutoff(days: days, now: PositionRetention.now())
            }
            let what = bound.map { "fixes before \(PositionJSON.utcText($0))" } ?? "the whole location history"
            if !yes {
                guard isatty(0) == 1 else { throw ValidationError("refusing to delete \(what) of \(user) without --yes: stdin is not a terminal") }
                FileHandle.standardError.write(Data("Delete \(what) of user \(user) from \(database.path)? [y/N] ".utf8))
                guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                    printErr("nothing deleted")
                    Foundation.exit(1)
                }
            }
            let deleted = try await store.deletePositions(userID: Identity.normalized(user), before: bound)
            printOut("deleted \(deleted.positions) positions and \(deleted.visits) visits of user \(user) (\(what))\n")
        }
    }
}
