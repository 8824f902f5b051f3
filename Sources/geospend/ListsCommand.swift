import ArgumentParser
import Foundation
import GeoSpend

struct ListsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lists",
        abstract: "Shopping lists: a name, a budget, items; the cheapest store within reach.",
        subcommands: [
            ListsAddCommand.self, ListsListCommand.self, ListsShowCommand.self, ListsCheckCommand.self, ListsUncheckCommand.self,
            ListsRemoveCommand.self, ListsEditCommand.self, ListsDeleteCommand.self, ListsCompleteCommand.self,
        ])

}

struct ListsAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Create a list (--name, --budget), or add items to one (--id).",
        usage: """
            geospend lists add --user <user> --name <name> --budget <amount>
              --currency <code> [--item <name[=qty]> ...] [--over-budget]
            geospend lists add --user <user> --id <id> --item <name[=qty]> ...
              [--over-budget]
            """,
        discussion: """
            A list has a name (1–100 characters) and a budget (> 0) in one
            currency. An item is NAME, NAME=N (packs) or NAME=AMOUNT (1.5kg, 500g,
            2l); adding an item already on the list (same name, case and accents
            aside) adds to its quantity. Ids are numbered per user. Items that take
            the estimate (`lists show --id`'s, every user's prices, as of today) over
            the budget are refused ("budget exceeded") unless --over-budget.

            Example:
              geospend lists add --user user1 --name "Weekend" --budget 40 --currency EUR \\
                  --item Milch=2 --item "Brot Vollkorn"
              geospend lists add --user user1 --id 1 --item Milch=1
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose list.") var user: String
    @Option(help: "A new list's name.") var name: String?
    @Option(help: "A new list's budget (> 0).") var budget: String?
    @Option(help: "The budget's currency.") var currency: String?
    @Option(help: "An existing list to add items to.") var id: Int64?
    @Option(parsing: .unconditionalSingleValue, help: "An item, NAME or NAME=QTY; repeatable.") var item: [String] = []
    @Flag(help: "Add the items even when the estimate goes over the budget.") var overBudget = false

    func validate() throws {
        if id == nil && (name == nil || budget == nil || currency == nil) {
            throw ValidationError("give --name, --budget and --currency for a new list, or --id ID to add items to one")
        }
        if id != nil && (name != nil || budget != nil) { throw ValidationError("--id adds items to a list; --name and --budget are for a new one") }
        if id != nil && item.isEmpty { throw ValidationError("give the items to add: --item NAME[=QTY]") }
    }

    func run() async throws {
        let items = try ShoppingListFields.items(item)
        let store = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: store, database: database.path)
        let list = if let id {
            try await ShoppingListFields.addItems(user: user, id: id, items: items, overBudget: overBudget, store: store)
        } else {
            try await ShoppingListFields.create(
                user: user, name: name!, budget: budget!, currency: currency!, items: items, overBudget: overBudget, store: store)
        }
        printOut("List \(list.id) \"\(OutputEscaping.visible(list.name))\", budget \(list.budget.decimalString) \(list.budget.currency.code): "
            + list.items.map { "\(OutputEscaping.visible($0.name)) × \($0.quantityText)" }.joined(separator: ", ") + "\n")
    }
}

struct ListsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "A user's lists, or one with its estimated cost against its budget.",
        usage: """
            geospend lists show --user <user> [--id <id> [--as-of <date>]
              [--near <lat,lon> --radius <r>] [--cost-per-km <x>] [--own-prices]]
              [--format table|json]
            """,
        discussion: """
            With --id: the estimated cost is the cheapest store within reach for the
            list's items (`geospend basket`'s rule and options), and the list is
            "budget exceeded" when that cost (with travel) is over its budget. An
            estimate in another currency than the budget is not compared.
            --own-prices estimates from the user's own price records only.

            Example:
              geospend lists show --user user1
              geospend lists show --user user1 --id 1 --near 60.1699,24.9384 \\
                  --radius 2km --format json
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose lists.") var user: String
    @Option(help: "One list, with its estimate.") var id: Int64?
    @Option(help: "Prices on or before this local day (default: today, UTC).") var asOf: String?
    @OptionGroup var reach: BasketOptions
    @Flag(help: "Estimate from the user's own price records only (default: every user's).") var ownPrices = false
    @Option(help: "table or json.") var format: BasketCommand.BasketFormat = .table

    func run() async throws {
        let store = try await database.openBackend()
        try await NameChecks.user(user, in: store, database: database.path)
        let lists = try await store.lists(userID: user)
        guard let id else {
            switch format {
            case .json: printOut(JSONOutput.array(lists.map { ShoppingListFields.json($0, estimate: nil) }).serialized() + "\n")
            case .table:
                printOut(TextTable(
                    headers: ["id", "name", "budget", "items", "completed"],
                    rows: lists.map { [String($0.id), OutputEscaping.visible($0.name), "\($0.budget.decimalString) \($0.budget.currency.code)", String($0.items.count), $0.completedExpenseID ?? ""] },
                    rightAligned: [0, 3]).rendered())
            }
            return
        }
        let list = try ShoppingListFields.list(id, of: user, in: lists)
        let basket = try await reach.compare(
            list.items.map { ($0.name, $0.want) }, asOf: try BasketCommand.day(asOf), in: store, userID: ownPrices ? user : nil)
        let estimate = ShoppingListEstimate(list: list, basket: basket)
        switch format {
        case .json: printOut(ShoppingListFields.json(list, estimate: estimate).serialized() + "\n")
        case .table:
            var out = "List \(list.id) \"\(OutputEscaping.visible(list.name))\", budget \(list.budget.decimalString) \(list.budget.currency.code)\n"
            for i in list.items { out += "  \(OutputEscaping.visible(i.name)) × \(i.quantityText)\n" }
            if let best = estimate.best, let c = estimate.currency {
                out += "Estimated: \(Money.decimalString(best.totalWithTravelMinor, digits: c.minorDigits)) \(c.code) at \(OutputEscaping.visible(best.store.name ?? best.store.id)) (\(best.availableItems)/\(list.items.count) items)\n"
            } else {
                out += "Estimated: no store within reach prices enough of the items\n"
            }
            if estimate.budgetExceeded == true { out += "budget exceeded\n" }
            printOut(out)
        }
    }
}

