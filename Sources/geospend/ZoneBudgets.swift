import GeoSpend

/// Zone budgets as `insights` and the map page show them (issue 17): the user's active zone
/// budgets whose days hold the as-of day — the --to day, else today (or $SOURCE_DATE_EPOCH's
/// day) — each with its percentage, as `budgets alerts` counts them.
enum ZoneBudgets {
    static func summaries(_ store: some BudgetStore, user: String, asOf: String?) throws -> [BudgetSummary] {
        let day = try LocalDay(parsing: String((asOf ?? MapExportRequest.now()).prefix(10)))
        return try store.budgets(userID: Identity.normalized(user), includeInactive: false).filter { $0.zone != nil && $0.covers(day) }.map { b in
            let w = b.window(asOf: day)
            return BudgetSummary(budget: b, asOf: day, expenses: try store.budgetExpenses(userID: b.userID, from: w.lowerBound, to: w.upperBound))
        }
    }
}
