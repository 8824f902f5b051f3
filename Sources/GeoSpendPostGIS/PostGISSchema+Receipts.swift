/// Migration v12 (issue 42 §2): receipts kept as records and price records pointing at theirs,
/// the file's migration v21 (Sources/GeoSpendSpatiaLite/ReceiptSchema.swift) with the same
/// columns and CHECKs; the photo is `bytea`. `price_records.receipt_id` has no foreign key, as
/// on the file: deleting a receipt (or its expense) deletes its records in the same transaction.
extension PostGISSchema {
    static let receipts = Migration(identifier: "v12: receipts", sql: """
        CREATE TABLE receipts (
            pk bigserial PRIMARY KEY,
            id text COLLATE "C" NOT NULL,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            store_id text COLLATE "C" REFERENCES stores(id) ON DELETE SET NULL ON UPDATE CASCADE,
            receipt_date text,
            receipt_time text,
            total_minor bigint,
            currency text NOT NULL CHECK (length(currency) = 3),
            image_sha256 text,
            image_name text,
            image bytea,
            text text NOT NULL,
            status text NOT NULL CHECK (status IN ('ok', 'needs_review')),
            problems text NOT NULL DEFAULT '[]',
            items text NOT NULL DEFAULT '[]',
            expense_id text COLLATE "C",
            created_at text NOT NULL,
            UNIQUE (user_id, id)
        );
        ALTER TABLE price_records ADD COLUMN receipt_id text COLLATE "C";
        CREATE INDEX price_records_receipt ON price_records (user_id, receipt_id) WHERE receipt_id IS NOT NULL;
        """)
}
