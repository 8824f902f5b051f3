import Foundation

/// A shopping list's life after `lists add` (issue 38, seed 000 L325–471, L532–591): items
/// checked off one at a time with what they cost, unchecked, removed; the list renamed,
/// re-budgeted, deleted; lists listed newest first; an item refused when it takes the estimate
/// over the budget. The CLI's `lists …` and the service's `/api/v1/lists` call these.
extension ShoppingListFields {
    /// The user's lists, newest first (ids are handed out in order); open ones only unless `all`.
    public static func listed(_ lists: [ShoppingList], all: Bool) -> [ShoppingList] {
        lists.filter { all || !$0.isCompleted }.sorted { $0.id > $1.id }
    }

    /// `price × quantity` in minor units: a count multiplies exactly; an amount (1.5 kg at a price
    /// per kg) is `price × thousandths / 1 000 000` (per piece: `/ 1 000`) rounded half to even
    /// to the minor unit — 0.5 kg at 2.99 is 1.495 → 1.50, at 2.97 is 1.485 → 1.48.
    /// - Throws: `UsageError` when the product passes what Int64 counts.
    public static func total(priceMinor: Int64, for want: BasketItem.Want) throws -> Int64 {
        let (scaled, divisor): (Int64, Int64)
        switch want {
        case .packs(let n):
            let (p, overflow) = priceMinor.multipliedReportingOverflow(by: n)
            if overflow { throw tooLarge }
            return p
        case .amount(let a):
            let (p, overflow) = priceMinor.multipliedReportingOverflow(by: a.thousandths)
            if overflow { throw tooLarge }
            (scaled, divisor) = (p, a.dimension == .count ? 1_000 : 1_000_000)
        }
        let (q, r) = scaled.quotientAndRemainder(dividingBy: divisor)
        if r > divisor - r || (r == divisor - r && q % 2 != 0) { return q + 1 }
        return q
    }

    static let tooLarge = UsageError("--price: price × quantity passes the largest amount GeoSpend counts; give a smaller price")

    /// The item of the list named `name`, or a usage error listing the items.
    static func item(_ name: String, of list: ShoppingList) throws -> Int {
        guard let i = list.itemIndex(named: name) else {
            throw UsageError("\(name) is not on list \(list.id) (\(list.items.map(\.name).joined(separator: ", ")))")
        }
        return i
    }

    /// What `lists check` stored.
    public struct Check: Sendable {
        public let list: ShoppingList
        public let item: ShoppingListItem
        public let expense: Expense
    }

