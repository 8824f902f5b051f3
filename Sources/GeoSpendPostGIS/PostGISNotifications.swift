import Foundation
import GeoSpend
import PostgresNIO

/// The outbox and the webhooks on PostgreSQL (migration v11, `PostGISSchema.notifications`),
/// with the file's rules (Sources/GeoSpendSpatiaLite/NotificationStorage.swift): events raised
/// in the transaction of the write that raised them, once per user and key; writes under the
/// writers' lock, in one transaction each.
extension PostGISStore: NotificationStore {
    /// Raises `events` in the caller's transaction, each unless its user has its key already.
    /// Two statements whatever their number: an import raises one event per user, and a
    /// statement per event cost a round trip each (1,000 users: 2,000 of them).
    static func raise(_ r: PostGISReader, _ events: [NewNotificationEvent]) throws -> [NotificationEvent] {
        guard !events.isEmpty else { return [] }
        let chosen = try notificationSettings(r, users: Array(Set(events.map(\.userID))))
        let allowed = events.filter { chosen[$0.userID, default: NotificationSettings()].allows($0.type) }  // not a type the user turned off
        guard !allowed.isEmpty else { return [] }
        // `seq` follows the order of `unnest`'s rows (WITH ORDINALITY), so sorting by it gives
        // back the events' order; a later event of a key raised earlier in the list does nothing.
        let rows = try r.rows("""
            INSERT INTO notification_events (id, user_id, type, event_key, payload, created_at)
            SELECT e.id, e.user_id, e.type, e.event_key, e.payload, \(unescaped: Self.nowSQL)
            FROM unnest(\(allowed.map { _ in NotificationEvent.newID() })::text[], \(allowed.map(\.userID))::text[],
                        \(allowed.map(\.type))::text[], \(allowed.map(\.key))::text[], \(allowed.map(\.payload))::text[])
                 WITH ORDINALITY AS e(id, user_id, type, event_key, payload, n)
            ORDER BY e.n
            ON CONFLICT (user_id, event_key) DO NOTHING
            RETURNING \(unescaped: Self.eventColumns)
            """)
        return try rows.map(Self.event).sorted { $0.sequence < $1.sequence }
    }

    /// The budget events of the expenses `touched` names (`BudgetThresholdEvents`), in the
    /// caller's transaction: after the write's rows, before its commit.
    static func raiseBudgetEvents(_ r: PostGISReader, touched: TouchedDays) throws {
        guard !touched.isEmpty, try r.rows("SELECT EXISTS (SELECT 1 FROM budgets WHERE is_active)")[0].decode(Bool.self) else { return }
        for (user, days) in touched.byUser.sorted(by: { $0.key < $1.key }) {
            let budgets = try fetchBudgets(r, userID: user, number: nil, activeOnly: true)
            guard !budgets.isEmpty else { continue }
            let events = try BudgetThresholdEvents.events(budgets: budgets, days: days) { w in
                try budgetExpenses(r, userID: user, from: w.lowerBound, to: w.upperBound)
            }
            _ = try raise(r, events)
        }
    }

    /// The user's notification settings; defaults when they chose nothing.
    static func notificationSettings(_ r: PostGISReader, user: String) throws -> NotificationSettings {
        try notificationSettings(r, users: [user])[user] ?? NotificationSettings()
    }

    /// The settings of those of `users` who chose any, in one query.
    static func notificationSettings(_ r: PostGISReader, users: [String]) throws -> [String: NotificationSettings] {
        var chosen: [String: NotificationSettings] = [:]
        for row in try r.rows("""
            SELECT user_id, events, quiet_start::bigint, quiet_end::bigint, reminder_lead_minutes::bigint
            FROM notification_settings WHERE user_id = ANY(\(users))
            """) {
            let (user, events, start, end, lead) = try row.decode((String, String, Int64?, Int64?, Int64).self)
            chosen[user] = NotificationSettings(
                events: events.split(separator: ",").map(String.init),
                quietHours: start.flatMap { s in end.map { NotificationSettings.QuietHours(startMinute: Int(s), endMinute: Int($0)) } },
                reminderLeadMinutes: Int(lead))
        }
        return chosen
    }

    /// When a delivery made `now` for `user` is first due: now, or the end of their quiet hours.
    static func firstAttempt(_ r: PostGISReader, user: String, now: Int64) throws -> Int64 {
        guard let quiet = try notificationSettings(r, user: user).quietHours else { return now }
        let zone = try settings(r, user: user).zone ?? TimeZone(identifier: "UTC")!
        return quiet.end(after: now, in: zone) ?? now
    }

    static let eventColumns = "seq, id, user_id, type, created_at, payload, read_at"

    static func event(_ row: PostgresRow) throws -> NotificationEvent {
        let (seq, id, user, type, created, payload, read) = try row.decode((Int64, String, String, String, String, String, String?).self)
        return NotificationEvent(sequence: seq, id: id, userID: user, type: type, createdAt: created, payload: payload, readAt: read)
    }

