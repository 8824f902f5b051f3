import Foundation
import GeoSpend

/// The outbox, webhooks, deliveries and notification settings as the memory store keeps them
/// (the file's `notification_events`, `webhooks`, `webhook_deliveries`, `notification_settings`).
struct MemoryNotifications {
    struct Event {
        let sequence: Int64
        let id: String
        let user: ExactText
        let type: String
        let key: String
        let payload: String
        let createdAt: String
        var readAt: String?
        var fannedOut = false

        var event: NotificationEvent {
            NotificationEvent(sequence: sequence, id: id, userID: user.text, type: type, createdAt: createdAt, payload: payload, readAt: readAt)
        }
    }

    struct Hook {
        let pk: Int64
        /// With its secret.
        let webhook: Webhook
        /// It gets the events raised after it was added.
        let fromSequence: Int64
    }

    struct Delivery {
        let pk: Int64
        let user: ExactText
        let hookPK: Int64
        let eventSequence: Int64
        var status = WebhookDelivery.Status.pending
        var attemptLog: [String] = []
        let createdMilliseconds: Int64
        let createdAt: String
        var nextMilliseconds: Int64?
    }

    /// By sequence; a sequence is the largest kept plus one, as the file's `INTEGER PRIMARY KEY`.
    var events: [Event] = []
    var hooks: [Hook] = []
    var lastHookPK: Int64 = 0
    var deliveries: [Delivery] = []
    var lastDeliveryPK: Int64 = 0
    /// Only users who chose something (`NotificationSettings.isDefault` is no row).
    var settings: [ExactText: NotificationSettings] = [:]

    /// The user's rows of every kind (a restore refuses a user who has any).
    func rows(of user: ExactText) -> Int {
        events.count { $0.user == user } + hooks.count { ExactText($0.webhook.userID) == user } + deliveries.count { $0.user == user }
            + (settings[user] == nil ? 0 : 1)
    }

    /// Everything of `user` gone (`users delete`). - Returns: rows per table.
    mutating func removeUser(_ user: ExactText) -> [UserDeletion.TableRows] {
        let rows: [UserDeletion.TableRows] = [
            .init(table: "notification_events", rows: events.count { $0.user == user }),
            .init(table: "notification_settings", rows: settings.removeValue(forKey: user) == nil ? 0 : 1),
            .init(table: "webhook_deliveries", rows: deliveries.count { $0.user == user }),
            .init(table: "webhooks", rows: hooks.count { ExactText($0.webhook.userID) == user }),
        ]
        events.removeAll { $0.user == user }
        deliveries.removeAll { $0.user == user }
        hooks.removeAll { ExactText($0.webhook.userID) == user }
        return rows
    }
}

/// Notifications with the file's rules (Sources/GeoSpendSpatiaLite/NotificationStorage.swift):
/// each event once per user and key, unless the user turned its type off; a webhook gets the
/// events raised after it was added, each delivery once, first due after the user's quiet hours.
extension MemoryStore: NotificationStore {
    public func addWebhook(_ webhook: Webhook) async throws -> Webhook? {
        try await edit { state in
            guard state.users.contains(ExactText(webhook.userID)) else { return nil }
            state.notifications.lastHookPK += 1
            let stored = Webhook(
                id: webhook.id, userID: webhook.userID, url: webhook.url, events: webhook.events, secret: webhook.secret ?? "",
                createdAt: MemoryClock.nowInSeconds())
            state.notifications.hooks.append(MemoryNotifications.Hook(
                pk: state.notifications.lastHookPK, webhook: stored, fromSequence: state.notifications.events.last?.sequence ?? 0))
            return stored
        }
    }

    public func deleteWebhook(id: String, userID: String) async throws -> Bool {
        try await edit { state in
            guard let hook = state.notifications.hooks.first(where: { $0.webhook.id == id && ExactText($0.webhook.userID) == ExactText(userID) })
            else { return false }
            state.notifications.deliveries.removeAll { $0.hookPK == hook.pk }
            state.notifications.hooks.removeAll { $0.pk == hook.pk }
            return true
        }
    }

    public func raise(_ events: [NewNotificationEvent]) async throws -> [NotificationEvent] {
        // Events of users that no longer exist are not raised (the file's foreign key).
        try await edit { state in state.raise(events.filter { state.users.contains(ExactText($0.userID)) }) }
    }