    /// `lists check LIST ITEM --price P [--store ID] [--at WHEN] [--expires DAY]`: in one
    /// transaction, a purchase expense of `P × quantity` (P per piece, kg or l:
    /// `total(priceMinor:for:)`), with a store (the registry's or the user's own `mine-N`) a
    /// price record of P for 1 piece, kg or l, with
    /// `expires` a pantry item (the item's name and quantity, source `list`); the item marked checked.
    public static func check(
        user: String, id: Int64, item name: String, price: String, storeID: String?, at: String?, expires: String? = nil,
        db: some ExpenseStore & ShoppingListStore & StoreChoiceStore
    ) async throws -> Check {
        let list = try list(id, of: user, in: try await db.lists(userID: user))
        guard list.completedExpenseID == nil else { throw UsageError("list \(id) was completed with `lists complete`; start a new one") }
        let index = try item(name, of: list)
        let item = list.items[index]
        guard item.check == nil else { throw UsageError("\(item.name) is checked off already; `lists uncheck` it first") }
        let currency = list.budget.currency
        let paid: Money
        do { paid = try Money(parsing: price, currency: currency) } catch { throw UsageError("--price: \(error)") }
        let totalMinor = try total(priceMinor: paid.minorUnits, for: item.want)
        guard totalMinor > 0 else { throw UsageError("--price \(price): × \(item.quantityText) rounds to 0.00 \(currency.code); give the price per piece, kg or l") }
        guard totalMinor <= Money.maximumMinorUnits else { throw tooLarge }
        let when: Timestamp
        if let at {
            do { when = try Timestamp(parsing: at) } catch { throw UsageError("--at: \(error)") }
        } else {
            when = Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970), utcOffsetMinutes: 0)
        }
        var place: StoreEntry?
        if let storeID { place = try await ReceiptRecording.store(storeID, user: user, db: db) }
        let unit: PriceUnit = switch item.want {
        case .packs: .pcs
        case .amount(let a): a.dimension == .mass ? .kg : a.dimension == .volume ? .l : .pcs
        }
        let expense = Expense(
            id: "list-\(Identity.normalized(user))-\(id)-check", userID: user, amount: Money(minorUnits: totalMinor, currency: currency),
            occurredAt: when, title: item.name, merchant: place?.store.name, location: place.map { ExpenseLocation(coordinate: $0.store.coordinate) },
            storeID: place?.expenseStoreID, notes: "shopping list \(id): \(item.name) × \(item.quantityText)")
        let entry = storeID.map {
            PriceEntry(productName: item.name, store: .id($0), price: paid, quantity: 1, unit: unit, recordedAt: when, source: .manual)
        }
        let pantry = try expires.map { try PantryFields.purchase(name: item.name, want: item.want, expires: $0, option: "--expires") }
        guard let (done, stored) = try await db.checkItem(
            userID: user, id: id, position: index + 1, expense: expense, price: entry, pantry: pantry)
        else {
            throw noList(id, user)
        }
        return Check(list: done, item: done.items[index], expense: stored)
    }

    /// `lists uncheck LIST ITEM`: the purchase, the price record and the pantry item `check`
    /// stored go, in one transaction, and the item is open again.
    public static func uncheck(user: String, id: Int64, item name: String, db: some ShoppingListStore) async throws -> ShoppingList {
        let list = try list(id, of: user, in: try await db.lists(userID: user))
        let index = try item(name, of: list)
        guard list.items[index].check != nil else { throw UsageError("\(list.items[index].name) is not checked off on list \(id)") }
        guard let done = try await db.uncheckItem(userID: user, id: id, position: index + 1) else { throw noList(id, user) }
        return done
    }

    /// `lists remove LIST ITEM`: an item not checked off leaves the list.
    public static func removeItem(user: String, id: Int64, item name: String, store: some ShoppingListStore) async throws -> ShoppingList {
        var list = try list(id, of: user, in: try await store.lists(userID: user))
        let index = try item(name, of: list)
        guard list.items[index].check == nil else { throw UsageError("\(list.items[index].name) is checked off; `lists uncheck` it first") }
        list.items.remove(at: index)
        return try await store.setItems(userID: user, id: id, list.items) ?? list
    }

    /// `lists edit LIST [--name N] [--budget B]`: a new name or budget (in the list's currency).
    public static func edit(user: String, id: Int64, name: String?, budget: String?, store: some ShoppingListStore) async throws -> ShoppingList {
        let list = try list(id, of: user, in: try await store.lists(userID: user))
        guard name != nil || budget != nil else { throw UsageError("give --name or --budget to change") }
        var newName = list.name, newBudget = list.budget
        if let name { do { newName = try ShoppingList.checked(name: name) } catch { throw UsageError("--name: \(error)") } }
        if let budget {
            do { newBudget = try Money(parsing: budget, currency: list.budget.currency) } catch { throw UsageError("--budget: \(error)") }
        }
        guard let done = try await store.updateList(userID: user, id: id, name: newName, budget: newBudget) else { throw noList(id, user) }
        return done
    }

    /// The budget rule of `lists add`: adding items that take the estimate (`lists show`'s,
    /// every user's prices, no distance limit, as of today UTC) over the budget is refused with
    /// "budget exceeded" unless `overBudget`. No estimate, or one in another currency, is not
    /// compared. - Returns: the estimate, for the caller to show.
    @discardableResult
    public static func checkBudget(_ list: ShoppingList, overBudget: Bool, store: some PriceStore & ExpenseStore) async throws -> ShoppingListEstimate {
        let basket = try await BasketReach().compare(list.items.map { ($0.name, $0.want) }, asOf: try BasketReach.day(nil), in: store)
        let estimate = ShoppingListEstimate(list: list, basket: basket)
        if estimate.budgetExceeded == true, !overBudget, let cost = estimate.costMinor, let c = estimate.currency {
            throw UsageError(
                "budget exceeded: with these items list \(list.id == 0 ? "\"\(list.name)\"" : String(list.id)) is estimated at "
                    + "\(Money.decimalString(cost, digits: c.minorDigits)) \(c.code), over its budget of \(list.budget.decimalString) \(c.code); "
                    + "nothing added. Pass --over-budget to add them anyway, or raise the budget with `geospend lists edit --budget`")
        }
        return estimate
    }
}
