/// Migration v6: the shared product catalogue and each user's price records, the tables of the
/// file's migration v8 (Sources/GeoSpendSpatiaLite/PriceSchema.swift) with the same columns,
/// CHECKs and keys.
///
/// - `products` has no user column: like `stores` it is everyone's (a reference table, were
///   the tables distributed with Citus). `barcode` is unique: one code, one product.
/// - Products' `id` and records' `pk` are given by GeoSpend as the largest plus one, under the
///   writers' lock, which is SQLite's rule for an `INTEGER PRIMARY KEY`: a sequence would skip
///   the numbers a rolled-back import drew, and `products` would then show other ids than the
///   file for the same commands.
/// - `price_records.user_id` is the distribution column; its key holds it, as Citus needs.
///   A record of a deleted store goes with it, as on the file.
/// - `UNIQUE (user_id, content_hash)`: a re-import is a no-op (`PriceEntry.contentHash`).
/// - Product names compare and sort by bytes (`COLLATE "C"`), as SQLite's text does.
extension PostGISSchema {
    static let pricesSQL = """
        CREATE TABLE products (
            id bigint PRIMARY KEY,
            name text COLLATE "C" NOT NULL CHECK (char_length(name) BETWEEN 1 AND 4096),
            normalized_name text COLLATE "C" NOT NULL,
            brand text COLLATE "C",
            category text COLLATE "C" NOT NULL DEFAULT 'Other',
            barcode text COLLATE "C" UNIQUE,
            default_unit text NOT NULL DEFAULT 'pcs' CHECK (default_unit IN ('pcs', 'kg', 'g', 'l', 'ml'))
        );
        CREATE INDEX products_normalized_name ON products (normalized_name);
        CREATE TABLE price_records (
            pk bigint NOT NULL,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            product_id bigint NOT NULL REFERENCES products(id),
            store_id text COLLATE "C" NOT NULL REFERENCES stores(id) ON DELETE CASCADE ON UPDATE CASCADE,
            price_minor bigint NOT NULL CHECK (price_minor > 0),
            currency text NOT NULL CHECK (length(currency) = 3),
            quantity double precision NOT NULL CHECK (quantity > 0),
            unit text NOT NULL CHECK (unit IN ('pcs', 'kg', 'g', 'l', 'ml')),
            recorded_at text NOT NULL,
            recorded_ms bigint NOT NULL,
            utc_offset_min integer,
            local_date text COLLATE "C" NOT NULL,
            source text NOT NULL CHECK (source IN ('receipt', 'manual', 'import')),
            content_hash bigint NOT NULL,
            PRIMARY KEY (pk, user_id),
            UNIQUE (user_id, content_hash)
        );
        CREATE INDEX price_records_product ON price_records (product_id, local_date);
        CREATE INDEX price_records_store ON price_records (store_id, product_id, local_date);
        """
}
