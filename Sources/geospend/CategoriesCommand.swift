import ArgumentParser
import GeoSpend
import GeoSpendSpatiaLite

/// `geospend categories`: list (the default: `geospend categories --user U`), add, edit,
/// deactivate, delete. The rules are `CategoryEditing`'s.
struct CategoriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "categories",
        abstract: "A user's categories (what --category accepts).",
        discussion: """
            Every user starts with the default categories (expense: Food, Transport,
            Shopping, Bills, Entertainment, Health, Education, Others; income: Salary,
            Freelance, Investment, Business, Others), each with an icon and a
            colour. Defaults can be deactivated, not deleted. A deactivated category
            is hidden from lists (unless --all) and refused for new expenses, but
            stays on the expenses that have it. Transfers (kind transfer) take
            transfer categories: money moved between one's own accounts, never
            counted as spending.

            Example:
              geospend categories --user user1
              geospend categories add --user user1 --name Coffee --icon coffee \\
                  --color "#6F4E37"
              geospend categories deactivate Coffee --user user1
            """,
        subcommands: [List.self, Add.self, Edit.self, Deactivate.self, Delete.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's categories with their kind and number of expenses.",
            usage: """
                geospend categories list --user <user> [--all] [--format <format>]
                  [--db <db>]
                """,
            discussion: """
                Categories come from imports and `categories add` (one per name and
                kind, letters compared without case). --category of near, insights and
                export takes these names. Deactivated ones are listed with --all.

                Example:
                  geospend categories list --user user1
                  geospend categories --user user1 --all --format csv
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Flag(help: "Deactivated categories too.") var all = false
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            let categories = try await store.categoryDetails(userID: Identity.normalized(user), includeInactive: all)
            switch format {
            case .json:
                printOut(JSONOutput.array(categories.map(CategoryJSON.json)).serialized() + "\n")
            case .csv:
                printOut(CSVTable(headers: Self.headers, rows: categories.map(Self.row), textColumns: [0]).rendered())
            case .table:
                printOut(TextTable(headers: Self.headers, rows: categories.map(Self.row), rightAligned: [2]).rendered())
            }
        }

        static let headers = ["category", "kind", "expenses", "icon", "color", "default", "active"]
        static func row(_ c: CategoryDetail) -> [String] {
            [c.category.name, c.category.kind.rawValue, String(c.expenses), c.icon ?? "", c.color ?? "",
             c.isDefault ? "yes" : "no", c.isActive ? "yes" : "no"]
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a category for the user.",
            usage: """
                geospend categories add --user <user> --name <name> [--kind <kind>]
                  [--icon <icon>] [--color <color>] [--db <db>]
                """,
            discussion: """
                Example:
                  geospend categories add --user user1 --name Coffee --icon coffee \\
                      --color "#6F4E37"
                  geospend categories add --user user1 --name Rent --kind income
                  geospend categories add --user user1 --name Savings --kind transfer
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "The name (1-100 characters).") var name: String
        @Option(help: "expense (default), income or transfer.") var kind: GeoSpend.Category.Kind = .expense
        @Option(help: "An icon name or emoji, as the app showing it uses.") var icon: String?
        @Option(help: "A colour: #RRGGBB, or a name such as orange.") var color: String?

        func run() async throws {
            let name = try CategoryFields.name(name)
            let store = try await database.openBackend(create: true)
            let added = try await store.addCategory(
                GeoSpend.Category(name: name, kind: kind), userID: try CategoryFields.user(user),
                icon: try CategoryFields.icon(icon), color: try CategoryFields.color(color))
            printOut(JSONOutput.object(CategoryJSON.members(added)).serialized() + "\n")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Rename a category, change its icon or colour, or activate it.",
            usage: """
                geospend categories edit <category> --user <user> [--kind <kind>]
                  [--name <name>] [--icon <icon>] [--color <color>] [--activate]
                  [--db <db>]
                """,
            discussion: """
                --kind is needed only when the name is a category of more than one
                kind (Others). An empty --icon or --color unsets it. A rename stays
                on the category's expenses.

                Example:
                  geospend categories edit Coffee --user user1 --name Cafes
                  geospend categories edit Coffee --user user1 --activate
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The category's name.") var category: String
        @Option(help: "The user.") var user: String
        @Option(help: "expense, income or transfer, when the name has several.") var kind: GeoSpend.Category.Kind?
        @Option(help: "A new name.") var name: String?
        @Option(help: "An icon name or emoji; empty unsets.") var icon: String?
        @Option(help: "A colour: #RRGGBB or a name (orange); empty unsets.") var color: String?
        @Flag(help: "Make a deactivated category active again.") var activate = false

        func run() async throws {
            let change = CategoryChange(
                name: try name.map(CategoryFields.name), icon: try icon.map { try CategoryFields.icon($0) ?? "" },
                color: try color.map { try CategoryFields.color($0) ?? "" }, isActive: activate ? true : nil)
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let edited = try await store.editCategory(
                name: Identity.normalized(category), kind: kind, userID: Identity.normalized(user), change: change)
            printOut(JSONOutput.object(CategoryJSON.members(edited)).serialized() + "\n")
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "deactivate",
            abstract: "Hide a category from lists and new expenses; its expenses keep it.",
            usage: """
                geospend categories deactivate <category> --user <user>
                  [--kind <kind>] [--db <db>]
                """,
            discussion: """
                `categories edit NAME --activate` undoes it.

                Example:
                  geospend categories deactivate Education --user user1
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The category's name.") var category: String
        @Option(help: "The user.") var user: String
        @Option(help: "expense, income or transfer, when the name has several.") var kind: GeoSpend.Category.Kind?

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let done = try await store.editCategory(
                name: Identity.normalized(category), kind: kind, userID: Identity.normalized(user), change: CategoryChange(isActive: false))
            printOut("deactivated \(done.category.kind.rawValue) category \(OutputEscaping.visible(done.category.name))\n")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a category; its expenses stay, with no category.",
            usage: """
                geospend categories delete <category> --user <user> [--kind <kind>]
                  [--db <db>]
                """,
            discussion: """
                The default categories cannot be deleted (deactivate them instead).

                Example:
                  geospend categories delete Coffee --user user1
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The category's name.") var category: String
        @Option(help: "The user.") var user: String
        @Option(help: "expense, income or transfer, when the name has several.") var kind: GeoSpend.Category.Kind?

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            let name = Identity.normalized(category)
            let cleared = try await store.deleteCategory(name: name, kind: kind, userID: Identity.normalized(user))
            printOut("deleted category \(OutputEscaping.visible(name)); \(cleared) expenses now have no category\n")
        }
    }
}

extension GeoSpend.Category.Kind: ExpressibleByArgument {}
