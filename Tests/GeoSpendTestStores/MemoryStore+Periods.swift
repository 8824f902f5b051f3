import GeoSpend

/// A user's period, as the file's `periods` row keeps it.
struct MemoryPeriod {
    let id: Int64
    var name: String
    var start: String
    var end: String?
    let createdAt: String
    var updatedAt: String
}

/// Periods with the file's rules (Sources/GeoSpendSpatiaLite/Periods.swift): numbered per user,
/// a deleted period's number never given again, one period per expense.
extension MemoryStore: PeriodStore {
    public func addPeriod(userID: String, _ fields: PeriodFields) async throws -> Period {
        let user = Identity.normalized(userID)
        return try await edit { state in
            try state.requireUser(user)
            let now = MemoryClock.now()
            let period = MemoryPeriod(
                id: state.nextNumber(.period, user: user), name: fields.name, start: fields.start.localDate, end: fields.end?.localDate,
                createdAt: now, updatedAt: now)
            state.periods[ExactText(user), default: []].append(period)
            return state.period(period, of: user)
        }
    }

    public func updatePeriod(userID: String, id: Int64, _ fields: PeriodFields) async throws -> Period? {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard let at = state.periods[ExactText(user)]?.firstIndex(where: { $0.id == id }) else { return nil }
            state.periods[ExactText(user)]![at].name = fields.name
            state.periods[ExactText(user)]![at].start = fields.start.localDate
            state.periods[ExactText(user)]![at].end = fields.end?.localDate
            state.periods[ExactText(user)]![at].updatedAt = MemoryClock.now()
            return state.period(state.periods[ExactText(user)]![at], of: user)
        }
    }

    /// The period's expenses are unlinked (the file's `ON DELETE SET NULL`).
    public func deletePeriod(userID: String, id: Int64) async throws -> Int? {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard let at = state.periods[ExactText(user)]?.firstIndex(where: { $0.id == id }) else { return nil }
            state.periods[ExactText(user)]!.remove(at: at)
            let linked = state.expenses.indices.filter { state.expenses[$0].period == id && ExactText(state.expenses[$0].expense.userID) == ExactText(user) }
            for i in linked { state.expenses[i].period = nil }
            return linked.count
        }
    }

    public func assign(userID: String, period: Int64?, expenseIDs: [String]) async throws -> PeriodAssignment {
        let user = Identity.normalized(userID)
        let ids = expenseIDs.map(Identity.normalized)
        return try await edit { state in
            if let period, state.periods[ExactText(user)]?.contains(where: { $0.id == period }) != true { return .noSuchPeriod }
            // Another user's expense is reported exactly like one that does not exist.
            let unknown = ids.filter { state.expenseIndex[MemoryState.ExpenseKey(user, $0)] == nil }
            guard unknown.isEmpty else { return .unknownExpenses(unknown) }
            var changed = 0, moved = 0
            for id in Set(ids.map(ExactText.init)) {
                let at = state.expenseIndex[MemoryState.ExpenseKey(user, id.text)]!
                let old = state.expenses[at].period
                guard old != period else { continue }
                state.expenses[at].period = period
                changed += 1
                if old != nil && period != nil { moved += 1 }
            }
            return .done(changed: changed, moved: moved)
        }
    }
}

extension MemoryState {
    func period(_ p: MemoryPeriod, of user: String) -> Period {
        let count = expenses.count { $0.period == p.id && ExactText($0.expense.userID) == ExactText(user) }
        return Period(id: p.id, userID: user, name: p.name, start: p.start, end: p.end, expenses: count, createdAt: p.createdAt, updatedAt: p.updatedAt)
    }

    /// The user's periods by id.
    func periods(of user: String) -> [Period] {
        (periods[ExactText(user)] ?? []).sorted { $0.id < $1.id }.map { period($0, of: user) }
    }
}

extension MemoryReader {
    func periods(userID: String) throws -> [Period] { state.periods(of: Identity.normalized(userID)) }

    func period(userID: String, id: Int64) throws -> Period? {
        let user = Identity.normalized(userID)
        return state.periods[ExactText(user)]?.first { $0.id == id }.map { state.period($0, of: user) }
    }
}
