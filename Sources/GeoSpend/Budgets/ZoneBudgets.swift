/// Zone budgets as `insights` and the map page show them (issue 17): the user's active zone
/// budgets whose days hold the as-of day — the --to day, else today (or $SOURCE_DATE_EPOCH's
/// day) — each with its percentage, as `budgets alerts` counts them.
public enum ZoneBudgets {
    public static func summaries(_ store: some BudgetStore, user: String, asOf: String?) async throws -> [BudgetSummary] {
        let day = try LocalDay(parsing: String((asOf ?? MapExportRequest.now()).prefix(10)))
        var summaries: [BudgetSummary] = []
        for b in try await store.budgets(userID: Identity.normalized(user), includeInactive: false) where b.zone != nil && b.covers(day) {
            let w = b.window(asOf: day)
            summaries.append(
                BudgetSummary(budget: b, asOf: day, expenses: try await store.budgetExpenses(userID: b.userID, from: w.lowerBound, to: w.upperBound)))
        }
        return summaries
    }
}