    static func webhook(_ row: PostgresRow, secret: Bool) throws -> Webhook {
        let (id, user, url, events, key, created) = try row.decode((String, String, String, String, String, String).self)
        return Webhook(
            id: id, userID: user, url: url, events: events.split(separator: ",").map(String.init), secret: secret ? key : nil, createdAt: created)
    }

    /// The user's webhooks for `users export`: no secrets.
    static func webhooks(_ r: PostGISReader, user: String) throws -> [Webhook] {
        try r.rows("SELECT id, user_id, url, events, secret, created_at FROM webhooks WHERE user_id = \(user) ORDER BY pk")
            .map { try webhook($0, secret: false) }
    }

    public func addWebhook(_ webhook: Webhook) async throws -> Webhook? {
        try await editing { r in
            guard try r.hasUser(webhook.userID) else { return nil }
            return try r.rows("""
                INSERT INTO webhooks (id, user_id, url, events, secret, created_at, from_seq)
                VALUES (\(webhook.id), \(webhook.userID), \(webhook.url), \(webhook.events.joined(separator: ",")), \(webhook.secret ?? ""),
                    \(unescaped: Self.nowSecondsSQL), (SELECT coalesce(max(seq), 0) FROM notification_events))
                RETURNING id, user_id, url, events, secret, created_at
                """).first.map { try Self.webhook($0, secret: true) }
        }
    }

    public func deleteWebhook(id: String, userID: String) async throws -> Bool {
        try await editing { r in
            !(try r.rows("DELETE FROM webhooks WHERE id = \(id) AND user_id = \(userID) RETURNING pk")).isEmpty
        }
    }

    public func raise(_ events: [NewNotificationEvent]) async throws -> [NotificationEvent] {
        try await editing { r in
            var known = Set<String>()
            for u in Set(events.map(\.userID)) where try r.hasUser(u) { known.insert(u) }
            return try Self.raise(r, events.filter { known.contains($0.userID) })
        }
    }

    public func markNotificationsRead(userID: String, through sequence: Int64) async throws -> Int {
        try await editing { r in
            try r.rows("""
                UPDATE notification_events SET read_at = \(unescaped: Self.nowSQL)
                WHERE user_id = \(userID) AND seq <= \(sequence) AND read_at IS NULL RETURNING seq
                """).count
        }
    }

    public func fanOut(limit: Int) async throws -> Int {
        // The service asks four times a second: a read first, so an idle outbox never takes the writers' lock.
        let pending = try await reading { r in
            try r.rows("SELECT EXISTS (SELECT 1 FROM notification_events WHERE NOT fanned_out)")[0].decode(Bool.self)
        }
        guard pending else { return 0 }
        return try await editing { r in
            var made = 0
            let pending = try r.rows(
                "SELECT seq, user_id, type FROM notification_events WHERE NOT fanned_out ORDER BY seq LIMIT \(Int64(limit))"
            ).map { try $0.decode((Int64, String, String).self) }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for (seq, user, type) in pending {
                let due = try Self.firstAttempt(r, user: user, now: now)
                let hooks = try r.rows("SELECT pk, events FROM webhooks WHERE user_id = \(user) AND from_seq < \(seq) ORDER BY pk").map { try $0.decode((Int64, String).self) }
                for (pk, events) in hooks where events.isEmpty || events.split(separator: ",").contains(Substring(type)) {
                    made += try r.rows("""
                        INSERT INTO webhook_deliveries (user_id, webhook_pk, event_seq, created_ms, created_at, next_ms)
                        VALUES (\(user), \(pk), \(seq), \(now), \(unescaped: Self.nowSQL), \(due))
                        ON CONFLICT (webhook_pk, event_seq) DO NOTHING RETURNING pk
                        """).count
                }
                _ = try r.rows("UPDATE notification_events SET fanned_out = true WHERE seq = \(seq)")
            }
            return made
        }
    }

    public func recordAttempt(deliveryID: Int64, at now: Int64, note: String, outcome: AttemptOutcome) async throws {
        let (status, next): (String, Int64?) = switch outcome {
        case .delivered: ("delivered", nil)
        case .retry(let at): ("pending", at)
        case .failed: ("failed", nil)
        }
        try await editing { r in
            _ = try r.rows("""
                UPDATE webhook_deliveries SET attempts = attempts + 1, status = \(status), next_ms = \(next),
                    attempt_log = attempt_log || CASE WHEN attempt_log = '' THEN '' ELSE E'\\n' END || \(note)
                WHERE pk = \(deliveryID)
                """)
        }
    }

