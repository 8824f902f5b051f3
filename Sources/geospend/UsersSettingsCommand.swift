import ArgumentParser
import Foundation
import GeoSpend

extension UsersCommand {
    /// `geospend users settings`: a user's time zone and location-history retention
    /// (`UserSettings`), shown, or set and then shown.
    struct Settings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show or set a user's time zone and how long their location history is kept.",
            usage: """
                geospend users settings --user <user> [--timezone <zone>|none]
                  [--keep-positions <days>|forever] [--format <format>] [--db <db>]
                """,
            discussion: """
                The time zone is the one bare dates (2026-03-05) are days of in
                `geospend geotag`, `import expenses --geotag` and `positions` when they
                get no --timezone; without a setting that is this machine's zone (UTC on
                `geospend serve`). With --keep-positions the location history is kept
                that many days: older positions and visits are deleted at once, after
                each `import positions`, by `geospend positions prune` and hourly by
                `geospend serve`. Without these options the settings are shown.

                Examples:
                  geospend users settings --user alice
                  geospend users settings --user alice --timezone Europe/Helsinki
                  geospend users settings --user alice --keep-positions 365
                  geospend users settings --user alice --timezone none \\
                    --keep-positions forever --format json
                """)

        enum Format: String, ExpressibleByArgument { case table, json }

        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: ArgumentHelp("Their IANA time zone (e.g. Europe/Helsinki); none unsets it.", valueName: "zone"))
        var timezone: String?
        @Option(help: ArgumentHelp("Keep their location history this many days (1 to 36500); forever: no limit.", valueName: "days"))
        var keepPositions: String?
        @Option(help: "table or json.") var format: Format = .table

        func validate() throws { _ = try change(UserSettings()) }

        /// The settings after the options: `current` with what they set; a usage error naming
        /// the option for a value no setting takes.
        func change(_ current: UserSettings) throws -> UserSettings {
            var zone = current.timeZone
            if let timezone, timezone == "none" {
                zone = nil
            } else if let timezone {
                _ = try PositionsCommand.zone(named: timezone)  // the option's own message
                zone = timezone
            }
            var days = current.positionRetentionDays
            if let keepPositions {
                if keepPositions == "forever" {
                    days = nil
                } else {
                    guard let n = Int(keepPositions), UserSettings.retentionDays.contains(n) else {
                        throw ValidationError("--keep-positions \(keepPositions): give a number of days from 1 to \(UserSettings.retentionDays.upperBound), or forever")
                    }
                    days = n
                }
            }
            do { return try UserSettings(timeZone: zone, positionRetentionDays: days) } catch {
                throw ValidationError("\(error.setting == "time_zone" ? "--timezone" : "--keep-positions") \(error)")
            }
        }

        func run() async throws {
            let changing = timezone != nil || keepPositions != nil
            let store = try await database.openBackend(writable: changing)
            try await NameChecks.user(user, in: store, database: database.path)
            let id = Identity.normalized(user)
            guard var settings = try await store.userSettings(userID: id) else { throw UsageError("no user \"\(OutputEscaping.visible(id))\"") }
            if changing {
                settings = try change(settings)
                guard try await store.setUserSettings(settings, userID: id) else { throw UsageError("no user \"\(OutputEscaping.visible(id))\"") }
                // A shorter retention applies now, not at the next import or prune.
                if let pruned = try await PositionRetention.apply(userID: id, in: store, now: PositionRetention.now()) {
                    printErr(PositionsCommand.Prune.line(pruned))
                }
            }
            switch format {
            case .json: printOut(UserSettingsJSON.object(settings).serialized() + "\n")
            case .table:
                printOut(TextTable(headers: ["setting", "value"], rows: [
                    ["time zone", settings.timeZone ?? "none (this machine's: \(TimeZone.current.identifier))"],
                    ["keep positions", settings.positionRetentionDays.map { "\($0) days" } ?? "forever"],
                ]).rendered())
            }
        }
    }
}
