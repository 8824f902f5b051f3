/// `geotag confirm` (CLI) and `POST /api/v1/geotag/confirm` (HTTP): the user settles one
/// expense, at a store of the registry (`store`) or at a position they give (`manual`). Both
/// say the outcome in their own words; the decision is made here once.
public enum GeotagConfirmation {
    /// Where the user says the money was spent.
    public enum Place: Sendable, Hashable {
        case store(String)
        case position(Coordinate)
    }

    /// What the confirmation did.
    public enum Outcome: Sendable {
        /// Placed; the expense as stored now.
        case placed(StoredExpense)
        /// The registry has no such store; nothing written.
        case noStore(String)
        /// The user has no such expense; nothing written.
        case noExpense
        /// The expense already has a position (kept; `geotag undo` takes back an inferred one).
        case alreadyPlaced(StoredExpense)
    }

    /// Places expense `id` of `userID` at `place`, unless it has a position already.
    public static func confirm(
        id: String, userID: String, at place: Place, in store: any ExpenseStore & ExpenseEditing & PositionStore
    ) async throws -> Outcome {
        let user = Identity.normalized(userID)
        let placement: ExpensePlacement
        switch place {
        case .store(let storeID):
            guard let found = try await store.read({ try $0.stores(withIDs: [storeID]) })[storeID] else { return .noStore(storeID) }
            placement = ExpensePlacement(
                expenseID: id, location: ExpenseLocation(coordinate: found.coordinate), storeID: storeID, source: .store, confidence: nil)
        case .position(let coordinate):
            placement = ExpensePlacement(expenseID: id, location: ExpenseLocation(coordinate: coordinate), storeID: nil, source: .manual, confidence: nil)
        }
        let placed = try await store.place([placement], userID: user)[0]
        guard let stored = try await store.expense(id: id, userID: user) else { return .noExpense }
        return placed ? .placed(stored) : .alreadyPlaced(stored)
    }
}