struct ListsCompleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete",
        abstract: "Mark a list bought: one expense and a price record per item, with the prices paid.",
        usage: """
            geospend lists complete --user <user> --id <id> --store <id>
              --at <instant> --price <name=amount> ...
            """,
        discussion: """
            --price NAME=AMOUNT gives what an item of the list cost (for its whole
            quantity), once per item bought. Stores, in one transaction, the
            expense of their sum at the store and one price record per item
            (source manual), and marks the list completed.

            Example:
              geospend lists complete --user user1 --id 1 --store 288130404 \\
                  --at 2025-06-01T18:00:00+03:00 --price Milch=2.58 \\
                  --price "Brot Vollkorn=2.49"
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose list.") var user: String
    @Option(help: "The list.") var id: Int64
    @Option(help: "Where it was bought: a store id, or the user's own mine-N.") var store: String
    @Option(help: "When, RFC 3339 with its offset, or a bare date.") var at: String
    @Option(parsing: .unconditionalSingleValue, help: "NAME=AMOUNT paid for an item; repeatable.") var price: [String] = []

    func run() async throws {
        let db = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: db, database: database.path)
        let c = try await ShoppingListFields.complete(user: user, id: id, storeID: store, at: at, prices: price, db: db)
        let (done, expense, place, total, currency) = (c.list, c.expense, c.store, c.expense.amount, c.expense.amount.currency)
        let storeID = store
        printOut("List \(done.id) completed: expense \(expense.id), \(total.decimalString) \(currency.code) at \(OutputEscaping.visible(place.name ?? storeID)), \(c.prices) price records.\n")
    }
}

struct ListsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "A user's open lists, newest first; --all adds completed ones.",
        discussion: """
            A list is completed by `lists complete` or when every item is checked
            off (`lists check`).

            Example:
              geospend lists list --user user1 --all
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose lists.") var user: String
    @Flag(help: "Completed lists too.") var all = false
    @Option(help: "table or json.") var format: BasketCommand.BasketFormat = .table

    func run() async throws {
        let store = try await database.openBackend()
        try await NameChecks.user(user, in: store, database: database.path)
        ListsListCommand.show(ShoppingListFields.listed(try await store.lists(userID: user), all: all), format: format)
    }

    static func show(_ lists: [ShoppingList], format: BasketCommand.BasketFormat) {
        switch format {
        case .json: printOut(JSONOutput.array(lists.map { ShoppingListFields.json($0, estimate: nil) }).serialized() + "\n")
        case .table:
            printOut(lists.isEmpty ? "no lists\n" : TextTable(
                headers: ["id", "name", "budget", "items", "checked", "completed"],
                rows: lists.map {
                    [String($0.id), OutputEscaping.visible($0.name), "\($0.budget.decimalString) \($0.budget.currency.code)", String($0.items.count),
                     String($0.items.filter { $0.check != nil }.count), $0.isCompleted ? "yes" : ""]
                },
                rightAligned: [0, 3, 4]).rendered())
        }
    }

    static func line(_ list: ShoppingList) -> String {
        "List \(list.id) \"\(OutputEscaping.visible(list.name))\", budget \(list.budget.decimalString) \(list.budget.currency.code): "
            + list.items.map { "\(OutputEscaping.visible($0.name)) × \($0.quantityText)\($0.check == nil ? "" : " ✓")" }.joined(separator: ", ") + "\n"
    }
}

