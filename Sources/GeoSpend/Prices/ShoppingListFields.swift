import Foundation

/// A shopping list's changes as a person gives them (`geospend lists add|show|complete`, the
/// service's `/api/v1/lists`), checked with the CLI's words, and the list as `--format json`
/// shows it.
public enum ShoppingListFields {
    /// One of the user's lists, or a usage error saying where to see the user's lists.
    public static func list(_ id: Int64, of user: String, in lists: [ShoppingList]) throws -> ShoppingList {
        guard let list = lists.first(where: { $0.id == id }) else { throw noList(id, user) }
        return list
    }

    public static func noList(_ id: Int64, _ user: String) -> UsageError {
        UsageError("--id \(id): \(user) has no such list (see `geospend lists show --user \(user)`)")
    }

    /// `--item NAME[=QTY]` specs.
    public static func items(_ specs: [String]) throws -> [ShoppingListItem] {
        try specs.map { spec in
            do { return try ShoppingListItem(parsing: spec) } catch { throw UsageError("--item: \(error)") }
        }
    }

    /// A new list of `user` (`lists add --name --budget --currency [--item …] [--over-budget]`):
    /// refused with "budget exceeded" when its items' estimate is over the budget, unless
    /// `overBudget` (`checkBudget`).
    public static func create(
        user: String, name: String, budget: String, currency: String, items: [ShoppingListItem], overBudget: Bool = false,
        store: some ShoppingListStore & PriceStore & ExpenseStore
    ) async throws -> ShoppingList {
        let checked: String, money: Money
        do { checked = try ShoppingList.checked(name: name) } catch { throw UsageError("--name: \(error)") }
        do { money = try Money(parsing: budget, currency: Currency(code: currency)) } catch { throw UsageError("--budget: \(error)") }
        var draft = ShoppingList(id: 0, userID: user, name: checked, budget: money, items: [])
        for i in items { draft = try draft.adding(i) }
        if !items.isEmpty { try await checkBudget(draft, overBudget: overBudget, store: store) }
        let list = try await store.addList(userID: user, name: checked, budget: money)
        return try await adding(items, to: list, store: store)
    }

    /// `items` added to the user's open list `id` (`lists add --id ID --item … [--over-budget]`),
    /// under the same budget rule as `create`.
    public static func addItems(
        user: String, id: Int64, items: [ShoppingListItem], overBudget: Bool = false, store: some ShoppingListStore & PriceStore & ExpenseStore
    ) async throws -> ShoppingList {
        let found = try list(id, of: user, in: try await store.lists(userID: user))
        guard !found.isCompleted else { throw UsageError("--id \(id): the list is completed; start a new one") }
        var draft = found
        for i in items { draft = try draft.adding(i) }
        try await checkBudget(draft, overBudget: overBudget, store: store)
        return try await adding(items, to: found, store: store)
    }

    private static func adding(_ items: [ShoppingListItem], to list: ShoppingList, store: some ShoppingListStore) async throws -> ShoppingList {
        var list = list
        for i in items { list = try list.adding(i) }
        if !items.isEmpty { list = try await store.setItems(userID: list.userID, id: list.id, list.items) ?? list }
        return list
    }

    /// What `lists complete` stored.
    public struct Completion: Sendable {
        public let list: ShoppingList
        public let expense: Expense
        public let store: Store
        public let prices: Int
    }

    /// `lists complete --id ID --store S --at WHEN --price NAME=AMOUNT …`: one expense of the
    /// prices' sum at the store (the registry's or the user's own `mine-N`), a price record per
    /// item, the list marked completed, in one transaction.
    public static func complete(
        user: String, id: Int64, storeID: String, at: String, prices: [String], db: some ExpenseStore & ShoppingListStore & StoreChoiceStore
    ) async throws -> Completion {
        guard !prices.isEmpty else { throw UsageError("give what was paid: --price NAME=AMOUNT for each item bought") }
        let when: Timestamp
        do { when = try Timestamp(parsing: at) } catch { throw UsageError("--at: \(error)") }
        let list = try list(id, of: user, in: try await db.lists(userID: user))
        guard list.completedExpenseID == nil else { throw UsageError("--id \(id): the list is already completed") }
        guard !list.items.contains(where: { $0.check != nil }) else {
            throw UsageError("--id \(id): items are checked off one at a time on this list; check off the rest with `geospend lists check`")
        }
        let entry = try await ReceiptRecording.store(storeID, user: user, db: db)
        let place = entry.store
        let currency = list.budget.currency
        var entries: [PriceEntry] = []
        var total = Money(minorUnits: 0, currency: currency)
        for spec in prices {
            guard let eq = spec.lastIndex(of: "=") else { throw UsageError("--price \(spec): write NAME=AMOUNT, e.g. Milch=2.58") }
            let name = String(spec[..<eq])
            guard let item = list.items.first(where: { $0.name.compare(name, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }) else {
                throw UsageError("--price \(spec): \(name) is not on list \(id) (\(list.items.map(\.name).joined(separator: ", ")))")
            }
            let paid: Money
            do { paid = try Money(parsing: String(spec[spec.index(after: eq)...]), currency: currency) } catch { throw UsageError("--price \(spec): \(error)") }
            total = try total.adding(paid)
            let (quantity, unit): (Double, PriceUnit) = switch item.want {
            case .packs(let n): (Double(n), .pcs)
            case .amount(let a): (a.inPerUnit, a.dimension == .mass ? .kg : a.dimension == .volume ? .l : .pcs)
            }
            entries.append(PriceEntry(productName: item.name, store: .id(storeID), price: paid, quantity: quantity, unit: unit, recordedAt: when, source: .manual))
        }
        // Each price is at most the cap, their sum need not be: an expense above it would be
        // stored, then refused by `import` when the user's export is read back (issue 35, item 20).
        guard total.minorUnits <= Money.maximumMinorUnits else {
            let cap = Money(minorUnits: Money.maximumMinorUnits, currency: currency)
            throw UsageError(
                "--price: the prices add up to \(total.decimalString) \(currency.code), more than \(cap.decimalString) \(currency.code), the largest amount GeoSpend stores; nothing stored")
        }
        let expense = Expense(
            id: "list-\(Identity.normalized(user))-\(id)", userID: user, amount: total, occurredAt: when, title: list.name,
            merchant: place.name, location: ExpenseLocation(coordinate: place.coordinate), storeID: entry.expenseStoreID, notes: "shopping list \(id)")
        guard let done = try await db.completeList(userID: user, id: id, expense: expense, prices: entries) else { throw noList(id, user) }
        return Completion(list: done, expense: expense, store: place, prices: entries.count)
    }

    /// A list as `lists show --format json` shows it, with its estimate when there is one.
    public static func json(_ l: ShoppingList, estimate: ShoppingListEstimate?) -> JSONOutput {
        var fields: [(String, JSONOutput)] = [
            ("id", .integer(l.id)), ("user", .string(l.userID)), ("name", .string(l.name)), ("budget", .string(l.budget.decimalString)),
            ("currency", .string(l.budget.currency.code)),
            ("items", .array(l.items.map { i in
                .object([
                    ("name", .string(i.name)), ("quantity", .string(i.quantityText)), ("checked", .bool(i.check != nil)),
                    ("paid", i.check.map { .string(Money.decimalString($0.paidMinor, digits: l.budget.currency.minorDigits)) } ?? .null),
                    ("expense_id", i.check.map { .string($0.expenseID) } ?? .null),
                ])
            })),
            ("completed_expense_id", l.completedExpenseID.map { .string($0) } ?? .null),
            ("completed", .bool(l.isCompleted)),
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
