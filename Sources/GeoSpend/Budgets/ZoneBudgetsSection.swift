/// Zone budgets as `insights` shows them: each active zone budget's zone and its percentage.
public enum ZoneBudgetsSection {
    /// `"budgets":[{"budget_id":…,"name":…,"as_of":…,"currency":…,"amount":…,"spent":…,
    /// "percentage_used":…,"zone":…}]`.
    public static func json(_ summaries: [BudgetSummary]) -> JSONOutput {
        .array(summaries.map { s in
            .object([
                ("budget_id", .integer(s.budget.id)), ("name", .string(s.budget.name)), ("as_of", .string("\(s.asOf)")),
                ("currency", .string(s.budget.amount.currency.code)), ("amount", .string(s.budget.amount.decimalString)),
                ("spent", BudgetJSON.money(s.spentMinor, s.budget.amount.currency)),
                ("percentage_used", BudgetJSON.percentage(s.percentageHundredths)), ("zone", BudgetJSON.zone(s.budget.zone)),
            ])
        })
    }

    /// One line per budget: `Lunch: 42.48 % of 150.00 EUR within 400 m of 60.1699,24.9384`.
    public static func lines(_ summaries: [BudgetSummary]) -> [String] {
        summaries.map { s in
            let zone: String
            switch s.budget.zone {
            case .circle(let c, let r)?: zone = "within \(r) of \(formatDecimal(c.latitude, digits: 6)),\(formatDecimal(c.longitude, digits: 6))"
            default: zone = "inside its polygon"
            }
            return "\(OutputEscaping.visible(s.budget.name)): \(formatDecimal(Double(s.percentageHundredths) / 100, digits: 2)) % of "
                + "\(s.budget.amount.decimalString) \(s.budget.amount.currency.code) \(zone)"
        }
    }
}
