import Foundation
import GeoSpend
import GRDB

/// The outbox and the webhooks (migration v20, issue 39), keyed by user with cascading keys, so
/// `users delete` (which finds tables by their user keys) removes them and `users export` lists
/// the webhooks (without secrets).
/// - `notification_events`: the outbox. A row is written in the transaction of the change that
///   raised it (`raiseBudgetEvents` in the expense writes), so a kill loses none and raises none
///   twice: `UNIQUE (user_id, event_key)`. `fanned_out` says its deliveries are made.
/// - `webhooks`: a user's subscriptions, with the signing secret (the worker signs with it).
/// - `webhook_deliveries`: one per event and webhook: pending (due at `next_ms`), delivered or
///   failed, with every attempt in `attempt_log` (one line each).
/// - `notification_settings`: a row per user who chose event types, quiet hours or a lead time.
enum NotificationSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE notification_events (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                type TEXT NOT NULL CHECK (length(type) BETWEEN 1 AND 100),
                event_key TEXT NOT NULL,
                payload TEXT NOT NULL,
                created_at TEXT NOT NULL,
                read_at TEXT,
                fanned_out INTEGER NOT NULL DEFAULT 0 CHECK (fanned_out IN (0, 1)),
                UNIQUE (user_id, event_key)
            );
            CREATE INDEX notification_events_user ON notification_events(user_id, seq);
            CREATE INDEX notification_events_pending ON notification_events(seq) WHERE fanned_out = 0;
            CREATE TABLE webhooks (
                pk INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                url TEXT NOT NULL CHECK (length(url) BETWEEN 1 AND 2000),
                events TEXT NOT NULL DEFAULT '',
                secret TEXT NOT NULL,
                created_at TEXT NOT NULL,
                from_seq INTEGER NOT NULL DEFAULT 0  -- gets the events raised after it was added
            );
            CREATE INDEX webhooks_user ON webhooks(user_id);
            CREATE TABLE webhook_deliveries (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                webhook_pk INTEGER NOT NULL REFERENCES webhooks(pk) ON DELETE CASCADE,
                event_seq INTEGER NOT NULL REFERENCES notification_events(seq) ON DELETE CASCADE,
                status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                attempt_log TEXT NOT NULL DEFAULT '',
                created_ms BIGINT NOT NULL,
                created_at TEXT NOT NULL,
                next_ms BIGINT,
                UNIQUE (webhook_pk, event_seq)
            );
            CREATE TABLE notification_settings (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                events TEXT NOT NULL DEFAULT '',
                quiet_start INTEGER CHECK (quiet_start BETWEEN 0 AND 1439),
                quiet_end INTEGER CHECK (quiet_end BETWEEN 0 AND 1439),
                reminder_lead_minutes INTEGER NOT NULL DEFAULT 0 CHECK (reminder_lead_minutes BETWEEN 0 AND 10080),
                CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
            );
            CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_ms) WHERE status = 'pending';
            CREATE INDEX webhook_deliveries_user ON webhook_deliveries(user_id, pk);
            CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_seq);
            """)
    }

    /// Raises `events` in the caller's transaction, each unless its user has its key already.
    static func raise(_ db: Database, _ events: [NewNotificationEvent]) throws -> [NotificationEvent] {
        var raised: [NotificationEvent] = []
        var chosen: [String: NotificationSettings] = [:]
        for e in events {
            if chosen[e.userID] == nil { chosen[e.userID] = try settings(db, user: e.userID) }
            guard chosen[e.userID]!.allows(e.type) else { continue }  // a type the user turned off
            let id = NotificationEvent.newID()
            try db.execute(
                sql: """
                    INSERT INTO notification_events (id, user_id, type, event_key, payload, created_at)
                    VALUES (?, ?, ?, ?, ?, \(SpatiaLiteStore.nowSQL)) ON CONFLICT (user_id, event_key) DO NOTHING
                    """,
                arguments: [id, e.userID, e.type, e.key, e.payload])
            guard db.changesCount > 0 else { continue }
            let seq = db.lastInsertedRowID
            if let row = try fetchEvents(db, "WHERE seq = ?", [seq]).first { raised.append(row) }
        }
        return raised
    }

    /// The budget events of the expenses `touched` names (`BudgetThresholdEvents`), raised in
    /// the caller's transaction: after the write's rows, before its commit.
    static func raiseBudgetEvents(_ db: Database, path: String, touched: TouchedDays) throws {
        guard !touched.isEmpty,
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM budgets WHERE is_active = 1)") == true
        else { return }
        for (user, days) in touched.byUser.sorted(by: { $0.key < $1.key }) {
            let budgets = try SpatiaLiteStore.fetchBudgets(db, where: "b.user_id = ? AND b.is_active = 1", [user])
            guard !budgets.isEmpty else { continue }
            let events = try BudgetThresholdEvents.events(budgets: budgets, days: days) { window in
                try SpatiaLiteStore.budgetExpenses(db, path: path, userID: user, from: window.lowerBound, to: window.upperBound)
            }
            _ = try raise(db, events)
        }
    }

    /// The user's notification settings; defaults when they chose nothing.
    static func settings(_ db: Database, user: String) throws -> NotificationSettings {
        guard let r = try Row.fetchOne(
            db, sql: "SELECT events, quiet_start, quiet_end, reminder_lead_minutes FROM notification_settings WHERE user_id = ?", arguments: [user])
        else { return NotificationSettings() }
        let events: String = r[0]
        let start: Int? = r[1], end: Int? = r[2]
        return NotificationSettings(
            events: events.split(separator: ",").map(String.init),
            quietHours: start.flatMap { s in end.map { NotificationSettings.QuietHours(startMinute: s, endMinute: $0) } }, reminderLeadMinutes: r[3])
    }

    /// When a delivery made `now` for `user` is first due: now, or the end of their quiet hours.
    static func firstAttempt(_ db: Database, user: String, now: Int64) throws -> Int64 {
        guard let quiet = try settings(db, user: user).quietHours else { return now }
        let zone = try UserSettingsSchema.settings(db, user: user).zone ?? TimeZone(identifier: "UTC")!
        return quiet.end(after: now, in: zone) ?? now
    }

    static let eventColumns = "seq, id, user_id, type, created_at, payload, read_at"

    static func event(_ r: Row, from i: Int = 0) -> NotificationEvent {
        NotificationEvent(
            sequence: r[i], id: r[i + 1], userID: r[i + 2], type: r[i + 3], createdAt: r[i + 4], payload: r[i + 5], readAt: r[i + 6])
    }

    static func fetchEvents(_ db: Database, _ condition: String, _ arguments: [any DatabaseValueConvertible]) throws -> [NotificationEvent] {
        try Row.fetchAll(db, sql: "SELECT \(eventColumns) FROM notification_events \(condition)", arguments: StatementArguments(arguments))
            .map { event($0) }
    }

    static func webhook(_ r: Row, secret: Bool) -> Webhook {
        let events: String = r[3]
        return Webhook(
            id: r[0], userID: r[1], url: r[2], events: events.split(separator: ",").map(String.init), secret: secret ? r[4] : nil,
            createdAt: r[5])
    }

    /// The user's webhooks for `users export`: no secrets.
    static func webhooks(_ db: Database, user: String) throws -> [Webhook] {
        try Row.fetchAll(
            db, sql: "SELECT id, user_id, url, events, secret, created_at FROM webhooks WHERE user_id = ? ORDER BY pk", arguments: [user]
        ).map { webhook($0, secret: false) }
    }
}

extension SpatiaLiteStore: NotificationStore {
    public func addWebhook(_ webhook: Webhook) async throws -> Webhook? {
        try await writeTransaction { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [webhook.userID]) == true
            else { return nil }
            try db.execute(
                sql: """
                    INSERT INTO webhooks (id, user_id, url, events, secret, created_at, from_seq)
                    VALUES (?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), (SELECT coalesce(max(seq), 0) FROM notification_events))
                    """,
                arguments: [webhook.id, webhook.userID, webhook.url, webhook.events.joined(separator: ","), webhook.secret ?? ""])
            return try Row.fetchOne(
                db, sql: "SELECT id, user_id, url, events, secret, created_at FROM webhooks WHERE pk = ?", arguments: [db.lastInsertedRowID]
            ).map { NotificationSchema.webhook($0, secret: true) }
        }
    }

    public func deleteWebhook(id: String, userID: String) async throws -> Bool {
        try await writeTransaction { db in
            guard let pk = try Int64.fetchOne(db, sql: "SELECT pk FROM webhooks WHERE id = ? AND user_id = ?", arguments: [id, userID])
            else { return false }
            try db.execute(sql: "DELETE FROM webhook_deliveries WHERE webhook_pk = ?", arguments: [pk])
            try db.execute(sql: "DELETE FROM webhooks WHERE pk = ?", arguments: [pk])
            return true
        }
    }

    public func raise(_ events: [NewNotificationEvent]) async throws -> [NotificationEvent] {
        try await writeTransaction { db in
            // Events of users that no longer exist are not raised (the foreign key's rule).
            let users = Set(events.map(\.userID))
            var known = Set<String>()
            for u in users where try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [u]) == true {
                known.insert(u)
            }
            return try NotificationSchema.raise(db, events.filter { known.contains($0.userID) })
        }
    }

    public func markNotificationsRead(userID: String, through sequence: Int64) async throws -> Int {
        try await writeTransaction { db in
            try db.execute(
                sql: "UPDATE notification_events SET read_at = \(Self.nowSQL) WHERE user_id = ? AND seq <= ? AND read_at IS NULL",
                arguments: [userID, sequence])
            return db.changesCount
        }
    }

    public func fanOut(limit: Int) async throws -> Int {
        // The service asks four times a second: a read first, so an idle outbox never takes the write lock.
        let pending = try await translatingErrors {
            try await pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM notification_events WHERE fanned_out = 0)") }
        }
        guard pending == true else { return 0 }
        return try await writeTransaction { db in
            let pending = try Row.fetchAll(
                db, sql: "SELECT seq, user_id, type FROM notification_events WHERE fanned_out = 0 ORDER BY seq LIMIT ?", arguments: [limit])
            var made = 0
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for p in pending {
                let seq: Int64 = p[0], user: String = p[1], type: String = p[2]
                let due = try NotificationSchema.firstAttempt(db, user: user, now: now)
                for hook in try Row.fetchAll(db, sql: "SELECT pk, events FROM webhooks WHERE user_id = ? AND from_seq < ? ORDER BY pk", arguments: [user, seq]) {
                    let events: String = hook[1]
                    guard events.isEmpty || events.split(separator: ",").contains(Substring(type)) else { continue }
                    try db.execute(
                        sql: """
                            INSERT INTO webhook_deliveries (user_id, webhook_pk, event_seq, created_ms, created_at, next_ms)
                            VALUES (?, ?, ?, ?, \(Self.nowSQL), ?)
                            ON CONFLICT (webhook_pk, event_seq) DO NOTHING
                            """,
                        arguments: [user, hook[0] as Int64, seq, now, due])
                    made += db.changesCount
                }
                try db.execute(sql: "UPDATE notification_events SET fanned_out = 1 WHERE seq = ?", arguments: [seq])
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
        try await writeTransaction { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, next_ms = ?,
                        attempt_log = attempt_log || CASE WHEN attempt_log = '' THEN '' ELSE char(10) END || ?
                    WHERE pk = ?
                    """,
                arguments: [status, next, note, deliveryID])
        }
    }

    public func setNotificationSettings(_ settings: NotificationSettings, userID: String) async throws -> Bool {
        try await writeTransaction { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [userID]) == true else { return false }
            if settings.isDefault {
                try db.execute(sql: "DELETE FROM notification_settings WHERE user_id = ?", arguments: [userID])
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO notification_settings (user_id, events, quiet_start, quiet_end, reminder_lead_minutes) VALUES (?1, ?2, ?3, ?4, ?5)
                        ON CONFLICT (user_id) DO UPDATE SET events = ?2, quiet_start = ?3, quiet_end = ?4, reminder_lead_minutes = ?5
                        """,
                    arguments: [
                        userID, settings.events.joined(separator: ","), settings.quietHours?.startMinute, settings.quietHours?.endMinute,
                        settings.reminderLeadMinutes,
                    ])
            }
            return true
        }
    }
}

/// The notification reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: NotificationReader {
    public func webhooks(userID: String) throws -> [Webhook] {
        try NotificationSchema.webhooks(db, user: userID)
    }

    public func webhook(id: String, userID: String) throws -> Webhook? {
        try Row.fetchOne(
            db, sql: "SELECT id, user_id, url, events, secret, created_at FROM webhooks WHERE id = ? AND user_id = ?",
            arguments: [id, userID]
        ).map { NotificationSchema.webhook($0, secret: true) }
    }

    public func notifications(userID: String, after sequence: Int64?, limit: Int, unreadOnly: Bool) throws -> [NotificationEvent] {
        try NotificationSchema.fetchEvents(
            db, "WHERE user_id = ? AND seq > ?\(unreadOnly ? " AND read_at IS NULL" : "") ORDER BY seq LIMIT ?",
            [userID, sequence ?? 0, limit])
    }

    public func dueDeliveries(now: Int64, limit: Int) throws -> [DueDelivery] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT d.pk, w.url, w.secret, d.attempts, d.created_ms,
                    e.seq, e.id, e.user_id, e.type, e.created_at, e.payload, e.read_at
                FROM webhook_deliveries AS d JOIN webhooks AS w ON w.pk = d.webhook_pk
                    JOIN notification_events AS e ON e.seq = d.event_seq
                WHERE d.status = 'pending' AND d.next_ms <= ? ORDER BY d.next_ms, d.pk LIMIT ?
                """, arguments: [now, limit]
        ).map { r in
            DueDelivery(id: r[0], url: r[1], secret: r[2], event: NotificationSchema.event(r, from: 5), attempts: r[3], createdMilliseconds: r[4])
        }
    }

    public func notificationSettings(userID: String) throws -> NotificationSettings? {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [userID]) == true else { return nil }
        return try NotificationSchema.settings(db, user: userID)
    }

    public func remindersDue(asOf: Timestamp) throws -> [StoredExpense] {
        // The bound before the join keeps the scan to reminders within the longest lead time.
        let sql = """
            SELECT \(SpatiaLiteStore.storedColumns) FROM \(SpatiaLiteStore.storedSource)
                LEFT JOIN notification_settings AS n ON n.user_id = e.user_id
            WHERE e.remind_ms IS NOT NULL AND e.remind_ms <= ?1 + ?2
                AND e.remind_ms - coalesce(n.reminder_lead_minutes, 0) * 60000 <= ?1
            ORDER BY e.user_id, e.remind_ms, e.id
            """
        return try SpatiaLiteStore.fetchStored(db, sql) { s in
            s.bind(1, asOf.epochMilliseconds)
            s.bind(2, Int64(NotificationSettings.leadRange.upperBound) * 60_000)
        }.map(\.0)
    }

    public func deliveries(userID: String, webhookID: String?, limit: Int) throws -> [WebhookDelivery] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT d.pk, w.id, e.id, e.type, d.status, d.attempts, d.attempt_log, d.created_at, d.next_ms
                FROM webhook_deliveries AS d JOIN webhooks AS w ON w.pk = d.webhook_pk
                    JOIN notification_events AS e ON e.seq = d.event_seq
                WHERE d.user_id = ?\(webhookID == nil ? "" : " AND w.id = ?") ORDER BY d.pk DESC LIMIT ?
                """,
            arguments: StatementArguments([userID] + (webhookID.map { [$0] } ?? []) + [limit] as [any DatabaseValueConvertible])
        ).map { r in
            let log: String = r[6]
            return WebhookDelivery(
                id: r[0], webhookID: r[1], eventID: r[2], eventType: r[3],
                status: WebhookDelivery.Status(rawValue: r[4]) ?? .pending, attempts: r[5],
                attemptLog: log.isEmpty ? [] : log.split(separator: "\n").map(String.init), createdAt: r[7],
                nextAttemptMilliseconds: r[8])
        }
    }
}
