/// Recurring rules (issue 38) and the expenses they create. The store keeps rules and writes
/// what `RecurringRun` computed; it computes no day itself. Every call is scoped to one user:
/// another user's rule is "none", like a missing one.
public protocol RecurringStore: Sendable {
    /// Adds a rule to an existing user, first due on `fields.schedule.anchor`.
    /// - Returns: nil when there is no such user.
    func addRecurring(userID: String, _ fields: RecurringFields) async throws -> RecurringRule?

    /// The user's rules, by id.
    func recurringRules(userID: String) async throws -> [RecurringRule]

    /// Replaces the rule's fields and its next due day; nil when the user has no such rule.
    /// The expenses it created stay as they are.
    func updateRecurring(userID: String, id: Int64, _ fields: RecurringFields, nextDue: LocalDay?) async throws -> RecurringRule?

    /// The users with a rule due on or before `day` (`next_due <= day`), by id: the scheduler's
    /// question, answered from the rules alone.
    func usersWithRecurringDue(onOrBefore day: LocalDay) async throws -> [String]

    /// Deletes the rule; the expenses it created stay. - Returns: false when there is none.
    func deleteRecurring(userID: String, id: Int64) async throws -> Bool

    /// In one transaction: inserts `expenses` as an import inserts them (an id already stored is
    /// left as it is) and moves the rule's next due day from `expectedNextDue` to `nextDue`.
    /// - Returns: each expense's outcome, or nil when the rule's next due day is no longer
    ///   `expectedNextDue` (another run got there first, or the rule was edited or deleted):
    ///   then nothing is written.
    func createOccurrences(
        userID: String, rule id: Int64, expectedNextDue: LocalDay, expenses: [Expense], nextDue: LocalDay?
    ) async throws -> [RowOutcome]?
}

/// Recurring rules as a read scope hands them out (every `ExpenseReader` is one), in the
/// scope's snapshot. A store that keeps none finds none.
public protocol RecurringReader {
    /// `RecurringStore.recurringRules(userID:)`, in the scope's snapshot.
    func recurringRules(userID: String) throws -> [RecurringRule]
    /// `RecurringStore.usersWithRecurringDue(onOrBefore:)`, in the scope's snapshot.
    func usersWithRecurringDue(onOrBefore day: LocalDay) throws -> [String]
}

/// A backend's rule reads are its read scope's (written once, in its reader).
extension RecurringStore where Self: ExpenseStore {
    public func recurringRules(userID: String) async throws -> [RecurringRule] {
        try await read { try $0.recurringRules(userID: userID) }
    }

    public func usersWithRecurringDue(onOrBefore day: LocalDay) async throws -> [String] {
        try await read { try $0.usersWithRecurringDue(onOrBefore: day) }
    }
}

extension RecurringStore {
    /// One of the user's rules, or nil.
    public func recurringRule(userID: String, id: Int64) async throws -> RecurringRule? {
        try await recurringRules(userID: userID).first { $0.id == id }
    }
}
