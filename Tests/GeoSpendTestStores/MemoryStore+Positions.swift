import GeoSpend

/// A fix's key in the file's `positions` (user aside): the same fix imported again is the same row.
struct MemoryPositionKey: Hashable {
    let t: Int64
    let latitude: Double
    let longitude: Double
    let source: String

    init(_ p: Position) {
        (t, latitude, longitude, source) = (p.epochMilliseconds, p.coordinate.latitude, p.coordinate.longitude, p.source.rawValue)
    }

    /// The key's order, as the file's `WITHOUT ROWID` table reads: time, then position, then source.
    static func < (a: Self, b: Self) -> Bool {
        if a.t != b.t { return a.t < b.t }
        if a.latitude != b.latitude { return a.latitude < b.latitude }
        if a.longitude != b.longitude { return a.longitude < b.longitude }
        return byBytes(a.source, b.source)
    }
}

/// A recorded visit's key in the file's `visits` (user aside).
struct MemoryVisitKey: Hashable {
    let start: Int64
    let end: Int64
    let latitude: Double
    let longitude: Double
    let source: String

    init(_ v: Visit, source: LocationHistoryFormat) {
        (start, end, latitude, longitude, self.source) = (
            v.startEpochMilliseconds, v.endEpochMilliseconds, v.centre.latitude, v.centre.longitude, source.rawValue
        )
    }

    static func < (a: Self, b: Self) -> Bool {
        if a.start != b.start { return a.start < b.start }
        if a.end != b.end { return a.end < b.end }
        if a.latitude != b.latitude { return a.latitude < b.latitude }
        if a.longitude != b.longitude { return a.longitude < b.longitude }
        return byBytes(a.source, b.source)
    }
}

/// Location history and placing expenses, with the file's rules
/// (Sources/GeoSpendSpatiaLite/PositionStorage.swift): a placement raises its budget and geotag
/// events in its own edit.
extension MemoryStore: PositionStore {
    public func addLocationHistory(_ history: LocationHistory, userID: String) async throws -> PositionImportCount {
        let user = Identity.normalized(userID)
        return try await edit { state in
            state.ensureUser(user)
            var count = PositionImportCount()
            for p in history.positions {
                let key = MemoryPositionKey(p)
                if state.positions[ExactText(user), default: [:]][key] == nil {
                    state.positions[ExactText(user), default: [:]][key] = p
                    count.positionsAdded += 1
                } else {
                    count.positionsUnchanged += 1  // the same key: the first stays (ON CONFLICT DO NOTHING)
                }
            }
            for v in history.visits {
                guard let source = v.source else { continue }  // detected: found again from the fixes
                let key = MemoryVisitKey(v, source: source)
                if state.visits[ExactText(user), default: [:]][key] == nil {
                    state.visits[ExactText(user), default: [:]][key] = v
                    count.visitsAdded += 1
                } else {
                    count.visitsUnchanged += 1
                }
            }
            return count
        }
    }

    public func deletePositions(userID: String, before: Int64?) async throws -> PositionDeletion {
        let user = ExactText(Identity.normalized(userID))
        let upper = before ?? .max
        return try await edit { state in
            let positions = state.positions[user] ?? [:], visits = state.visits[user] ?? [:]
            state.positions[user] = positions.filter { $0.key.t >= upper }
            state.visits[user] = visits.filter { $0.key.start >= upper }
            return PositionDeletion(
                positions: positions.count - state.positions[user]!.count, visits: visits.count - state.visits[user]!.count)
        }
    }

    /// Places the user's expenses that have no position yet; a store named and known is linked
    /// when the expense has none (inferred when geotagging inferred the position).
    public func place(_ placements: [ExpensePlacement], userID: String, events: [NewNotificationEvent]) async throws -> [Bool] {
        let user = Identity.normalized(userID)
        return try await edit { state in
            var touched = TouchedDays()
            let placed = placements.map { p in
                guard let at = state.expenseIndex[MemoryState.ExpenseKey(user, p.expenseID)], state.expenses[at].expense.location == nil else {
                    return false
                }
                state.expenses[at].expense.location = p.location
                state.expenses[at].positionSource = p.source
                state.expenses[at].positionConfidence = p.confidence
                if state.expenses[at].expense.storeID == nil, let store = p.storeID, state.stores[ExactText(store)] != nil {
                    state.expenses[at].expense.storeID = store
                    state.expenses[at].storeInferred = p.source.isInferred
                }
                state.extendBox(p.location.coordinate)
                touched.add(state.expenses[at].expense)
                return true
            }
            // A placement into a zone budget's area can cross it; the caller's events too.
            try state.raiseBudgetEvents(touched)
            _ = state.raise(events)
            return placed
        }
    }

    /// Takes back inferred positions (and the store links geotagging made), in id order.
    public func unplace(userID: String, expenseID: String?) async throws -> [String] {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            let rows = state.expenses.indices.filter { at in
                let row = state.expenses[at]
                return ExactText(row.expense.userID) == user && (expenseID == nil || ExactText(row.expense.id) == ExactText(expenseID!))
                    && row.positionSource?.isInferred == true
            }.sorted { byBytes(state.expenses[$0].expense.id, state.expenses[$1].expense.id) }
            for at in rows {
                state.expenses[at].expense.location = nil
                state.expenses[at].positionSource = nil
                state.expenses[at].positionConfidence = nil
                if state.expenses[at].storeInferred { state.expenses[at].expense.storeID = nil }
                state.expenses[at].storeInferred = false
            }
            state.recomputeBox()
            return rows.map { state.expenses[$0].expense.id }
        }
    }
}

extension MemoryState {
    /// The user's fixes in `[from, to)` in the key's (time) order, and recorded visits
    /// overlapping it, by key (start first).
    func history(user: String, from: Int64?, to: Int64?) -> LocationHistory {
        let lower = from ?? .min, upper = to ?? .max
        let fixes = (positions[ExactText(user)] ?? [:]).filter { $0.key.t >= lower && $0.key.t < upper }.sorted { $0.key < $1.key }
        let stays = (visits[ExactText(user)] ?? [:])
            .filter { $0.value.endEpochMilliseconds > lower && $0.value.startEpochMilliseconds < upper }.sorted { $0.key < $1.key }
        return LocationHistory(positions: fixes.map(\.value), visits: stays.map(\.value))
    }
}

extension MemoryReader {
    func locationHistory(userID: String, from: Int64?, to: Int64?) throws -> LocationHistory {
        state.history(user: Identity.normalized(userID), from: from, to: to)
    }

    /// The history and the user's expenses by id (bytes), as the backends give them.
    func geotagInput(userID: String, from: Int64?, to: Int64?) throws -> GeotagInput {
        let user = Identity.normalized(userID)
        let expenses = state.expenses.map(\.expense).filter { ExactText($0.userID) == ExactText(user) }.sorted { byBytes($0.id, $1.id) }
        return GeotagInput(history: state.history(user: user, from: from, to: to), expenses: expenses)
    }
}
