/// The outbox and the webhooks (issue 39), one user's rows at a time except for the worker's
/// calls, which serve every user. Events are raised by the stores themselves inside the writes
/// that cause them (budget thresholds, `BudgetThresholdEvents`) or by `raise` (time-driven
/// events: `NotificationRun`); each at most once per user and key.
///
/// ```swift
/// let hook = try Webhook.new(userID: "ann", url: "https://example.org/hook", events: [])
/// _ = try await store.addWebhook(hook)
/// _ = try await store.fanOut(limit: 500)           // events → deliveries
/// for d in try await store.dueDeliveries(now: ms, limit: 50) { … POST d.event.body … }
/// ```
public protocol NotificationStore: Sendable {
    /// Stores a webhook (its id and secret from `Webhook.new`). - Returns: the stored webhook
    /// with its secret and creation time; nil when there is no such user.
    func addWebhook(_ webhook: Webhook) async throws -> Webhook?
    /// The user's webhooks, oldest first, without secrets.
    func webhooks(userID: String) async throws -> [Webhook]
    /// The user's webhook with its secret (`webhooks test`), or nil.
    func webhook(id: String, userID: String) async throws -> Webhook?
    /// Deletes the webhook and its deliveries. - Returns: whether the user had it.
    func deleteWebhook(id: String, userID: String) async throws -> Bool

    /// Raises events, each unless the user already has one with its key, in one transaction.
    /// - Returns: the events raised (the others were raised before).
    func raise(_ events: [NewNotificationEvent]) async throws -> [NotificationEvent]
    /// The user's events after `sequence` (oldest first), at most `limit`; `unreadOnly` skips read ones.
    func notifications(userID: String, after sequence: Int64?, limit: Int, unreadOnly: Bool) async throws -> [NotificationEvent]
    /// Marks the user's events up to `sequence` read. - Returns: how many were unread.
    func markNotificationsRead(userID: String, through sequence: Int64) async throws -> Int

    /// Makes the deliveries of events not yet fanned out (one per webhook of the event's user
    /// that wants its type and was added before the event), oldest first, at most `limit`
    /// events. - Returns: deliveries made.
    func fanOut(limit: Int) async throws -> Int
    /// Pending deliveries due at `now` (ms since 1970), earliest first.
    func dueDeliveries(now: Int64, limit: Int) async throws -> [DueDelivery]
    /// Records an attempt: `note` (status or error) in the log, the outcome as the new state.
    func recordAttempt(deliveryID: Int64, at now: Int64, note: String, outcome: AttemptOutcome) async throws
    /// The user's deliveries (of one webhook), newest first, at most `limit`.
    func deliveries(userID: String, webhookID: String?, limit: Int) async throws -> [WebhookDelivery]

    /// The user's notification settings (defaults when they chose nothing); nil: no such user.
    func notificationSettings(userID: String) async throws -> NotificationSettings?
    /// Replaces them (defaults: the row goes). - Returns: false when there is no such user.
    func setNotificationSettings(_ settings: NotificationSettings, userID: String) async throws -> Bool

    /// Every user's expenses whose reminder, less the user's lead time, is at or before `asOf`:
    /// the scheduler's one question a minute (not one per user). By user, then earliest
    /// reminder, then id.
    func remindersDue(asOf: Timestamp) async throws -> [StoredExpense]
}

/// The outbox and webhooks as a read scope hands them out (every `ExpenseReader` is one), in
/// the scope's snapshot. A store that keeps none finds none.
public protocol NotificationReader {
    /// `NotificationStore.webhooks(userID:)`, in the scope's snapshot.
    func webhooks(userID: String) throws -> [Webhook]
    /// `NotificationStore.webhook(id:userID:)`, in the scope's snapshot.
    func webhook(id: String, userID: String) throws -> Webhook?
    /// `NotificationStore.notifications(userID:after:limit:unreadOnly:)`, in the scope's snapshot.
    func notifications(userID: String, after sequence: Int64?, limit: Int, unreadOnly: Bool) throws -> [NotificationEvent]
    /// `NotificationStore.dueDeliveries(now:limit:)`, in the scope's snapshot.
    func dueDeliveries(now: Int64, limit: Int) throws -> [DueDelivery]
    /// `NotificationStore.deliveries(userID:webhookID:limit:)`, in the scope's snapshot.
    func deliveries(userID: String, webhookID: String?, limit: Int) throws -> [WebhookDelivery]
    /// `NotificationStore.notificationSettings(userID:)`, in the scope's snapshot.
    func notificationSettings(userID: String) throws -> NotificationSettings?
    /// `NotificationStore.remindersDue(asOf:)`, in the scope's snapshot.
    func remindersDue(asOf: Timestamp) throws -> [StoredExpense]
}

/// A backend's notification reads are its read scope's (written once, in its reader).
extension NotificationStore where Self: ExpenseStore {
    public func webhooks(userID: String) async throws -> [Webhook] { try await read { try $0.webhooks(userID: userID) } }

    public func webhook(id: String, userID: String) async throws -> Webhook? { try await read { try $0.webhook(id: id, userID: userID) } }

    public func notifications(userID: String, after sequence: Int64?, limit: Int, unreadOnly: Bool) async throws -> [NotificationEvent] {
        try await read { try $0.notifications(userID: userID, after: sequence, limit: limit, unreadOnly: unreadOnly) }
    }

    public func dueDeliveries(now: Int64, limit: Int) async throws -> [DueDelivery] { try await read { try $0.dueDeliveries(now: now, limit: limit) } }

    public func deliveries(userID: String, webhookID: String?, limit: Int) async throws -> [WebhookDelivery] {
        try await read { try $0.deliveries(userID: userID, webhookID: webhookID, limit: limit) }
    }

    public func notificationSettings(userID: String) async throws -> NotificationSettings? {
        try await read { try $0.notificationSettings(userID: userID) }
    }

    public func remindersDue(asOf: Timestamp) async throws -> [StoredExpense] { try await read { try $0.remindersDue(asOf: asOf) } }
}
