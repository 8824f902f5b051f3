import GeoSpend

/// A shopping list as the file's `shopping_lists` row keeps it: the list, and how many checks
/// it has made (a check's expense id ends in `-N`, N never reused).
struct MemoryShoppingList {
    var list: ShoppingList
    var checks: Int64 = 0
}

/// Shopping lists with the file's rules (Sources/GeoSpendSpatiaLite/ShoppingListStorage.swift):
/// numbered per user and never reused; completing or checking off stores a purchase as a
/// receipt does, in the same edit; unchecking takes the purchase back.
extension MemoryStore: ShoppingListStore {
    public func addList(userID: String, name: String, budget: Money) async throws -> ShoppingList {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard state.users.contains(ExactText(user)) else { throw EditError.invalid(field: "user", reason: "no user with id \"\(user)\"") }
            let list = ShoppingList(id: state.nextNumber(.shoppingList, user: user), userID: user, name: name, budget: budget, items: [])
            state.lists[ExactText(user), default: []].append(MemoryShoppingList(list: list))
            return list
        }
    }

    public func setItems(userID: String, id: Int64, _ items: [ShoppingListItem]) async throws -> ShoppingList? {
        try await changeList(userID, id) { state, list in list.list.items = items }?.0
    }

    public func completeList(userID: String, id: Int64, expense: Expense, prices: [PriceEntry]) async throws -> ShoppingList? {
        try await changeList(userID, id) { state, list in
            _ = try state.insertPurchase(expense, prices: prices)
            list.list.completedExpenseID = expense.id
        }?.0
    }

    public func updateList(userID: String, id: Int64, name: String, budget: Money) async throws -> ShoppingList? {
        try await changeList(userID, id) { state, list in (list.list.name, list.list.budget) = (name, budget) }?.0
    }

    /// Its items go with it; the purchases it stored stay (they happened).
    public func deleteList(userID: String, id: Int64) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let at = state.lists[user]?.firstIndex(where: { $0.list.id == id }) else { return false }
            state.lists[user]!.remove(at: at)
            if state.lists[user]!.isEmpty { state.lists[user] = nil }
            return true
        }
    }

    public func checkItem(
        userID: String, id: Int64, position: Int, expense: Expense, price: PriceEntry?, pantry: PantryFields?
    ) async throws -> (ShoppingList, Expense)? {
        try await changeList(userID, id) { state, list -> Expense in
            list.checks += 1
            var stored = expense
            stored.id += "-\(list.checks)"
            let outcomes = try state.insertPurchase(stored, prices: price.map { [$0] } ?? [])
            var recordID: Int64?
            if case .inserted(let r, _)? = outcomes.first { recordID = r.id }
            guard list.list.items.indices.contains(position - 1), list.list.items[position - 1].check == nil else {
                throw EditError.invalid(field: "item", reason: "is checked off already, or no longer on the list")
            }
            list.list.items[position - 1].check = ShoppingListCheck(expenseID: stored.id, priceRecordID: recordID, paidMinor: stored.amount.minorUnits)
            if let pantry { state.addPantryItem(user: list.list.userID, pantry, source: .list, purchase: stored.id) }
            return stored
        }
    }

    public func uncheckItem(userID: String, id: Int64, position: Int) async throws -> ShoppingList? {
        try await changeList(userID, id) { state, list in
            guard list.list.items.indices.contains(position - 1), let check = list.list.items[position - 1].check else {
                throw EditError.invalid(field: "item", reason: "is not checked off")
            }
            let user = list.list.userID
            state.deleteExpenseRow(id: check.expenseID, userID: user)
            if let record = check.priceRecordID { state.priceRecords.removeAll { $0.id == record && $0.user == ExactText(user) } }
            state.deletePantryItems(user: user, purchase: check.expenseID, source: .list)
            list.list.items[position - 1].check = nil
        }?.0
    }

    /// Runs `change` on the user's list `id` in one edit (a throw changes nothing).
    /// - Returns: the list after it and what `change` returned; nil when the user has no such list.
    private func changeList<T: Sendable>(
        _ userID: String, _ id: Int64, _ change: @escaping @Sendable (inout MemoryState, inout MemoryShoppingList) throws -> T
    ) async throws -> (ShoppingList, T)? {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let at = state.lists[user]?.firstIndex(where: { $0.list.id == id }) else { return nil }
            var list = state.lists[user]![at]
            let result = try change(&state, &list)
            state.lists[user]![at] = list
            return (list.list, result)
        }
    }
}

extension MemoryState {
    /// `UserDataStore.restore`'s lists: ids, items and checks as exported, the counter after them.
    mutating func restoreLists(_ restored: [RestoredShoppingList], user: String) {
        for l in restored {
            lists[ExactText(user), default: []].append(MemoryShoppingList(
                list: ShoppingList(id: l.number, userID: user, name: l.name, budget: l.budget, items: l.items, completedExpenseID: l.completedExpenseID),
                checks: l.checks))
        }
        lists[ExactText(user)]?.sort { $0.list.id < $1.list.id }
        if let last = restored.map(\.number).max() { lastNumbers[NumberKey(counter: .shoppingList, user: ExactText(user))] = last }
    }
}

extension MemoryReader {
    /// By id.
    func lists(userID: String) throws -> [ShoppingList] { (state.lists[ExactText(Identity.normalized(userID))] ?? []).map(\.list) }
}
