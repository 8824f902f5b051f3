import GRDB

/// Migration v32 (issue 38): a receipt names a shared store (`store_id`), one of its own user's
/// added stores (`user_store_number`, the N of `mine-N`), or none yet; never both. The foreign
/// key holds the receipt's user, as `price_records`' (v31, PriceSchema+AddedStores.swift), and
/// the table is rebuilt for it the same way. Nothing refers to `receipts` by key.
enum AddedStoreReceiptSchema {
    static let columns = """
        pk, id, user_id, store_id, receipt_date, receipt_time, total_minor, currency, image_sha256, image_name, image, text, status, \
        problems, items, expense_id, created_at
        """

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE receipts_v32 (
                pk INTEGER PRIMARY KEY,
                id TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                store_id TEXT REFERENCES stores(id) ON DELETE SET NULL ON UPDATE CASCADE,
                receipt_date TEXT,
                receipt_time TEXT,
                total_minor BIGINT,
                currency TEXT NOT NULL CHECK (length(currency) = 3),
                image_sha256 TEXT,
                image_name TEXT,
                image BLOB,
                text TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status = 'ok' OR status = 'needs_review'),
                problems TEXT NOT NULL DEFAULT '[]',
                items TEXT NOT NULL DEFAULT '[]',
                expense_id TEXT,
                created_at TEXT NOT NULL,
                user_store_number BIGINT,
                CHECK (store_id IS NULL OR user_store_number IS NULL),
                FOREIGN KEY (user_id, user_store_number) REFERENCES user_stores(user_id, number) ON DELETE CASCADE ON UPDATE CASCADE,
                UNIQUE (user_id, id)
            );
            INSERT INTO receipts_v32 (\(columns)) SELECT \(columns) FROM receipts;
            DROP TABLE receipts;
            ALTER TABLE receipts_v32 RENAME TO receipts;
            CREATE INDEX receipts_user_store ON receipts(user_id, user_store_number) WHERE user_store_number IS NOT NULL;
            """)
    }
}
