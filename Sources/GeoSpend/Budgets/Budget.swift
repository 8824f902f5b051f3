/// A spending limit of one user over local days `from` through `to` (both included), in one
/// currency, optionally for one category and/or one zone (Phase 3 budgets, MONO, and budgets
/// for a place). With `every`, `amount` is the limit of each calendar week (Monday first),
/// month or year between `from` and `to`.
public struct Budget: Sendable, Hashable {
    public enum Recurrence: String, Sendable, CaseIterable { case week, month, year }

    /// A per-category limit inside the budget (`--category-limit Food=200.00`).
    public struct CategoryLimit: Sendable, Hashable {
        public let category: String
        public let amount: Money
        public init(category: String, amount: Money) {
            self.category = category
            self.amount = amount
        }
    }

    /// Assigned by the store; 0 before it is saved.
    public var id: Int64
    public var userID: String
    public var name: String
    public var amount: Money
    public var from: LocalDay
    public var to: LocalDay
    public var category: String?
    public var every: Recurrence?
    public var categoryLimits: [CategoryLimit]
    public var zone: BudgetZone?
    public var isActive: Bool
    /// Percentages of `amount` whose crossing raises an event (`BudgetThresholds`), sorted.
    public var thresholds: [Int64]
    /// When it was added, `YYYY-MM-DDTHH:MM:SSZ` (set by the store).
    public var createdAt: String

    public init(
        id: Int64 = 0, userID: String, name: String, amount: Money, from: LocalDay, to: LocalDay, category: String? = nil,
        every: Recurrence? = nil, categoryLimits: [CategoryLimit] = [], zone: BudgetZone? = nil, isActive: Bool = true,
        createdAt: String = "", thresholds: [Int64] = BudgetThresholds.default
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.amount = amount
        self.from = from
        self.to = to
        self.category = category
        self.every = every
        self.categoryLimits = categoryLimits
        self.zone = zone
        self.isActive = isActive
        self.createdAt = createdAt
        self.thresholds = thresholds
    }

    /// Whether `day` is one of the budget's days, `from` through `to`: the budgets that
    /// `budgets alerts` and `insights` show on an as-of day (one rule for both).
    public func covers(_ day: LocalDay) -> Bool { from <= day && day <= to }

    /// The days whose spending is measured against `amount` on `asOf`: `from…to`, or for a
    /// recurring budget the calendar week/month/year holding `asOf` (held to `from…to`, and to
    /// its first or last window when `asOf` is before or after them), cut to `from…to`.
    public func window(asOf: LocalDay) -> ClosedRange<LocalDay> {
        guard let every else { return from...to }
        let day = min(max(asOf, from), to)
        let start: LocalDay, end: LocalDay
        switch every {
        case .week:
            start = day.adding(days: -Int64(day.weekdayFromMonday))
            end = start.adding(days: 6)
        case .month:
            let c = day.civil
            start = LocalDay(dayNumber: Timestamp.daysFromCivil(year: c.year, month: c.month, day: 1))
            end = LocalDay(dayNumber: Timestamp.daysFromCivil(year: c.year, month: c.month, day: Timestamp.daysIn(month: c.month, year: c.year)))
        case .year:
            let y = day.civil.year
            start = LocalDay(dayNumber: Timestamp.daysFromCivil(year: y, month: 1, day: 1))
            end = LocalDay(dayNumber: Timestamp.daysFromCivil(year: y, month: 12, day: 31))
        }
        return max(start, from)...min(end, to)
    }
}
