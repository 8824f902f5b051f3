import GRDB

/// Issue 18's tables (migration v8): the shared product catalogue and each user's price records.
///
/// - `products` has no user column: like `stores` it is shared, so `users delete` (which finds
///   tables by a `user_id` column) leaves it, and removes afterwards the products no remaining
///   record refers to (`SpatiaLiteStore.deleteUser`). `barcode` is unique: one code, one product.
/// - `price_records.user_id` cascades, on update too (`doctor --repair` renames a user id to
///   NFC). A record of a deleted store goes with it: a price nowhere is no price.
/// - Money in minor units and times in milliseconds are BIGINT for GDAL (`Integer64Columns`);
///   the recorded time keeps its text, offset and local day as expenses do.
/// - `UNIQUE (user_id, content_hash)`: a re-import is a no-op (`PriceEntry.contentHash`).
enum PriceSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE products (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 4096),
                normalized_name TEXT NOT NULL,
                brand TEXT,
                category TEXT NOT NULL DEFAULT 'Other',
                barcode TEXT UNIQUE,
                default_unit TEXT NOT NULL DEFAULT 'pcs'
                    CHECK (default_unit = 'pcs' OR default_unit = 'kg' OR default_unit = 'g' OR default_unit = 'l' OR default_unit = 'ml')
            );
            CREATE INDEX products_normalized_name ON products(normalized_name);
            CREATE TABLE price_records (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                product_id INTEGER NOT NULL REFERENCES products(id),
                store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE ON UPDATE CASCADE,
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
                UNIQUE (user_id, content_hash)
            );
            CREATE INDEX price_records_product ON price_records(product_id, local_date);
            CREATE INDEX price_records_store ON price_records(store_id, product_id, local_date);
            """)
    }
}