    public func markNotificationsRead(userID: String, through sequence: Int64) async throws -> Int {
        try await edit { state in
            let now = MemoryClock.now()
            var marked = 0
            for i in state.notifications.events.indices {
                let e = state.notifications.events[i]
                guard e.user == ExactText(userID), e.sequence <= sequence, e.readAt == nil else { continue }
                state.notifications.events[i].readAt = now
                marked += 1
            }
            return marked
        }
    }

    public func fanOut(limit: Int) async throws -> Int {
        try await edit { state in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            var made = 0
            let pending = state.notifications.events.indices.filter { !state.notifications.events[$0].fannedOut }.prefix(max(limit, 0))
            for i in pending {
                let e = state.notifications.events[i]
                let due = state.firstAttempt(user: e.user, now: now)
                for hook in state.notifications.hooks where ExactText(hook.webhook.userID) == e.user && hook.fromSequence < e.sequence {
                    guard hook.webhook.events.isEmpty || hook.webhook.events.contains(e.type) else { continue }
                    guard !state.notifications.deliveries.contains(where: { $0.hookPK == hook.pk && $0.eventSequence == e.sequence }) else { continue }
                    state.notifications.lastDeliveryPK += 1
                    state.notifications.deliveries.append(MemoryNotifications.Delivery(
                        pk: state.notifications.lastDeliveryPK, user: e.user, hookPK: hook.pk, eventSequence: e.sequence,
                        createdMilliseconds: now, createdAt: MemoryClock.now(), nextMilliseconds: due))
                    made += 1
                }
                state.notifications.events[i].fannedOut = true
            }
            return made
        }
    }

    public func recordAttempt(deliveryID: Int64, at now: Int64, note: String, outcome: AttemptOutcome) async throws {
        try await edit { state in
            guard let i = state.notifications.deliveries.firstIndex(where: { $0.pk == deliveryID }) else { return }
            switch outcome {
            case .delivered: (state.notifications.deliveries[i].status, state.notifications.deliveries[i].nextMilliseconds) = (.delivered, nil)
            case .retry(let at): (state.notifications.deliveries[i].status, state.notifications.deliveries[i].nextMilliseconds) = (.pending, at)
            case .failed: (state.notifications.deliveries[i].status, state.notifications.deliveries[i].nextMilliseconds) = (.failed, nil)
            }
            state.notifications.deliveries[i].attemptLog.append(note)
        }
    }

    public func setNotificationSettings(_ settings: NotificationSettings, userID: String) async throws -> Bool {
        try await edit { state in
            guard state.users.contains(ExactText(userID)) else { return false }
            state.notifications.settings[ExactText(userID)] = settings.isDefault ? nil : settings
            return true
        }
    }
}

extension MemoryState {
    /// Raises `events` in the edit's copy, each unless its user has its key already or turned
    /// its type off. - Returns: the events raised.
    mutating func raise(_ events: [NewNotificationEvent]) -> [NotificationEvent] {
        var raised: [NotificationEvent] = []
        for e in events {
            let user = ExactText(e.userID)
            guard (notifications.settings[user] ?? NotificationSettings()).allows(e.type),
                !notifications.events.contains(where: { $0.user == user && $0.key == e.key })
            else { continue }
            let event = MemoryNotifications.Event(
                sequence: (notifications.events.last?.sequence ?? 0) + 1, id: NotificationEvent.newID(), user: user, type: e.type, key: e.key,
                payload: e.payload, createdAt: MemoryClock.now())
            notifications.events.append(event)
            raised.append(event.event)
        }
        return raised
    }

    /// The budget events of the expenses `touched` names (`BudgetThresholdEvents`), in the
    /// edit's copy: they commit with the write that caused them.
    mutating func raiseBudgetEvents(_ touched: TouchedDays) throws {
        for (user, days) in touched.byUser.sorted(by: { $0.key < $1.key }) {
            let active = (budgets[ExactText(user)] ?? []).filter(\.isActive)
            guard !active.isEmpty else { continue }
            let reader = MemoryReader(state: self)
            let events = try BudgetThresholdEvents.events(budgets: MemoryState.listed(active), days: days) { window in
                try reader.budgetExpenses(userID: user, from: window.lowerBound, to: window.upperBound)
            }
            _ = raise(events)
        }
    }

