/// The rules of budgets that decide validity, overlap and which expenses count (Phase 3's
/// budgets plan, made exact in issue 17).
public enum BudgetRules {
    /// `amount > 0` (Money is positive by construction), `from` before `to`, and a name by
    /// `DisplayName`'s rule (the same as a period's).
    /// - Returns: the budget with its name in the form to store (NFC, trimmed).
    /// - Throws: `ValueError.invalidDate` when `to` is not after `from`, `.invalidValue` for the name.
    public static func validated(_ b: Budget) throws(ValueError) -> Budget {
        guard b.from < b.to else {
            throw .invalidDate("\(b.to)", reason: "(--to) is not after --from \(b.from); a budget covers --from through --to, both included")
        }
        var checked = b
        checked.name = try DisplayName.checked(b.name, of: "budget", example: "Groceries")
        return checked
    }

    /// Same user, same currency, same category (or none; letters compared without case, as
    /// `--category` filters compare them) and same zone (or none). A zone budget and a general
    /// one, or a category budget and a general one, are different scopes.
    public static func sameScope(_ a: Budget, _ b: Budget) -> Bool {
        a.userID == b.userID && a.amount.currency == b.amount.currency
            && a.category.map(Identity.asciiLowercased) == b.category.map(Identity.asciiLowercased) && a.zone == b.zone
    }

    /// `a.from <= b.to && a.to >= b.from`: the two share at least one day.
    public static func overlap(_ a: Budget, _ b: Budget) -> Bool { a.from <= b.to && a.to >= b.from }

    /// The ids of the active budgets that saving `budget` deactivates: those of its scope whose
    /// days overlap its days (itself excepted, for an edit). Lengths and `every` play no part:
    /// one scope has one active budget on any day, so an expense never counts twice against
    /// budgets of one scope (the trap of Firefly III issue #3418).
    public static func deactivated(by budget: Budget, among existing: [Budget]) -> [Int64] {
        guard budget.isActive else { return [] }
        return existing.filter { $0.id != budget.id && $0.isActive && sameScope($0, budget) && overlap($0, budget) }.map(\.id)
    }

    /// Whether an expense (kind `expense`: the store reads no other) is in the budget's scope
    /// on a day of `days`, leaving the currency aside (`counts` adds it).
    public static func inScope(_ e: BudgetExpense, of b: Budget, days: ClosedRange<LocalDay>, zone: BudgetZone.Matcher?) -> Bool {
        guard days.contains(e.day) else { return false }
        if let c = b.category {
            guard let ec = e.category, Identity.asciiLowercased(ec) == Identity.asciiLowercased(c) else { return false }
        }
        if let zone { return zone.contains(e.coordinate) }
        return true
    }

    /// Whether the expense counts against the budget: in scope and of its currency.
    public static func counts(_ e: BudgetExpense, against b: Budget, days: ClosedRange<LocalDay>, zone: BudgetZone.Matcher?) -> Bool {
        e.currency == b.amount.currency.code && inScope(e, of: b, days: days, zone: zone)
    }
}
