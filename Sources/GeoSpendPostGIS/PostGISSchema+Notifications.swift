/// Migration v11: the notifications outbox and the webhooks (issue 39), the tables of the
/// file's migration v20 (Sources/GeoSpendSpatiaLite/NotificationStorage.swift) with the same
/// keys and CHECKs, keyed by `user_id` and cascading from `users`.
extension PostGISSchema {
    static let notifications = Migration(identifier: "v11: notifications outbox, webhooks", sql: """
        CREATE TABLE notification_events (
            seq bigserial PRIMARY KEY,
            id text COLLATE "C" NOT NULL UNIQUE,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            type text NOT NULL CHECK (length(type) BETWEEN 1 AND 100),
            event_key text COLLATE "C" NOT NULL,
            payload text NOT NULL,
            created_at text NOT NULL,
            read_at text,
            fanned_out boolean NOT NULL DEFAULT false,
            UNIQUE (user_id, event_key)
        );
        CREATE INDEX notification_events_user ON notification_events (user_id, seq);
        CREATE INDEX notification_events_pending ON notification_events (seq) WHERE NOT fanned_out;
        CREATE TABLE webhooks (
            pk bigserial PRIMARY KEY,
            id text COLLATE "C" NOT NULL UNIQUE,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2000),
            events text NOT NULL DEFAULT '',
            secret text NOT NULL,
            created_at text NOT NULL,
            from_seq bigint NOT NULL DEFAULT 0
        );
        CREATE INDEX webhooks_user ON webhooks (user_id);
        CREATE TABLE webhook_deliveries (
            pk bigserial PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            webhook_pk bigint NOT NULL REFERENCES webhooks(pk) ON DELETE CASCADE,
            event_seq bigint NOT NULL REFERENCES notification_events(seq) ON DELETE CASCADE,
            status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
            attempts integer NOT NULL DEFAULT 0,
            attempt_log text NOT NULL DEFAULT '',
            created_ms bigint NOT NULL,
            created_at text NOT NULL,
            next_ms bigint,
            UNIQUE (webhook_pk, event_seq)
        );
        CREATE TABLE notification_settings (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            events text NOT NULL DEFAULT '',
            quiet_start integer CHECK (quiet_start BETWEEN 0 AND 1439),
            quiet_end integer CHECK (quiet_end BETWEEN 0 AND 1439),
            reminder_lead_minutes integer NOT NULL DEFAULT 0 CHECK (reminder_lead_minutes BETWEEN 0 AND 10080),
            CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_ms) WHERE status = 'pending';
        CREATE INDEX webhook_deliveries_user ON webhook_deliveries (user_id, pk);
        CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_seq);
        """)
}
