/// The expiry reminder (seed 000 L734–789): raised `leadDays` (2) days before an open item
/// expires, with the seed's title and body, as a `pantry.expiring` notification event, once per
/// item and expiry day (a changed expiry day would notify again).
///
/// Due on the first run whose day (`notifications run --as-of`'s local day; the scheduler's
/// now in UTC) is on or after the reminder day and before the expiry day: a run missed on
/// the reminder day catches up the next day, and an item already expired raises nothing. The
/// body keeps the seed's fixed "in 2 days" even on such a catch-up day.
public enum PantryExpiry {
    public static let leadDays: Int64 = 2
    public static let title = "Item Expiring Soon"

    public static func body(_ name: String) -> String {
        "\(name) will expire in 2 days. Use it soon to avoid waste!"
    }

    /// Whether `item`'s reminder is due on `day`.
    public static func isDue(_ item: PantryItem, on day: LocalDay) -> Bool {
        guard item.status == .open, let expires = item.expires, let reminder = item.reminderDay else { return false }
        return reminder <= day && day < expires
    }

    /// The event for `item` (its reminder due).
    public static func event(_ item: PantryItem) -> NewNotificationEvent {
        NewNotificationEvent(
            userID: item.userID, type: NotificationType.pantryExpiring, key: "pantry:\(item.id):\(item.expires?.description ?? "")",
            payload: .object([
                ("pantry_item_id", .integer(item.id)), ("name", .string(item.name)),
                ("expires", item.expires.map { .string($0.description) } ?? .null),
                ("title", .string(title)), ("body", .string(body(item.name))),
            ]))
    }
}
