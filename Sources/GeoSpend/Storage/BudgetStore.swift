/// What a store offers for budgets (`geospend budgets …`). Every call is scoped to one user:
/// a budget id of another user is "no such budget".
public protocol BudgetStore: Sendable {
    /// Saves a new budget (`id` 0) or replaces one of the same user and id, and in the same
    /// transaction deactivates the active budgets `BudgetRules.deactivated(by:among:)` names.
    /// - Returns: the saved budget (id and creation time set) and the ids deactivated; nil when
    ///   replacing a budget that does not exist.
    func saveBudget(_ budget: Budget) async throws -> (budget: Budget, deactivated: [Int64])?
    /// The user's budgets: active ones newest `from` first (then newest id); with
    /// `includeInactive`, the inactive ones after them in the same order.
    func budgets(userID: String, includeInactive: Bool) async throws -> [Budget]
    func budget(id: Int64, userID: String) async throws -> Budget?
    /// - Returns: whether there was such a budget.
    func deleteBudget(id: Int64, userID: String) async throws -> Bool
    /// The user's expenses of kind `expense` (any currency) on local days `from…to`.
    func budgetExpenses(userID: String, from: LocalDay, to: LocalDay) async throws -> [BudgetExpense]
}

/// Budgets as a read scope hands them out (every `ExpenseReader` is one): `insights` reads the
/// user's zone budgets in the snapshot its places come from (`ZoneBudgets`). A store that keeps
/// no budgets finds none.
public protocol BudgetReader {
    /// `BudgetStore.budgets(userID:includeInactive:)`, in the scope's snapshot.
    func budgets(userID: String, includeInactive: Bool) throws -> [Budget]
    /// `BudgetStore.budgetExpenses(userID:from:to:)`, in the scope's snapshot.
    func budgetExpenses(userID: String, from: LocalDay, to: LocalDay) throws -> [BudgetExpense]
    /// `BudgetStore.budget(id:userID:)`, in the scope's snapshot.
    func budget(id: Int64, userID: String) throws -> Budget?
}

/// A backend's budget reads are its read scope's (written once, in its reader).
extension BudgetStore where Self: ExpenseStore {
    public func budgets(userID: String, includeInactive: Bool) async throws -> [Budget] {
        try await read { try $0.budgets(userID: userID, includeInactive: includeInactive) }
    }

    public func budgetExpenses(userID: String, from: LocalDay, to: LocalDay) async throws -> [BudgetExpense] {
        try await read { try $0.budgetExpenses(userID: userID, from: from, to: to) }
    }

    public func budget(id: Int64, userID: String) async throws -> Budget? { try await read { try $0.budget(id: id, userID: userID) } }
}
