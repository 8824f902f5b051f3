/// Zone budgets as `insights` and the map page show them (issue 17): the user's active zone
/// budgets whose days hold the as-of day — the --to day, else today (or $SOURCE_DATE_EPOCH's
/// day) — each with its percentage, as `budgets alerts` counts them. Read in the caller's scope,
/// so that they count the expenses of the snapshot the rest of the page comes from.
public enum ZoneBudgets {
    public static func summaries(in reader: some BudgetReader, user: String, asOf: String?) throws -> [BudgetSummary] {
        let day = try LocalDay(parsing: String((asOf ?? MapExportRequest.now()).prefix(10)))
        var summaries: [BudgetSummary] = []
        for b in try reader.budgets(userID: Identity.normalized(user), includeInactive: false) where b.zone != nil && b.covers(day) {
            let w = b.window(asOf: day)
            summaries.append(
                BudgetSummary(budget: b, asOf: day, expenses: try reader.budgetExpenses(userID: b.userID, from: w.lowerBound, to: w.upperBound)))
        }
        return summaries
    }
}
