/// What an edit of a stored expense (`ExpenseEditing.updateExpense`) checks and what it does to
/// the position's provenance, the same on every backend: each reads the stored row and the
/// figures these rules need and writes the outcome.
public enum ExpenseUpdateRules {
    /// Whether the edit's category must be checked to exist and be active: a category the
    /// expense keeps (the same name, ASCII letters folded, and the same kind) stays even when it
    /// was deactivated meanwhile; a new one must be active.
    public static func checksCategory(old: Expense, new: Expense) -> Bool {
        guard let name = new.category else { return false }
        let kept = old.category.map(Identity.asciiLowercased) == Identity.asciiLowercased(name)
            && Category.kind(for: old.kind) == Category.kind(for: new.kind)
        return !kept
    }

    /// The import's rule: every total of a currency stays within Int64. `others` is the total of
    /// the currency over every stored expense but this one (nil when it is beyond Int64 itself).
    public static func checkTotal(others: Int64?, _ new: Expense) throws {
        let code = new.amount.currency.code
        guard let others, !others.addingReportingOverflow(new.amount.minorUnits).overflow else {
            throw EditError.invalid(field: "--amount", reason: "would bring the total of all \(code) amounts beyond what GeoSpend can add up exactly")
        }
    }

    /// Whether the edit moves the position (gives, changes or removes it). A moved position is
    /// the user's own: its source becomes `positionSource(new)`, an inferred one's confidence
    /// goes, and a store geotagging linked stays as the user's (no longer inferred).
    public static func movesPosition(old: Expense, new: Expense) -> Bool { old.location != new.location }

    /// The source of a position the user set by an edit: `manual`, or none without a position.
    public static func positionSource(_ new: Expense) -> PositionSource? { new.location == nil ? nil : .manual }
}