struct ListsCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check off one item with what it cost: a purchase and a price record.",
        usage: """
            geospend lists check --user <user> <list> <item> --price <amount>
              [--store <id>] [--at <instant>] [--expires <day>]
            """,
        discussion: """
            --price is per piece, kg or l (as the item's quantity is counted); the
            purchase is price × quantity, an amount rounded half to even to the
            cent (0.5 kg at 2.99: 1.50). In one transaction: the purchase expense,
            with --store a price record of --price, and with --expires a pantry
            item (`pantry list` shows it, from "list"). --at defaults to now.

            Example:
              geospend lists check --user user1 1 Milch --price 1.29 \\
                  --store 288130404 --at 2025-06-01T18:00:00+03:00 \\
                  --expires 2025-06-10
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose list.") var user: String
    @Argument(help: "The list's id.") var list: Int64
    @Argument(help: "The item's name, as on the list.") var item: String
    @Option(help: "What it cost per piece, kg or l.") var price: String
    @Option(help: "Where it was bought: a store id, or the user's own mine-N.") var store: String?
    @Option(help: "When, RFC 3339 with its offset, or a bare date (default: now).") var at: String?
    @Option(help: "Keep it in the pantry until this day, YYYY-MM-DD.") var expires: String?

    func run() async throws {
        let db = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: db, database: database.path)
        let c = try await ShoppingListFields.check(
            user: user, id: list, item: item, price: price, storeID: store, at: at, expires: expires, db: db)
        printOut("Checked \(OutputEscaping.visible(c.item.name)) × \(c.item.quantityText): expense \(c.expense.id), "
            + "\(c.expense.amount.decimalString) \(c.expense.amount.currency.code)\(c.list.isCompleted ? "; list \(list) is complete" : "").\n")
    }
}

struct ListsUncheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uncheck",
        abstract: "Undo a check: its purchase and price record go, in one transaction.",
        discussion: """
            The pantry item the check added (--expires) goes too, even when used:
            the purchase did not happen.

            Example:
              geospend lists uncheck --user user1 1 Milch
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose list.") var user: String
    @Argument(help: "The list's id.") var list: Int64
    @Argument(help: "The item's name.") var item: String

    func run() async throws {
        let db = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: db, database: database.path)
        printOut(ListsListCommand.line(try await ShoppingListFields.uncheck(user: user, id: list, item: item, db: db)))
    }
}

struct ListsRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an item not checked off from a list.",
        discussion: """
            Example:
              geospend lists remove --user user1 1 "Brot Vollkorn"
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose list.") var user: String
    @Argument(help: "The list's id.") var list: Int64
    @Argument(help: "The item's name.") var item: String

    func run() async throws {
        let db = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: db, database: database.path)
        printOut(ListsListCommand.line(try await ShoppingListFields.removeItem(user: user, id: list, item: item, store: db)))
    }
}

struct ListsEditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Rename a list or change its budget (in its currency).",
        usage: "geospend lists edit --user <user> <list> [--name <name>] [--budget <b>]",
        discussion: """
            Example:
              geospend lists edit --user user1 1 --name "Big shop" --budget 60
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose list.") var user: String
    @Argument(help: "The list's id.") var list: Int64
    @Option(help: "A new name.") var name: String?
    @Option(help: "A new budget (> 0).") var budget: String?

    func validate() throws {
        if name == nil && budget == nil { throw ValidationError("give --name or --budget to change") }
    }

    func run() async throws {
        let db = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: db, database: database.path)
        printOut(ListsListCommand.line(try await ShoppingListFields.edit(user: user, id: list, name: name, budget: budget, store: db)))
    }
}

struct ListsDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a list; the purchases it stored stay.",
        discussion: """
            Example:
              geospend lists delete --user user1 1
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose list.") var user: String
    @Argument(help: "The list's id.") var list: Int64

    func run() async throws {
        let db = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: db, database: database.path)
        guard try await db.deleteList(userID: user, id: list) else { throw ShoppingListFields.noList(list, user) }
        printOut("deleted list \(list); its purchases stay\n")
    }
}