    public func setNotificationSettings(_ settings: NotificationSettings, userID: String) async throws -> Bool {
        try await editing { r in
            guard try r.hasUser(userID) else { return false }
            if settings.isDefault {
                _ = try r.rows("DELETE FROM notification_settings WHERE user_id = \(userID)")
            } else {
                let start = settings.quietHours.map { Int64($0.startMinute) }, end = settings.quietHours.map { Int64($0.endMinute) }
                _ = try r.rows("""
                    INSERT INTO notification_settings (user_id, events, quiet_start, quiet_end, reminder_lead_minutes)
                    VALUES (\(userID), \(settings.events.joined(separator: ",")), \(start), \(end), \(Int64(settings.reminderLeadMinutes)))
                    ON CONFLICT (user_id) DO UPDATE SET events = EXCLUDED.events, quiet_start = EXCLUDED.quiet_start,
                        quiet_end = EXCLUDED.quiet_end, reminder_lead_minutes = EXCLUDED.reminder_lead_minutes
                    """)
            }
            return true
        }
    }
}

/// The notification reads of a read scope, on its connection and snapshot.
extension PostGISReader: NotificationReader {
    public func webhooks(userID: String) throws -> [Webhook] {
        try PostGISStore.webhooks(self, user: userID)
    }

    public func webhook(id: String, userID: String) throws -> Webhook? {
        try rows("SELECT id, user_id, url, events, secret, created_at FROM webhooks WHERE id = \(id) AND user_id = \(userID)")
            .first.map { try PostGISStore.webhook($0, secret: true) }
    }

    public func notifications(userID: String, after sequence: Int64?, limit: Int, unreadOnly: Bool) throws -> [NotificationEvent] {
        try rows("""
            SELECT \(unescaped: PostGISStore.eventColumns) FROM notification_events
            WHERE user_id = \(userID) AND seq > \(sequence ?? 0)\(unescaped: unreadOnly ? " AND read_at IS NULL" : "")
            ORDER BY seq LIMIT \(Int64(limit))
            """).map(PostGISStore.event)
    }

    public func dueDeliveries(now: Int64, limit: Int) throws -> [DueDelivery] {
        try rows("""
            SELECT d.pk, w.url, w.secret, d.attempts::bigint, d.created_ms,
                e.seq, e.id, e.user_id, e.type, e.created_at, e.payload, e.read_at
            FROM webhook_deliveries AS d JOIN webhooks AS w ON w.pk = d.webhook_pk
                JOIN notification_events AS e ON e.seq = d.event_seq
            WHERE d.status = 'pending' AND d.next_ms <= \(now) ORDER BY d.next_ms, d.pk LIMIT \(Int64(limit))
            """).map { row in
            let (pk, url, secret, attempts, created, seq, id, user, type, at, payload, read) = try row.decode(
                (Int64, String, String, Int64, Int64, Int64, String, String, String, String, String, String?).self)
            return DueDelivery(
                id: pk, url: url, secret: secret,
                event: NotificationEvent(sequence: seq, id: id, userID: user, type: type, createdAt: at, payload: payload, readAt: read),
                attempts: Int(attempts), createdMilliseconds: created)
        }
    }

    public func notificationSettings(userID: String) throws -> NotificationSettings? {
        guard try hasUser(userID) else { return nil }
        return try PostGISStore.notificationSettings(self, user: userID)
    }

    public func remindersDue(asOf: Timestamp) throws -> [StoredExpense] {
        let bound = asOf.epochMilliseconds + Int64(NotificationSettings.leadRange.upperBound) * 60_000
        return try rows("""
            SELECT \(unescaped: PostGISStore.storedColumns) FROM \(unescaped: PostGISStore.storedSource)
                LEFT JOIN notification_settings AS n ON n.user_id = e.user_id
            WHERE e.remind_ms IS NOT NULL AND e.remind_ms <= \(bound)
                AND e.remind_ms - coalesce(n.reminder_lead_minutes, 0)::bigint * 60000 <= \(asOf.epochMilliseconds)
            ORDER BY e.user_id, e.remind_ms, e.id
            """).map(PostGISStore.stored)
    }

    public func deliveries(userID: String, webhookID: String?, limit: Int) throws -> [WebhookDelivery] {
        try rows("""
            SELECT d.pk, w.id, e.id, e.type, d.status, d.attempts::bigint, d.attempt_log, d.created_at, d.next_ms
            FROM webhook_deliveries AS d JOIN webhooks AS w ON w.pk = d.webhook_pk
                JOIN notification_events AS e ON e.seq = d.event_seq
            WHERE d.user_id = \(userID) AND (\(webhookID)::text IS NULL OR w.id = \(webhookID))
            ORDER BY d.pk DESC LIMIT \(Int64(limit))
            """).map { row in
            let (pk, hook, event, type, status, attempts, log, created, next) = try row.decode(
                (Int64, String, String, String, String, Int64, String, String, Int64?).self)
            return WebhookDelivery(
                id: pk, webhookID: hook, eventID: event, eventType: type, status: WebhookDelivery.Status(rawValue: status) ?? .pending,
                attempts: Int(attempts), attemptLog: log.isEmpty ? [] : log.split(separator: "\n").map(String.init), createdAt: created,
                nextAttemptMilliseconds: next)
        }
    }
}
