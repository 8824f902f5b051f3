/// A recurring transaction (issue 38; the budget seed's rent, salary and subscriptions): the
/// expense it creates, how often, from which day and until which day. Ids are numbered per
/// user (1, 2, 3 …, never reused), as periods' and budgets' are.
public struct RecurringRule: Sendable, Hashable {
    public let id: Int64
    public let userID: String
    public let fields: RecurringFields
    /// The first day not yet created; nil when the rule has ended (past `fields.until`).
    public let nextDue: LocalDay?
    /// `YYYY-MM-DDTHH:MM:SS.sssZ`.
    public let createdAt: String
    public let updatedAt: String

    public init(id: Int64, userID: String, fields: RecurringFields, nextDue: LocalDay?, createdAt: String, updatedAt: String) {
        self.id = id
        self.userID = userID
        self.fields = fields
        self.nextDue = nextDue
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The id of the expense created for `day`: `recurring-<rule>-<YYYY-MM-DD>`. The same day of
    /// the same rule always has the same id, so running twice cannot create it twice.
    public func expenseID(on day: LocalDay) -> String { "recurring-\(id)-\(day)" }
}

/// What a user gives for a recurring rule, checked.
public struct RecurringFields: Sendable, Hashable {
    /// The expense each occurrence creates: everything but its id, user and day.
    public let kind: ExpenseKind
    public let amount: Money
    public let title: String?
    public let category: String?
    public let merchant: String?
    public let storeID: String?
    public let notes: String?
    public let schedule: RecurringSchedule
    /// The last day an occurrence may fall on, inclusive; nil: no end.
    public let until: LocalDay?

    /// The earliest and latest first day: a rule from the year 1 would create two thousand
    /// years of rent in one run.
    public static let earliest = LocalDay(dayNumber: Timestamp.daysFromCivil(year: 1970, month: 1, day: 1))
    public static let latest = LocalDay(dayNumber: Timestamp.daysFromCivil(year: 9999, month: 12, day: 31))

    /// - Throws: `ValueError` naming the option at fault and how to fix it.
    public init(
        kind: ExpenseKind, amount: Money, title: String?, category: String?, merchant: String?, storeID: String?, notes: String?,
        schedule: RecurringSchedule, until: LocalDay?
    ) throws(ValueError) {
        guard schedule.anchor >= Self.earliest, schedule.anchor <= Self.latest else {
            throw .invalidDate(schedule.anchor.description, reason: "(--from) is outside 1970-01-01…9999-12-31")
        }
        if let until, until < schedule.anchor {
            throw .invalidDate(until.description, reason: "(--until) is before --from \(schedule.anchor): the last day comes after the first; swap them")
        }
        self.kind = kind
        self.amount = amount
        self.title = title
        self.category = category
        self.merchant = merchant
        self.storeID = storeID
        self.notes = notes
        self.schedule = schedule
        self.until = until
    }

    /// The expense of occurrence `day` for rule `id` of `userID`: a bare date, as `expenses add
    /// --at 2025-03-25` stores one.
    public func expense(id: String, userID: String, on day: LocalDay) -> Expense {
        Expense(
            id: id, userID: userID, kind: kind, amount: amount, occurredAt: Timestamp(localDay: day.dayNumber), title: title,
            category: category, merchant: merchant, location: nil, storeID: storeID, notes: notes)
    }

    /// The first occurrence on or after `day` that is not past `until`, or nil.
    public func firstDue(onOrAfter day: LocalDay) -> LocalDay? {
        let next = schedule.occurrence(schedule.firstIndex(onOrAfter: day))
        if let until, next > until { return nil }
        return next
    }
}
