/// `geospend budgets summary`: a budget's figures on an as-of day.
///
/// Every money figure is computed exactly from integer minor units and rounded once, half away
/// from zero, to the currency's minor unit: `daily_average` = spent / max(1, days_passed) and
/// `projected_total` = spent × total_days / max(1, days_passed) (the exact daily average times
/// the days, not the rounded one). `percentage_used` is spent × 100 / amount rounded the same way
/// to hundredths; `on_track` compares the exact projection with the amount.
public struct BudgetSummary: Sendable {
    public struct CategoryLine: Sendable, Hashable {
        /// nil: expenses without a category.
        public let category: String?
        public let spentMinor: Int64
        public let limit: Money?
        /// Spent / limit × 100 in hundredths; nil without a limit.
        public let percentageHundredths: Int64?
    }

    public let budget: Budget
    public let asOf: LocalDay
    /// The days measured: `from…to`, or the recurring budget's window holding `asOf`.
    public let window: ClosedRange<LocalDay>
    public let spentMinor: Int64
    public let count: Int
    public var remainingMinor: Int64 { budget.amount.minorUnits - spentMinor }
    /// spent × 100 / amount in hundredths, rounded half away from zero.
    public let percentageHundredths: Int64
    /// ⌊spent × 100 / amount⌋: the seed's whole percentage (alerts' message and levels).
    public let wholePercentage: Int64
    public let byCategory: [CategoryLine]
    public let totalDays: Int64
    public let daysPassed: Int64
    public var daysRemaining: Int64 { totalDays - daysPassed }
    public let dailyAverageMinor: Int64
    public let projectedTotalMinor: Int64
    public let onTrack: Bool
    /// Expenses in scope but of another currency: not counted (no conversion), per currency.
    public let notCounted: [MoneyTotal]

    /// Reads `expenses` (the user's expenses of kind `expense`, any currency, at least those on
    /// the window's days) once.
    public init(budget: Budget, asOf: LocalDay, expenses: some Sequence<BudgetExpense>) {
        let window = budget.window(asOf: asOf)
        let counted = window.lowerBound...max(window.lowerBound, min(asOf, window.upperBound))
        let zone = budget.zone.map(BudgetZone.Matcher.init)
        var spent: Int64 = 0, count = 0
        var perCategory: [String: (name: String?, minor: Int64)] = [:]
        var others = MoneyTotals()
        for e in expenses where asOf >= window.lowerBound && BudgetRules.inScope(e, of: budget, days: counted, zone: zone) {
            guard e.currency == budget.amount.currency.code else {
                if let c = try? Currency(code: e.currency) { others.add(Money(minorUnits: e.amountMinor, currency: c)) }
                continue
            }
            spent += e.amountMinor
            count += 1
            let key = e.category.map(Identity.asciiLowercased) ?? ""
            perCategory[key, default: (e.category, 0)].minor += e.amountMinor
        }
        for limit in budget.categoryLimits where perCategory[Identity.asciiLowercased(limit.category)] == nil {
            perCategory[Identity.asciiLowercased(limit.category)] = (limit.category, 0)
        }
        let limits = Dictionary(budget.categoryLimits.map { (Identity.asciiLowercased($0.category), $0.amount) }, uniquingKeysWith: { a, _ in a })
        byCategory = perCategory.sorted { ($0.key.isEmpty ? 1 : 0, $0.key) < ($1.key.isEmpty ? 1 : 0, $1.key) }.map { key, value in
            let limit = key.isEmpty ? nil : limits[key]
            return CategoryLine(
                category: value.name, spentMinor: value.minor, limit: limit,
                percentageHundredths: limit.map { Exact.rounded(value.minor, times: 10_000, over: $0.minorUnits) })
        }

        let amount = budget.amount.minorUnits
        let totalDays = window.upperBound.dayNumber - window.lowerBound.dayNumber + 1
        let daysPassed = min(totalDays, max(0, asOf.dayNumber - window.lowerBound.dayNumber + 1))
        let divisor = max(1, daysPassed)
        self.budget = budget
        self.asOf = asOf
        self.window = window
        self.spentMinor = spent
        self.count = count
        self.percentageHundredths = Exact.rounded(spent, times: 10_000, over: amount)
        self.wholePercentage = Exact.truncated(spent, times: 100, over: amount)
        self.totalDays = totalDays
        self.daysPassed = daysPassed
        self.dailyAverageMinor = Exact.rounded(spent, times: 1, over: divisor)
        self.projectedTotalMinor = Exact.rounded(spent, times: totalDays, over: divisor)
        self.onTrack = !Exact.greater(spent, totalDays, than: amount, divisor)
        self.notCounted = others.totals
    }
}
