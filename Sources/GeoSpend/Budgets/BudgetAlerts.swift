/// `geospend budgets alerts`: the active budgets covering the as-of day that are at or over
/// 80 % (Phase 3's alerts): `warning` from 80 %, `exceeded` from 100 %, and the seed's message
/// "You've used 85% of your Groceries budget", the percentage truncated to a whole number.
/// Levels compare the exact spent × 100 / amount with 80 and 100, so 79.996 % is no warning
/// even though its two-decimal figure reads 80.00.
public struct BudgetAlert: Sendable {
    public enum Level: String, Sendable { case warning, exceeded }

    public let summary: BudgetSummary
    public let level: Level
    public var message: String { "You've used \(summary.wholePercentage)% of your \(summary.budget.name) budget" }

    /// The alerts among `summaries`, in their order.
    public static func alerts(_ summaries: [BudgetSummary]) -> [BudgetAlert] {
        summaries.compactMap { s in
            guard s.budget.isActive, s.budget.covers(s.asOf), s.wholePercentage >= 80 else { return nil }
            return BudgetAlert(summary: s, level: s.wholePercentage >= 100 ? .exceeded : .warning)
        }
    }
}
