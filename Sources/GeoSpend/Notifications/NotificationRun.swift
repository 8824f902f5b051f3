/// The time-driven events (issue 39): what passing time makes due, raised once each. The
/// service's scheduler runs it every minute; cron users of the CLI run `geospend notifications
/// run [--as-of]`. Today: expense reminders due (`expenses add --remind-at`), one event per
/// expense and reminder time, so a reminder moved later notifies again; with a lead time
/// (`notifications settings --reminder-lead-minutes`) that many minutes before it.
public enum NotificationRun {
    /// Raises the events due at `asOf` for every user. - Returns: the events raised now.
    public static func raiseDue(
        in store: some ExpenseEditing & UserDataStore & NotificationStore, asOf: Timestamp
    ) async throws -> [NotificationEvent] {
        var events: [NewNotificationEvent] = []
        for user in try await store.users() {
            // A lead time raises the reminder that many minutes before it is due.
            let lead = Int64(try await store.notificationSettings(userID: user.id)?.reminderLeadMinutes ?? 0)
            let until = lead == 0 ? asOf : Timestamp(epochSeconds: asOf.epochMilliseconds / 1000 + lead * 60, utcOffsetMinutes: 0)
            for due in try await store.dueReminders(userID: user.id, asOf: until) {
                guard let remindAt = due.remindAt else { continue }
                events.append(reminder(due, at: remindAt))
            }
        }
        if let pantry = store as? any PantryStore & PriceStore {
            events += try await PantryReminders.due(in: pantry, asOf: asOf)
        }
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
