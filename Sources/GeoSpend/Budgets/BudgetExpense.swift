/// One expense as budgets read it: what the rules look at and nothing else.
public struct BudgetExpense: Sendable, Hashable {
    public let amountMinor: Int64
    public let currency: String
    public let day: LocalDay
    public let category: String?
    public let coordinate: Coordinate?

    public init(amountMinor: Int64, currency: String, day: LocalDay, category: String?, coordinate: Coordinate?) {
        self.amountMinor = amountMinor
        self.currency = currency
        self.day = day
        self.category = category
        self.coordinate = coordinate
    }
}
