import GeoSpend

/// Recurring rules with the file's rules (Sources/GeoSpendSpatiaLite/RecurringStorage.swift):
/// numbered per user and never reused; a run's expenses go in through the import's writer
/// (budget events included) in the edit that moves the rule, and only while the rule is still
/// due where the run found it.
extension MemoryStore: RecurringStore {
    public func addRecurring(userID: String, _ fields: RecurringFields) async throws -> RecurringRule? {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard state.users.contains(ExactText(user)) else { return nil }
            let now = MemoryClock.now()
            let rule = RecurringRule(
                id: state.nextNumber(.recurringRule, user: user), userID: user, fields: fields,
                nextDue: fields.firstDue(onOrAfter: fields.schedule.anchor), createdAt: now, updatedAt: now)
            state.recurring[ExactText(user), default: []].append(rule)
            return rule
        }
    }

    public func updateRecurring(userID: String, id: Int64, _ fields: RecurringFields, nextDue: LocalDay?) async throws -> RecurringRule? {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let at = state.recurring[user]?.firstIndex(where: { $0.id == id }) else { return nil }
            let old = state.recurring[user]![at]
            let rule = RecurringRule(id: id, userID: old.userID, fields: fields, nextDue: nextDue, createdAt: old.createdAt, updatedAt: MemoryClock.now())
            state.recurring[user]![at] = rule
            return rule
        }
    }

    public func deleteRecurring(userID: String, id: Int64) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let at = state.recurring[user]?.firstIndex(where: { $0.id == id }) else { return false }
            state.recurring[user]!.remove(at: at)
            if state.recurring[user]!.isEmpty { state.recurring[user] = nil }
            return true
        }
    }

    public func createOccurrences(
        userID: String, rule id: Int64, expectedNextDue: LocalDay, expenses: [Expense], nextDue: LocalDay?
    ) async throws -> [RowOutcome]? {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let at = state.recurring[user]?.firstIndex(where: { $0.id == id }), state.recurring[user]![at].nextDue == expectedNextDue
            else { return nil }
            let old = state.recurring[user]![at]
            state.recurring[user]![at] = RecurringRule(
                id: id, userID: old.userID, fields: old.fields, nextDue: nextDue, createdAt: old.createdAt, updatedAt: old.updatedAt)
            let writer = MemoryWriter(state: state)
            let outcomes = try writer.insert(expenses.map { HashedRow($0, contentHash: $0.contentHash) }, policy: InsertPolicy())
            for (e, outcome) in zip(expenses, outcomes) where !RecurringRun.accepts(outcome, id: e.id) {
                if case .rejected(let r) = outcome { throw r }
            }
            try writer.state.raiseBudgetEvents(writer.touched)
            state = writer.state
            return outcomes
        }
    }
}

extension MemoryState {
    /// `UserDataStore.restore`'s rules: numbers, days and times as exported, the counter after them.
    mutating func restoreRecurring(_ rules: [RestoredRecurringRule], user: String) throws {
        for r in rules {
            recurring[ExactText(user), default: []].append(try RecurringRows.rule(
                number: r.number, user: user, kind: r.kind.rawValue, amountMinor: r.amount.minorUnits, currency: r.amount.currency.code,
                title: r.title, category: r.category, merchant: r.merchant, storeID: r.storeID, notes: r.notes, every: r.every, anchor: r.from,
                until: r.until, nextDue: r.nextDue, createdAt: r.createdAt, updatedAt: r.updatedAt))
        }
        recurring[ExactText(user)]?.sort { $0.id < $1.id }
        if let last = rules.map(\.number).max() { lastNumbers[NumberKey(counter: .recurringRule, user: ExactText(user))] = last }
    }
}

extension MemoryReader {
    /// By id.
    func recurringRules(userID: String) throws -> [RecurringRule] { state.recurring[ExactText(Identity.normalized(userID))] ?? [] }

    /// By id (bytes).
    func usersWithRecurringDue(onOrBefore day: LocalDay) throws -> [String] {
        state.recurring.filter { $0.value.contains { $0.nextDue.map { $0 <= day } == true } }.keys.map(\.text).sorted(by: byBytes)
    }
}
