import ArgumentParser
import GeoSpend
import GeoSpendSpatiaLite

/// `geospend periods`: a user's named spans (a trip, a term) and which expenses belong to them.
struct PeriodsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "periods",
        abstract: "A user's periods (a trip, a term) and the expenses assigned to them.",
        discussion: """
            A period has a name (1-100 characters after trimming spaces, one line, no
            control or bidi characters), a first day and, unless ongoing, a last day
            after the first (both local days, inclusive). Expenses belong to a period
            only when assigned to it, one period per expense; its dates do not select
            expenses. Ids are numbered per user and never reused. --period ID on
            expenses list, near, insights, summary and export selects a period's
            expenses; on report, its days.

            Example:
              geospend periods add --user user1 --name "Lisbon trip" \\
                  --from 2025-03-01 --to 2025-03-10
              geospend periods assign --user user1 --period 1 e17 e18
              geospend summary --user user1 --period 1
            """,
        subcommands: [Add.self, List.self, Edit.self, Delete.self, Assign.self, Unassign.self])

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a period; prints it with its id.",
            usage: """
                geospend periods add --user <user> --name <name> --from <from>
                  [--to <to>] [--format <format>] [--db <db>]
                """,
            discussion: """
                Without --to the period is ongoing.

                Example:
                  geospend periods add --user user1 --name "Lisbon trip" \\
                      --from 2025-03-01 --to 2025-03-10
                  geospend periods add --user user1 --name Renovation \\
                      --from 2025-04-01 --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The name, 1-100 characters.") var name: String
        @Option(help: "First day, YYYY-MM-DD (local, inclusive).") var from: String
        @Option(help: "Last day, YYYY-MM-DD (inclusive, after --from); none: ongoing.") var to: String?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let fields = try PeriodFields(
                name: name, start: try Parse.timestamp(from, option: "--from")!, end: try Parse.timestamp(to, option: "--to"))
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            PeriodsCommand.show([try await store.addPeriod(userID: user, fields)], user: user, format: format, list: false)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's periods by id, with their number of expenses.",
            discussion: """
                Example:
                  geospend periods list --user user1
                  geospend periods list --user user1 --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            PeriodsCommand.show(try await store.periods(userID: user), user: user, format: format, list: true)
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a period's name or days; prints it.",
            usage: """
                geospend periods edit <id> --user <user> [--name <name>]
                  [--from <from>] [--to <to> | --ongoing] [--format <format>]
                  [--db <db>]
                """,
            discussion: """
                Its expenses stay assigned whatever the new days.

                Example:
                  geospend periods edit 1 --user user1 --to 2025-03-12
                  geospend periods edit 2 --user user1 --ongoing
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The period's id.") var id: Int64
        @Option(help: "The user.") var user: String
        @Option(help: "A new name, 1-100 characters.") var name: String?
        @Option(help: "A new first day, YYYY-MM-DD.") var from: String?
        @Option(help: "A new last day, YYYY-MM-DD.") var to: String?
        @Flag(help: "No last day: the period goes on.") var ongoing = false
        @Option(help: "table or json.") var format: Format = .table

        func validate() throws {
            if ongoing && to != nil { throw ValidationError("give --to or --ongoing, not both") }
            if name == nil && from == nil && to == nil && !ongoing {
                throw ValidationError("nothing to change: give --name, --from, --to or --ongoing")
            }
        }

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            guard let old = try await store.period(userID: user, id: id) else { throw PeriodsCommand.noPeriod(id, user: user) }
            let start = try Parse.timestamp(from, option: "--from") ?? Timestamp(parsing: old.start)
            let end = ongoing ? nil : try Parse.timestamp(to, option: "--to") ?? old.end.map { try Timestamp(parsing: $0) }
            let fields = try PeriodFields(name: name ?? old.name, start: start, end: end)
            guard let new = try await store.updatePeriod(userID: user, id: id, fields) else { throw PeriodsCommand.noPeriod(id, user: user) }
            PeriodsCommand.show([new], user: user, format: format, list: false)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a period; its expenses stay, with no period.",
            discussion: """
                Example:
                  geospend periods delete 1 --user user1
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The period's id.") var id: Int64
        @Option(help: "The user.") var user: String

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            guard let unlinked = try await store.deletePeriod(userID: user, id: id) else { throw PeriodsCommand.noPeriod(id, user: user) }
            printOut("deleted period \(id); \(unlinked) expense\(unlinked == 1 ? "" : "s") unlinked (kept, with no period)\n")
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "assign",
            abstract: "Assign expenses to a period (moving them from another one).",
            usage: """
                geospend periods assign --user <user> --period <period>
                  <expense-id> ... [--db <db>]
                """,
            discussion: """
                All or nothing: an id that is not one of the user's expenses is an
                error and nothing changes.

                Example:
                  geospend periods assign --user user1 --period 1 e17 e18 e19
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The period's id.") var period: Int64
        @Argument(help: "Expense ids.") var expenses: [String]

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let result = try await store.assign(userID: user, period: period, expenseIDs: expenses)
            let (changed, moved) = try result.outcome(period: period, user: user)
            let unchanged = Set(expenses.map(Identity.normalized)).count - changed
            printOut("assigned \(changed) expense\(changed == 1 ? "" : "s") to period \(period)"
                + " (\(moved) moved from another period, \(unchanged) already in it)\n")
        }
    }

    struct Unassign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unassign",
            abstract: "Take expenses out of their period.",
            usage: """
                geospend periods unassign --user <user> <expense-id> ... [--db <db>]
                """,
            discussion: """
                An expense has one period at most, so no --period is needed. All or
                nothing, as for assign.

                Example:
                  geospend periods unassign --user user1 e18
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Argument(help: "Expense ids.") var expenses: [String]

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let (changed, _) = try await store.assign(userID: user, period: nil, expenseIDs: expenses).outcome(period: nil, user: user)
            printOut("unassigned \(changed) expense\(changed == 1 ? "" : "s")\n")
        }
    }

    /// Another user's period is reported as missing, like one that never existed.
    static func noPeriod(_ id: Int64, user: String) -> ValidationError {
        ValidationError(NameChecks.noPeriod(id, user: user).message)
    }

    static func show(_ periods: [Period], user: String, format: Format, list: Bool) {
        switch format {
        case .json:
            let document = list ? PeriodJSON.list(periods, user: user) : PeriodJSON.json(periods[0])
            printOut(document.serialized() + "\n")
        case .table:
            let rows = periods.map { [String($0.id), $0.name, $0.start, $0.end ?? "ongoing", String($0.expenses)] }
            printOut(list && periods.isEmpty
                ? "No periods; add one with `geospend periods add`.\n"
                : TextTable(headers: ["id", "name", "from", "to", "expenses"], rows: rows, rightAligned: [0, 4]).rendered())
        }
    }
}
