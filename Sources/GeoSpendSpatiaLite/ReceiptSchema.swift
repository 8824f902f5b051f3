import GRDB

/// Migration v21 (issue 42 §2): receipts kept as records, and price records pointing at theirs.
///
/// - `receipts.id` is the receipt's and its expense's id, unique per user; `pk` orders the list
///   (its keyset cursor). `user_id` cascades as every user-keyed table (`users delete`).
/// - `store_id` is the registry's store; a deleted store leaves the receipt without one.
/// - `items` and `problems` are JSON: always read and written with their receipt, never queried
///   alone. `image` holds the photo's bytes only with `--keep-image`; `image_sha256` always.
/// - `price_records.receipt_id`: the receipt a record came from. No foreign key (SQLite cannot
///   add a two-column one to a table): `deleteReceipt` and `expenses delete` remove the records
///   in their transaction (ReceiptStorage.swift).
/// - Money in minor units is BIGINT for GDAL (`Integer64Columns`).
enum ReceiptSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE receipts (
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
                UNIQUE (user_id, id)
            );
            ALTER TABLE price_records ADD COLUMN receipt_id TEXT;
            CREATE INDEX price_records_receipt ON price_records(user_id, receipt_id) WHERE receipt_id IS NOT NULL;
            """)
    }
}
