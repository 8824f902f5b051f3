/// The budget events an expense write raises (issue 39): for each active budget whose window
/// holds a day the write touched, the thresholds its spending in that window has reached (the
/// budget's own, `BudgetThresholds`; 80 % and 100 % by default), each
/// once per budget, window and threshold (`key`), so crossing 80 % twice in a month notifies
/// once. The stores call it inside the write's transaction, with the window's expenses as the
/// transaction sees them: the event commits with the expense or not at all.
///
/// A zone budget's event is `zone_budget.threshold`; the others `budget.threshold`. Both have the
/// figures of `budgets summary` for the window, as of its last day, and the seed's message.
public enum BudgetThresholdEvents {
    /// - Parameters:
    ///   - budgets: the user's budgets (inactive ones are skipped).
    ///   - days: the local days of the expenses the write added or changed (before and after).
    ///   - expenses: the user's expenses of kind `expense` on the days of a window.
    /// - Complexity: one `expenses` call per distinct window touched.
    public static func events(
        budgets: [Budget], days: Set<LocalDay>,
        expenses: (ClosedRange<LocalDay>) throws -> [BudgetExpense]
    ) rethrows -> [NewNotificationEvent] {
        var events: [NewNotificationEvent] = []
        for budget in budgets where budget.isActive {
            var windows = Set<LocalDay>()
            for day in days.sorted() where budget.covers(day) {
                let window = budget.window(asOf: day)
                guard windows.insert(window.lowerBound).inserted else { continue }
                let summary = BudgetSummary(budget: budget, asOf: window.upperBound, expenses: try expenses(window))
                for t in budget.thresholds where summary.wholePercentage >= t {
                    events.append(event(summary, threshold: t))
                }
            }
        }
        return events
    }

    static func event(_ s: BudgetSummary, threshold: Int64) -> NewNotificationEvent {
        let b = s.budget
        let c = b.amount.currency
        let payload = JSONOutput.object([
            ("budget_id", .integer(b.id)), ("budget_name", .string(b.name)), ("threshold", .integer(threshold)),
            ("level", .string(threshold >= 100 ? "exceeded" : "warning")),
            ("percentage_used", BudgetJSON.percentage(s.percentageHundredths)),
            ("spent", .string(Money.decimalString(s.spentMinor, digits: c.minorDigits))),
            ("amount", .string(b.amount.decimalString)), ("currency", .string(c.code)),
            ("from", .string("\(s.window.lowerBound)")), ("to", .string("\(s.window.upperBound)")),
            ("zone", .bool(b.zone != nil)),
            ("message", .string("You've used \(s.wholePercentage)% of your \(b.name) budget")),
        ])
        return NewNotificationEvent(
            userID: b.userID, type: b.zone == nil ? NotificationType.budgetThreshold : NotificationType.zoneBudgetThreshold,
            key: "budget:\(b.id):\(s.window.lowerBound):\(threshold)", payload: payload)
    }
}

/// The users and local days an expense write touched (kind `expense` only: income and
/// transfers count in no budget), collected by the stores' writers.
public struct TouchedDays: Sendable {
    /// Local dates as stored (`YYYY-MM-DD`) per user: a set insert per imported row, parsed once.
    private var dates: [String: Set<String>] = [:]

    public init() {}

    public var isEmpty: Bool { dates.isEmpty }

    /// The days per user (dates that do not parse are left out: they count in no budget).
    public var byUser: [String: Set<LocalDay>] {
        dates.mapValues { Set($0.compactMap { try? LocalDay(parsing: $0) }) }
    }

    /// Expenses inserted per user (any kind): an import's `import.finished` counts.
    public private(set) var insertedByUser: [String: Int] = [:]

    public mutating func add(_ expense: Expense) {
        guard expense.kind == .expense else { return }
        dates[expense.userID, default: []].insert(expense.occurredAt.localDate)
    }

    /// An expense a write inserted: its day (kind `expense`) and the user's count.
    public mutating func addInserted(_ expense: Expense) {
        insertedByUser[expense.userID, default: 0] += 1
        add(expense)
    }

    /// `import.finished` for each user the import inserted expenses for, with the count; each
    /// import its own key, so each is raised once.
    public var importEvents: [NewNotificationEvent] {
        insertedByUser.sorted { $0.key < $1.key }.map { user, count in
            NewNotificationEvent(
                userID: user, type: NotificationType.importFinished, key: "import:\(NotificationEvent.newID())",
                payload: .object([("inserted", .integer(Int64(count)))]))
        }
    }

    /// An expense of kind `expense` of `userID` on `localDate` (`YYYY-MM-DD`), as a store read it.
    public mutating func add(userID: String, localDate: String) {
        dates[userID, default: []].insert(localDate)
    }
}
