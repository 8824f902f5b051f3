import GeoSpend

/// Budgets with the file's rules (Sources/GeoSpendSpatiaLite/BudgetStorage.swift): numbered per
/// user, never reused; saving one deactivates the active budgets of its scope it overlaps
/// (`BudgetRules`). No budget events: the memory store keeps no notifications.
extension MemoryStore: BudgetStore {
    public func saveBudget(_ budget: Budget) async throws -> (budget: Budget, deactivated: [Int64])? {
        try await edit { state in
            let user = ExactText(budget.userID)
            var saved = budget
            let existing = state.budgets[user] ?? []
            if budget.id != 0 {
                guard let old = existing.first(where: { $0.id == budget.id }) else { return nil }
                saved.createdAt = old.createdAt
            } else {
                try state.requireUser(budget.userID)
                saved.createdAt = MemoryClock.nowInSeconds()
            }
            let active = MemoryState.listed(existing.filter(\.isActive))
            let deactivated = BudgetRules.deactivated(by: saved, among: active)
            if saved.id == 0 {
                saved.id = state.nextNumber(.budget, user: budget.userID)
                state.budgets[user, default: []].append(saved)
            } else {
                state.budgets[user]![existing.firstIndex { $0.id == saved.id }!] = saved
            }
            for i in state.budgets[user]!.indices where deactivated.contains(state.budgets[user]![i].id) {
                state.budgets[user]![i].isActive = false
            }
            return (saved, deactivated)
        }
    }

    public func deleteBudget(id: Int64, userID: String) async throws -> Bool {
        try await edit { state in
            guard let at = state.budgets[ExactText(userID)]?.firstIndex(where: { $0.id == id }) else { return false }
            state.budgets[ExactText(userID)]!.remove(at: at)
            return true
        }
    }
}

extension MemoryState {
    /// Active first, newest `from` first, then newest id; category limits by category (bytes).
    static func listed(_ budgets: [Budget]) -> [Budget] {
        budgets.sorted { a, b in
            if a.isActive != b.isActive { return a.isActive }
            if a.from != b.from { return a.from > b.from }
            return a.id > b.id
        }.map { b in
            var sorted = b
            sorted.categoryLimits.sort { byBytes($0.category, $1.category) }
            return sorted
        }
    }

    /// A category rename carried to the user's budgets and category limits that name the old
    /// name (letters compared without case, as budgets match categories).
    mutating func renameBudgetCategory(user: String, from old: String, to new: String) {
        let folded = Identity.asciiLowercased(old)
        for i in budgets[ExactText(user)]?.indices ?? 0..<0 {
            if budgets[ExactText(user)]![i].category.map(Identity.asciiLowercased) == folded { budgets[ExactText(user)]![i].category = new }
            budgets[ExactText(user)]![i].categoryLimits = budgets[ExactText(user)]![i].categoryLimits.map { limit in
                Identity.asciiLowercased(limit.category) == folded ? Budget.CategoryLimit(category: new, amount: limit.amount) : limit
            }
        }
    }

    /// A deleted category leaves its budgets counting nothing: deactivated.
    mutating func deactivateBudgets(user: String, category: String) {
        let folded = Identity.asciiLowercased(category)
        for i in budgets[ExactText(user)]?.indices ?? 0..<0 where budgets[ExactText(user)]![i].category.map(Identity.asciiLowercased) == folded {
            budgets[ExactText(user)]![i].isActive = false
        }
    }
}

extension MemoryReader {
    func budgets(userID: String, includeInactive: Bool) throws -> [Budget] {
        MemoryState.listed((state.budgets[ExactText(userID)] ?? []).filter { includeInactive || $0.isActive })
    }

    func budget(id: Int64, userID: String) throws -> Budget? {
        try budgets(userID: userID, includeInactive: true).first { $0.id == id }
    }

    /// The user's expenses of kind `expense` on local days `from…to`, by id (bytes).
    func budgetExpenses(userID: String, from: LocalDay, to: LocalDay) throws -> [BudgetExpense] {
        try state.expenses.map(\.expense)
            .filter { ExactText($0.userID) == ExactText(userID) && $0.kind == .expense }
            .sorted { byBytes($0.id, $1.id) }
            .compactMap { e in
                let day = try LocalDay(parsing: e.occurredAt.localDate)
                guard from <= day && day <= to else { return nil }
                return BudgetExpense(
                    amountMinor: e.amount.minorUnits, currency: e.amount.currency.code, day: day, category: e.category,
                    coordinate: e.location?.coordinate)
            }
    }
}
