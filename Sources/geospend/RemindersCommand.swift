import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

/// `geospend reminders due`: expenses whose reminder (`expenses add|edit --remind-at`) is due.
struct RemindersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders",
        abstract: "Reminders set on expenses (--remind-at of expenses add and edit).",
        discussion: """
            Example:
              geospend reminders due --user alice --as-of 2025-03-05T09:00:00+01:00
            """,
        subcommands: [Due.self])

    struct Due: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "due",
            abstract: "The user's expenses whose reminder is at or before --as-of.",
            usage: """
                geospend reminders due --user <user> [--as-of <as-of>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                Earliest reminder first. A reminder stays until it is unset
                (`expenses edit ID --user U --remind-at ""`) or its expense deleted.

                Example:
                  geospend reminders due --user alice --as-of 2025-03-05T09:00:00+01:00
                  geospend reminders due --user alice --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "An RFC 3339 instant with offset (default: now).") var asOf: String?
        @Option(help: "text or json.") var format: ExpensesCommand.Format = .text

        func run() async throws {
            let instant = try Parse.asOf(asOf)
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            let due = try await store.dueReminders(userID: Identity.normalized(user), asOf: instant)
            switch format {
            case .json:
                printOut(JSONOutput.array(due.map(ExpenseJSON.expense)).serialized() + "\n")
            case .text:
                printOut(TextTable(
                    headers: ["remind at", "id", "amount", "currency", "title"],
                    rows: due.map { s in
                        [s.remindAt?.text ?? "", s.expense.id, s.expense.amount.decimalString, s.expense.amount.currency.code, s.expense.title ?? ""]
                    }, rightAligned: [2]
                ).rendered())
            }
        }
    }
}
