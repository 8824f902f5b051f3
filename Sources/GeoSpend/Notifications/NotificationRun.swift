/// The time-driven events (issue 39): what passing time makes due, raised once each. The
/// service's scheduler runs it every minute; cron users of the CLI run `geospend notifications
/// run [--as-of]`. Expense reminders due (`expenses add --remind-at`), one event per expense and
/// reminder time, so a reminder moved later notifies again; with a lead time (`notifications
/// settings --reminder-lead-minutes`) that many minutes before it. Then the pantry's expiry
/// reminders and purchase predictions (`PantryReminders`).
public enum NotificationRun {
    /// Raises the events due at `asOf` for every user. `predictions: false` leaves out the
    /// purchase predictions, which read every user's price records: the scheduler computes
    /// them once an hour (`PurchasePrediction.catchUpDays` covers the gap), cron runs each time.
    /// - Returns: the events raised now.
    public static func raiseDue(
        in store: some NotificationStore & PantryStore & PriceStore, asOf: Timestamp, predictions: Bool = true
    ) async throws -> [NotificationEvent] {
        var events: [NewNotificationEvent] = []
        for due in try await store.remindersDue(asOf: asOf) {
            guard let remindAt = due.remindAt else { continue }
            events.append(reminder(due, at: remindAt))
        }
        events += try await PantryReminders.due(in: store, asOf: asOf, predictions: predictions)
        guard !events.isEmpty else { return [] }
        return try await store.raise(events)
    }

    static func reminder(_ s: StoredExpense, at remindAt: Timestamp) -> NewNotificationEvent {
        let e = s.expense
        return NewNotificationEvent(
            userID: e.userID, type: NotificationType.reminderDue, key: "reminder:\(e.id):\(remindAt.text)",
            payload: .object([
                ("expense_id", .string(e.id)), ("title", e.title.map(JSONOutput.string) ?? .null),
                ("amount", .string(e.amount.decimalString)), ("currency", .string(e.amount.currency.code)),
                ("occurred_at", .string(e.occurredAt.text)), ("remind_at", .string(remindAt.text)),
            ]))
    }
}