    /// When a delivery made `now` for `user` is first due: now, or the end of their quiet hours
    /// (in their time zone; UTC when they chose none).
    func firstAttempt(user: ExactText, now: Int64) -> Int64 {
        guard let quiet = notifications.settings[user]?.quietHours else { return now }
        let zone = settings[user]?.zone ?? TimeZone(identifier: "UTC")!
        return quiet.end(after: now, in: zone) ?? now
    }
}

extension MemoryReader {
    /// Without secrets, in the order added.
    func webhooks(userID: String) throws -> [Webhook] {
        state.notifications.hooks.map(\.webhook).filter { ExactText($0.userID) == ExactText(userID) }.map { w in
            Webhook(id: w.id, userID: w.userID, url: w.url, events: w.events, secret: nil, createdAt: w.createdAt)
        }
    }

    func webhook(id: String, userID: String) throws -> Webhook? {
        state.notifications.hooks.map(\.webhook).first { $0.id == id && ExactText($0.userID) == ExactText(userID) }
    }

    func notifications(userID: String, after sequence: Int64?, limit: Int, unreadOnly: Bool) throws -> [NotificationEvent] {
        Array(state.notifications.events.lazy
            .filter { $0.user == ExactText(userID) && $0.sequence > (sequence ?? 0) && (!unreadOnly || $0.readAt == nil) }
            .prefix(max(limit, 0)).map(\.event))
    }

    /// Earliest due first, then by id.
    func dueDeliveries(now: Int64, limit: Int) throws -> [DueDelivery] {
        let due = state.notifications.deliveries.filter { $0.status == .pending && ($0.nextMilliseconds ?? .max) <= now }
            .sorted { ($0.nextMilliseconds!, $0.pk) < ($1.nextMilliseconds!, $1.pk) }
        return due.prefix(max(limit, 0)).compactMap { d in
            guard let hook = state.notifications.hooks.first(where: { $0.pk == d.hookPK }),
                let event = state.notifications.events.first(where: { $0.sequence == d.eventSequence })
            else { return nil }
            return DueDelivery(
                id: d.pk, url: hook.webhook.url, secret: hook.webhook.secret ?? "", event: event.event, attempts: d.attemptLog.count,
                createdMilliseconds: d.createdMilliseconds)
        }
    }

    /// Newest first.
    func deliveries(userID: String, webhookID: String?, limit: Int) throws -> [WebhookDelivery] {
        let user = ExactText(userID)
        return state.notifications.deliveries.reversed().compactMap { d -> WebhookDelivery? in
            guard d.user == user, let hook = state.notifications.hooks.first(where: { $0.pk == d.hookPK }),
                webhookID == nil || hook.webhook.id == webhookID,
                let event = state.notifications.events.first(where: { $0.sequence == d.eventSequence })
            else { return nil }
            return WebhookDelivery(
                id: d.pk, webhookID: hook.webhook.id, eventID: event.id, eventType: event.type, status: d.status,
                attempts: d.attemptLog.count, attemptLog: d.attemptLog, createdAt: d.createdAt, nextAttemptMilliseconds: d.nextMilliseconds)
        }.prefix(max(limit, 0)).map { $0 }
    }

    func notificationSettings(userID: String) throws -> NotificationSettings? {
        guard state.users.contains(ExactText(userID)) else { return nil }
        return state.notifications.settings[ExactText(userID)] ?? NotificationSettings()
    }

    /// Every user's reminders due, less each user's lead time: by user, reminder, id (bytes).
    func remindersDue(asOf: Timestamp) throws -> [StoredExpense] {
        state.expenses.filter { row in
            guard let at = row.remindAt?.epochMilliseconds else { return false }
            let lead = Int64(state.notifications.settings[ExactText(row.expense.userID)]?.reminderLeadMinutes ?? 0) * 60_000
            return at - lead <= asOf.epochMilliseconds
        }.sorted { a, b in
            if ExactText(a.expense.userID) != ExactText(b.expense.userID) { return byBytes(a.expense.userID, b.expense.userID) }
            if a.remindAt!.epochMilliseconds != b.remindAt!.epochMilliseconds { return a.remindAt!.epochMilliseconds < b.remindAt!.epochMilliseconds }
            return byBytes(a.expense.id, b.expense.id)
        }.map(\.stored)
    }
}
