import ArgumentParser
import Foundation
import GeoSpend

struct ListsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lists",
        abstract: "Shopping lists: a name, a budget, items; the cheapest store within reach.",
        subcommands: [ListsAddCommand.self, ListsShowCommand.self, ListsCompleteCommand.self])

    /// One of the user's lists, or a usage error saying where to see the user's lists.
    static func list(_ id: Int64, of user: String, in lists: [ShoppingList]) throws -> ShoppingList {
        guard let list = lists.first(where: { $0.id == id }) else {
            throw ValidationError("--id \(id): \(user) has no such list (see `geospend lists show --user \(user)`)")
        }
        return list
    }
}

struct ListsAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Create a list (--name, --budget), or add items to one (--id).",
        usage: """
            geospend lists add --user <user> --name <name> --budget <amount>
              --currency <code> [--item <name[=qty]> ...]
            geospend lists add --user <user> --id <id> --item <name[=qty]> ...
            """,
        discussion: """
            A list has a name (1–100 characters) and a budget (> 0) in one
            currency. An item is NAME, NAME=N (packs) or NAME=AMOUNT (1.5kg, 500g,
            2l); adding an item already on the list (same name, case and accents
            aside) adds to its quantity. Ids are numbered per user.

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

    func validate() throws {
        if id == nil && (name == nil || budget == nil || currency == nil) {
            throw ValidationError("give --name, --budget and --currency for a new list, or --id ID to add items to one")
        }
        if id != nil && (name != nil || budget != nil) { throw ValidationError("--id adds items to a list; --name and --budget are for a new one") }
        if id != nil && item.isEmpty { throw ValidationError("give the items to add: --item NAME[=QTY]") }
    }

    func run() async throws {
        let items = try item.map { spec in
            do { return try ShoppingListItem(parsing: spec) } catch { throw ValidationError("--item: \(error)") }
        }
        let store = try await database.openPrices(writable: true)
        try await NameChecks.user(user, in: store, database: database.path)
        var list: ShoppingList
        if let id {
            let found = try ListsCommand.list(id, of: user, in: try await store.lists(userID: user))
            guard found.completedExpenseID == nil else { throw ValidationError("--id \(id): the list is completed; start a new one") }
            list = found
        } else {
            let checked: String, money: Money
            do { checked = try ShoppingList.checked(name: name!) } catch { throw ValidationError("--name: \(error)") }
            do { money = try Money(parsing: budget!, currency: Currency(code: currency!)) } catch { throw ValidationError("--budget: \(error)") }
            list = try await store.addList(userID: user, name: checked, budget: money)
        }
        for i in items { list = try list.adding(i) }
        if !items.isEmpty { list = try await store.setItems(userID: user, id: list.id, list.items) ?? list }
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
              [--near <lat,lon> --radius <r>] [--cost-per-km <x>]]
              [--format table|json]
            """,
        discussion: """
            With --id: the estimated cost is the cheapest store within reach for the
            list's items (`geospend basket`'s rule and options), and the list is
            "budget exceeded" when that cost (with travel) is over its budget. An
            estimate in another currency than the budget is not compared.

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
    @Option(help: "table or json.") var format: BasketCommand.BasketFormat = .table

    func run() async throws {
        let store = try await database.openPrices()
        try await NameChecks.user(user, in: store, database: database.path)
        let lists = try await store.lists(userID: user)
        guard let id else {
            switch format {
            case .json: printOut(JSONOutput.array(lists.map { Self.json($0, estimate: nil) }).serialized() + "\n")
            case .table:
                printOut(TextTable(
                    headers: ["id", "name", "budget", "items", "completed"],
                    rows: lists.map { [String($0.id), OutputEscaping.visible($0.name), "\($0.budget.decimalString) \($0.budget.currency.code)", String($0.items.count), $0.completedExpenseID ?? ""] },
                    rightAligned: [0, 3]).rendered())
            }
            return
        }
        let list = try ListsCommand.list(id, of: user, in: lists)
        let basket = try await reach.compare(list.items.map { ($0.name, $0.want) }, asOf: try BasketCommand.day(asOf), in: store)
        let estimate = ShoppingListEstimate(list: list, basket: basket)
        switch format {
        case .json: printOut(Self.json(list, estimate: estimate).serialized() + "\n")
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

    static func json(_ l: ShoppingList, estimate: ShoppingListEstimate?) -> JSONOutput {
        var fields: [(String, JSONOutput)] = [
            ("id", .integer(l.id)), ("user", .string(l.userID)), ("name", .string(l.name)), ("budget", .string(l.budget.decimalString)),
            ("currency", .string(l.budget.currency.code)),
            ("items", .array(l.items.map { .object([("name", .string($0.name)), ("quantity", .string($0.quantityText))]) })),
            ("completed_expense_id", l.completedExpenseID.map { .string($0) } ?? .null),
        ]
        if let estimate {
            let c = estimate.currency
            fields += [
                ("estimated_cost", estimate.costMinor.flatMap { m in c.map { .string(Money.decimalString(m, digits: $0.minorDigits)) } } ?? .null),
                ("estimate_currency", c.map { .string($0.code) } ?? .null),
                ("estimate_store", estimate.best.map { .string($0.store.id) } ?? .null),
                ("budget_exceeded", estimate.budgetExceeded.map { .bool($0) } ?? .null),
            ]
        }
        return .object(fields)
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
    @Option(help: "Where it was bought.") var store: String
    @Option(help: "When, RFC 3339 with its offset, or a bare date.") var at: String
    @Option(parsing: .unconditionalSingleValue, help: "NAME=AMOUNT paid for an item; repeatable.") var price: [String] = []

    func run() async throws {
        guard !price.isEmpty else { throw ValidationError("give what was paid: --price NAME=AMOUNT for each item bought") }
        guard let when = try Parse.timestamp(at, option: "--at") else { return }
        let db = try await database.openPrices(writable: true)
        try await NameChecks.user(user, in: db, database: database.path)
        let list = try ListsCommand.list(id, of: user, in: try await db.lists(userID: user))
        guard list.completedExpenseID == nil else { throw ValidationError("--id \(id): the list is already completed") }
        let storeID = store
        let place = try await ReceiptsCommand.store(storeID, in: db)
        let currency = list.budget.currency
        var entries: [PriceEntry] = []
        var total = Money(minorUnits: 0, currency: currency)
        for spec in price {
            guard let eq = spec.lastIndex(of: "=") else { throw ValidationError("--price \(spec): write NAME=AMOUNT, e.g. Milch=2.58") }
            let name = String(spec[..<eq])
            guard let item = list.items.first(where: { $0.name.compare(name, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }) else {
                throw ValidationError("--price \(spec): \(name) is not on list \(id) (\(list.items.map(\.name).joined(separator: ", ")))")
            }
            let paid: Money
            do { paid = try Money(parsing: String(spec[spec.index(after: eq)...]), currency: currency) } catch { throw ValidationError("--price \(spec): \(error)") }
            total = try total.adding(paid)
            let (quantity, unit): (Double, PriceUnit) = switch item.want {
            case .packs(let n): (Double(n), .pcs)
            case .amount(let a): (a.inPerUnit, a.dimension == .mass ? .kg : a.dimension == .volume ? .l : .pcs)
            }
            entries.append(PriceEntry(productName: item.name, store: .id(storeID), price: paid, quantity: quantity, unit: unit, recordedAt: when, source: .manual))
        }
        let expense = Expense(
            id: "list-\(Identity.normalized(user))-\(id)", userID: user, amount: total, occurredAt: when, title: list.name,
            merchant: place.name, location: ExpenseLocation(coordinate: place.coordinate), storeID: storeID, notes: "shopping list \(id)")
        guard let done = try await db.completeList(userID: user, id: id, expense: expense, prices: entries) else {
            throw ValidationError("--id \(id): \(user) has no such list")
        }
        printOut("List \(done.id) completed: expense \(expense.id), \(total.decimalString) \(currency.code) at \(OutputEscaping.visible(place.name ?? storeID)), \(entries.count) price records.\n")
    }
}
