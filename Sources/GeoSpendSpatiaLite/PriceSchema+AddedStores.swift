import GRDB

/// Migration v31 (issue 38): a price record names a shared store or one of its own user's added
/// stores, never both, never neither.
///
/// - `store_id` (the registry's, now nullable) or `user_store_number` (the N of the user's
///   `mine-N`): `CHECK ((store_id IS NULL) <> (user_store_number IS NULL))`.
/// - `FOREIGN KEY (user_id, user_store_number) → user_stores(user_id, number)`: the pair holds the
///   record's own user, so the file itself refuses a record of alice naming bob's `mine-1`.
/// - SQLite cannot drop a NOT NULL nor add a table constraint, so the table is rebuilt (new
///   table, copy, drop, rename, indexes and triggers again; https://sqlite.org/lang_altertable.html,
///   "Making Other Kinds Of Table Schema Changes"), inside the migrations' one transaction.
///   Foreign keys stay on in that transaction (the pragma cannot change inside one), so dropping
///   the old table runs `community_posts.price_record_pk`'s `ON DELETE SET NULL`: the links are
///   kept aside and put back, the pks being copied as they were.
enum AddedStorePriceSchema {
    /// The columns every version since v27 has, in their order; the new one comes last.
    static let columns = """
        pk, user_id, product_id, store_id, price_minor, currency, quantity, unit, recorded_at, recorded_ms, utc_offset_min, \
        local_date, source, content_hash, receipt_id, created_at, updated_at
        """

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TEMP TABLE v31_feed_links AS SELECT id, price_record_pk FROM community_posts WHERE price_record_pk IS NOT NULL;
            CREATE TABLE price_records_v31 (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                product_id INTEGER NOT NULL REFERENCES products(id),
                store_id TEXT REFERENCES stores(id) ON DELETE CASCADE ON UPDATE CASCADE,
                price_minor BIGINT NOT NULL CHECK (price_minor > 0),
                currency TEXT NOT NULL CHECK (length(currency) = 3),
                quantity REAL NOT NULL CHECK (quantity > 0),
                unit TEXT NOT NULL CHECK (unit = 'pcs' OR unit = 'kg' OR unit = 'g' OR unit = 'l' OR unit = 'ml'),
                recorded_at TEXT NOT NULL,
                recorded_ms BIGINT NOT NULL,
                utc_offset_min INTEGER,
                local_date TEXT NOT NULL,
                source TEXT NOT NULL CHECK (source = 'receipt' OR source = 'manual' OR source = 'import'),
                content_hash BIGINT NOT NULL,
                receipt_id TEXT,
                created_at TEXT,
                updated_at TEXT,
                user_store_number BIGINT,
                CHECK ((store_id IS NULL) <> (user_store_number IS NULL)),
                FOREIGN KEY (user_id, user_store_number) REFERENCES user_stores(user_id, number) ON DELETE CASCADE ON UPDATE CASCADE,
                UNIQUE (user_id, content_hash)
            );
            INSERT INTO price_records_v31 (\(columns)) SELECT \(columns) FROM price_records;
            DROP TABLE price_records;
            ALTER TABLE price_records_v31 RENAME TO price_records;
            CREATE INDEX price_records_product ON price_records(product_id, local_date);
            CREATE INDEX price_records_store ON price_records(store_id, product_id, local_date);
            CREATE INDEX price_records_receipt ON price_records(user_id, receipt_id) WHERE receipt_id IS NOT NULL;
            CREATE INDEX price_records_user_store ON price_records(user_id, user_store_number) WHERE user_store_number IS NOT NULL;
            \(ProductStoreSchema.timeTriggers("price_records"))
            UPDATE community_posts SET price_record_pk = (SELECT k.price_record_pk FROM v31_feed_links AS k WHERE k.id = community_posts.id)
            WHERE id IN (SELECT id FROM v31_feed_links);
            DROP TABLE v31_feed_links;
            """)
    }
}
