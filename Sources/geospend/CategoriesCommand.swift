import ArgumentParser
import GeoSpend
import GeoSpendSpatiaLite

/// `geospend categories`: a group, so that `add`, `edit`, … can join `list` later; `list` is
/// the default (`geospend categories --user U`).
struct CategoriesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "categories",
        abstract: "A user's categories (what --category accepts).",
        discussion: """
            Example:
              geospend categories --user user1
              geospend categories list --user user1 --format json
            """,
        subcommands: [List.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's categories with their kind and number of expenses.",
            discussion: """
                Categories come from imports (one per name and kind, letters compared
                without case). --category of near, insights and export takes these names.

                Example:
                  geospend categories list --user user1
                  geospend categories --user user1 --format csv
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func run() throws {
            let store = try database.openExisting()
            try NameChecks.user(user, in: store, database: database.path)
            let categories = try store.categoryCounts(userID: Identity.normalized(user))
            switch format {
            case .json:
                printOut(JSONOutput.array(categories.map { c in
                    .object([("name", .string(c.name)), ("kind", .string(c.kind.rawValue)), ("expenses", .integer(Int64(c.expenses)))])
                }).serialized() + "\n")
            case .csv:
                printOut(CSVTable(headers: Self.headers, rows: categories.map(Self.row), textColumns: [0]).rendered())
            case .table:
                printOut(TextTable(headers: Self.headers, rows: categories.map(Self.row), rightAligned: [2]).rendered())
            }
        }

        static let headers = ["category", "kind", "expenses"]
        static func row(_ c: CategoryCount) -> [String] { [c.name, c.kind.rawValue, String(c.expenses)] }
    }
}
