/// Pantry items (issue 38): what a user bought and keeps, with an expiry day. Every call is
/// scoped to one user except `openPantryItems(expiringOnOrBefore:)`, the scheduler's question;
/// another user's item is "none", like a missing one.
public protocol PantryStore: Sendable {
    /// Adds an open item to an existing user. - Returns: nil when there is no such user.
    func addPantryItem(userID: String, _ fields: PantryFields) async throws -> PantryItem?

    /// The user's items, by id.
    func pantryItems(userID: String) async throws -> [PantryItem]

    /// Closes an open item as used or discarded, at the store's now.
    /// - Returns: the item; nil when the user has no such item. A closed item stays as it was.
    func closePantryItem(userID: String, id: Int64, as status: PantryItem.Status) async throws -> PantryItem?

    /// Every user's open items that expire on or before `day`, by user then id.
    func openPantryItems(expiringOnOrBefore day: LocalDay) async throws -> [PantryItem]
}

/// Pantry items as a read scope hands them out (every `ExpenseReader` is one). A store that
/// keeps none finds none.
public protocol PantryReader {
    /// `PantryStore.pantryItems(userID:)`, in the scope's snapshot.
    func pantryItems(userID: String) throws -> [PantryItem]
    /// `PantryStore.openPantryItems(expiringOnOrBefore:)`, in the scope's snapshot.
    func openPantryItems(expiringOnOrBefore day: LocalDay) throws -> [PantryItem]
}

/// A backend's pantry reads are its read scope's (written once, in its reader).
extension PantryStore where Self: ExpenseStore {
    public func pantryItems(userID: String) async throws -> [PantryItem] { try await read { try $0.pantryItems(userID: userID) } }
    public func openPantryItems(expiringOnOrBefore day: LocalDay) async throws -> [PantryItem] {
        try await read { try $0.openPantryItems(expiringOnOrBefore: day) }
    }
}

/// The time-driven pantry events `NotificationRun` raises: expiry reminders and purchase
/// predictions (each once per key, `NotificationStore.raise`).
public enum PantryReminders {
    /// The events due on `asOf`'s local day (its recorded offset's; UTC for the scheduler);
    /// the purchase predictions only when `predictions`.
    public static func due(in store: some PantryStore & PriceStore, asOf: Timestamp, predictions: Bool = true) async throws -> [NewNotificationEvent] {
        let day = try LocalDay(parsing: asOf.localDate)
        var events: [NewNotificationEvent] = []
        for item in try await store.openPantryItems(expiringOnOrBefore: day.adding(days: PantryExpiry.leadDays))
        where PantryExpiry.isDue(item, on: day) {
            events.append(PantryExpiry.event(item))
        }
        guard predictions else { return events }
        // Predictions: every user's own records, one query (a user's records, the others' none).
        var query = PriceQuery(to: day)
        query.eachUsersAddedStores = true  // each user's predictions from their own records alone
        let records = try await store.priceRecords(query)
        var byUser: [String: [PriceRecord]] = [:]
        for r in records { byUser[r.userID, default: []].append(r) }
        for (user, rs) in byUser.sorted(by: { $0.key < $1.key }) {
            for p in PurchasePrediction.predictions(rs, asOf: day) where p.isDue(on: day) {
                events.append(p.event(userID: user))
            }
        }
        return events
    }
}
