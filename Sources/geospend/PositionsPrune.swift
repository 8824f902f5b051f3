import ArgumentParser
import Foundation
import GeoSpend

extension PositionsCommand {
    /// `geospend positions prune`: every user's retention applied now (`PositionRetention`), for
    /// cron; `geospend serve` does the same hourly.
    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Delete the positions each user keeps no longer (their --keep-positions).",
            usage: "geospend positions prune [--user <user>] [--db <db>]",
            discussion: """
                For every user who set how long their history is kept (`geospend users
                settings --keep-positions DAYS`), deletes the positions, and the visits
                that started, older than that, as `positions delete` does. Users who
                set nothing keep everything. Prints one line per user with a retention.
                `geospend serve` prunes at start and hourly; `import positions` after
                each import. For a database no service runs on, a daily cron job:

                Example:
                  geospend positions prune --db /srv/geospend.sqlite
                  geospend positions prune --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "Only this user's retention.") var user: String?

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            if let user { try await NameChecks.user(user, in: store, database: database.path) }
            let pruned = try await PositionRetention.applyAll(userID: user, in: store, now: PositionRetention.now())
            if pruned.isEmpty {
                let who = user.map { "user \(OutputEscaping.visible($0)) keeps the history" } ?? "every user keeps their history"
                printOut("nothing deleted: \(who) until deleted by hand (`geospend users settings --keep-positions DAYS` sets a retention)\n")
            }
            printOut(pruned.map { Self.line($0) + "\n" }.joined())
        }

        /// What one user's retention deleted, in one line.
        static func line(_ p: PositionRetention.Pruned) -> String {
            "user \(OutputEscaping.visible(p.userID)) keeps \(p.days) days: deleted \(p.deleted.positions) positions and "
                + "\(p.deleted.visits) visits before \(PositionJSON.utcText(p.before))"
        }
    }
}
