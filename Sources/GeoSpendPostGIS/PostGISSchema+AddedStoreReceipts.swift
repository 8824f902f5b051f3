/// Migration v23: receipts at a user's added stores, as the file's v32
/// (Sources/GeoSpendSpatiaLite/ReceiptSchema+AddedStores.swift): a registry store, the
/// receipt's own user's added store, or none yet; never both.
extension PostGISSchema {
    static let addedStoreReceipts = Migration(identifier: "v23: receipts at a user's added stores", sql: """
        ALTER TABLE receipts
            ADD COLUMN user_store_number bigint,
            ADD CONSTRAINT receipts_one_store CHECK (store_id IS NULL OR user_store_number IS NULL),
            ADD CONSTRAINT receipts_user_store FOREIGN KEY (user_id, user_store_number)
                REFERENCES user_stores (user_id, number) ON DELETE CASCADE ON UPDATE CASCADE;
        CREATE INDEX receipts_user_store ON receipts (user_id, user_store_number) WHERE user_store_number IS NOT NULL;
        """)
}
