import ArgumentParser
import Foundation
import GeoSpend

/// `geospend recurring`: rules that create a user's regular expenses and income when due.
struct RecurringCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recurring",
        abstract: "Recurring transactions: rules that create expenses when due.",
        discussion: """
            A rule holds an expense (amount, currency, kind, title, category, merchant,
            store, notes) and a schedule: --every daily, weekly, monthly, yearly or N
            days (14d), from its first day (--from) until an optional last day
            (--until). A monthly rule from the 31st falls on each month's last day
            where the month is shorter, and on the 31st again after. `run` creates
            what is due through --as-of (default: today in the user's time zone):
            one expense per day, id recurring-<rule>-<day>. Running twice creates
            nothing more; an expense you delete is not made again.

            Example:
              geospend recurring add --user user1 --every monthly --from 2025-01-31 \\
                  --amount 950 --currency EUR --title Rent --category Bills
              geospend recurring run --user user1 --as-of 2025-04-30
              geospend recurring list --user user1
            """,
        subcommands: [Add.self, List.self, Edit.self, Delete.self, Run.self])

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    /// The rule's options; names as `expenses add` has them.
    struct Fields: ParsableArguments {
        @Option(help: "daily, weekly, monthly, yearly, or every N days: 14d.") var every: String?
        @Option(help: "The first day, YYYY-MM-DD: the schedule counts from it.") var from: String?
        @Option(help: "The last day an expense may fall on, YYYY-MM-DD.") var until: String?
        @Option(help: "Amount, a positive decimal: 950.00.") var amount: String?
        @Option(help: "ISO 4217 code: EUR.") var currency: String?
        @Option(help: "expense (default), income or transfer.") var kind: String?
        @Option(help: "A short title.") var title: String?
        @Option(help: "A category of the user (`geospend categories`).") var category: String?
        @Option(help: "Who is paid.") var merchant: String?
        @Option(help: "The id of a stored store.") var store: String?
        @Option(help: "Free text.") var notes: String?

        /// What was given, keyed as `RecurringChanges` reads it ("" kept: it unsets).
        var given: [String: String] {
            var f: [String: String] = [:]
            f["every"] = every; f["from"] = from; f["until"] = until; f["amount"] = amount; f["currency"] = currency
            f["kind"] = kind; f["title"] = title; f["category"] = category; f["merchant"] = merchant; f["store_id"] = store
            f["notes"] = notes
            return f
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a recurring rule; prints it with its id.",
            usage: """
                geospend recurring add --user <user> --every <every> --from <from>
                  --amount <amount> --currency <currency> [options]
                """,
            discussion: """
                --every, --from, --amount and --currency are required; the rest as for
                `expenses add`. Nothing is created until `recurring run`.

                Example:
                  geospend recurring add --user user1 --every monthly --from 2025-01-31 \\
                      --amount 950 --currency EUR --title Rent --category Bills
                  geospend recurring add --user user1 --every 14d --from 2025-01-03 \\
                      --amount 1200 --currency EUR --kind income --category Salary
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @OptionGroup var fields: Fields
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            RecurringCommand.show([try await RecurringChanges.add(fields.given, user: user, store: store)], format: format, list: false)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's recurring rules by id, with their next due day.",
            discussion: """
                Example:
                  geospend recurring list --user user1
                  geospend recurring list --user user1 --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            RecurringCommand.show(try await store.recurringRules(userID: user), format: format, list: true)
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a rule; the expenses it created stay as they are.",
            usage: """
                geospend recurring edit <id> --user <user> [options]
                """,
            discussion: """
                Only the options given change; an empty value unsets an optional one
                (--until "" for no end). The rule goes on from the first day of its new
                schedule that is not before the day it had reached.

                Example:
                  geospend recurring edit 1 --user user1 --amount 990
                  geospend recurring edit 1 --user user1 --until 2025-12-31
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The rule's id.") var id: Int64
        @Option(help: "The user.") var user: String
        @OptionGroup var fields: Fields
        @Option(help: "table or json.") var format: Format = .table

        func validate() throws {
            if fields.given.isEmpty { throw ValidationError("nothing to change: give an option such as --amount or --until") }
        }

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            RecurringCommand.show([try await RecurringChanges.edit(id: id, fields.given, user: user, store: store)], format: format, list: false)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a rule; the expenses it created stay.",
            discussion: """
                Example:
                  geospend recurring delete 1 --user user1
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The rule's id.") var id: Int64
        @Option(help: "The user.") var user: String

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            guard try await store.deleteRecurring(userID: user, id: id) else {
                throw ValidationError(RecurringChanges.noRule(id, user: Identity.normalized(user)).message)
            }
            printOut("deleted recurring rule \(id); the expenses it created stay\n")
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Create the expenses the user's rules made due.",
            usage: """
                geospend recurring run --user <user> [--as-of <as-of>] [--rule <rule>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                Creates one expense per due day through --as-of (inclusive), each in
                the transaction that moves its rule on; budget alerts follow as for any
                expense. At most 1,000 days per rule per run: run again for more.

                Example:
                  geospend recurring run --user user1 --as-of 2025-04-30
                  geospend recurring run --user user1 --rule 1 --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The last day to create, YYYY-MM-DD (default: today).") var asOf: String?
        @Option(help: "Only this rule.") var rule: Int64?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let day: LocalDay
            if let asOf {
                do { day = try LocalDay(parsing: asOf) } catch { throw ValidationError("--as-of: \(error)") }
            } else {
                day = LocalDay.today(in: try await store.timeZone(of: user, else: .current))
            }
            if let rule, try await store.recurringRule(userID: user, id: rule) == nil {
                throw ValidationError(RecurringChanges.noRule(rule, user: Identity.normalized(user)).message)
            }
            let created = try await RecurringRun.run(userID: user, asOf: day, ruleID: rule, store: store)
            switch format {
            case .json: printOut(RecurringJSON.run(created, asOf: day).serialized() + "\n")
            case .table:
                let n = created.reduce(0) { $0 + $1.expenseIDs.count }
                var text = "created \(n) expense\(n == 1 ? "" : "s") through \(day)\n"
                for c in created {
                    text += "  rule \(c.rule): \(c.expenseIDs.count) created"
                        + (c.alreadyStored > 0 ? ", \(c.alreadyStored) already stored" : "")
                        + "; next due \(c.nextDue?.description ?? "never (ended)")" + (c.moreDue ? " (more due: run again)" : "") + "\n"
                }
                printOut(text)
            }
        }
    }

    static func show(_ rules: [RecurringRule], format: Format, list: Bool) {
        switch format {
        case .json:
            printOut((list ? JSONOutput.array(rules.map(RecurringJSON.rule)) : RecurringJSON.rule(rules[0])).serialized() + "\n")
        case .table:
            let rows = rules.map { r in
                let f = r.fields
                return [String(r.id), f.schedule.every.description, f.schedule.anchor.description, f.until?.description ?? "-",
                        r.nextDue?.description ?? "ended", f.kind.rawValue, f.amount.decimalString + " " + f.amount.currency.code,
                        f.title ?? f.category ?? ""]
            }
            printOut(list && rules.isEmpty
                ? "No recurring rules; add one with `geospend recurring add`.\n"
                : TextTable(headers: ["id", "every", "from", "until", "next due", "kind", "amount", "title"], rows: rows, rightAligned: [0, 6])
                    .rendered())
        }
    }
}
