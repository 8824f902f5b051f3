/// Migration v22: price records at a user's added stores, as the file's v31
/// (Sources/GeoSpendSpatiaLite/PriceSchema+AddedStores.swift): a record names a registry store
/// (`store_id`, now nullable) or its own user's added store (`user_store_number`), exactly one;
/// the foreign key holds the record's user, so alice's record cannot name bob's `mine-1`.
/// PostgreSQL alters the table in place.
extension PostGISSchema {
    static let addedStorePrices = Migration(identifier: "v22: price records at a user's added stores", sql: """
        ALTER TABLE price_records
            ALTER COLUMN store_id DROP NOT NULL,
            ADD COLUMN user_store_number bigint,
            ADD CONSTRAINT price_records_one_store CHECK ((store_id IS NULL) <> (user_store_number IS NULL)),
            ADD CONSTRAINT price_records_user_store FOREIGN KEY (user_id, user_store_number)
                REFERENCES user_stores (user_id, number) ON DELETE CASCADE ON UPDATE CASCADE;
        CREATE INDEX price_records_user_store ON price_records (user_id, user_store_number) WHERE user_store_number IS NOT NULL;
        """)
}
