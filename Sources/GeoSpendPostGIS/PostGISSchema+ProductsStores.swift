/// Migration v18: issue 38's "products, stores and corrections", as the file's v27
/// (Sources/GeoSpendSpatiaLite/ProductStoreSchema.swift).
///
/// - `created_at`/`updated_at` on `products`, `price_records`, `periods` and `categories`, UTC
///   text of the server's clock (`nowSQL`: the transaction's start, to the millisecond). The
///   columns are added without a default and the default set afterwards, so rows older than
///   the migration keep NULL (as on the file) while every later insert, `COPY` included, gets
///   the time; a trigger stamps `updated_at` on an update that leaves it as it was. The
///   trigger function is one line: `simple` splits a migration at `;` + newline.
/// - `product_tags`, `product_tag_links`, `product_marks`: the file's tables, each keyed by user.
extension PostGISSchema {
    static let productsAndStores = Migration(identifier: "v18: products and stores", sql: """
        CREATE FUNCTION geospend_stamp_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN NEW.updated_at := \(PostGISStore.nowSQL); END IF; RETURN NEW; END $$;
        \(["products", "price_records", "periods", "categories"].map { table in """
            ALTER TABLE \(table) ADD COLUMN created_at text COLLATE "C", ADD COLUMN updated_at text COLLATE "C";
            ALTER TABLE \(table) ALTER COLUMN created_at SET DEFAULT \(PostGISStore.nowSQL),
                ALTER COLUMN updated_at SET DEFAULT \(PostGISStore.nowSQL);
            CREATE TRIGGER \(table)_updated BEFORE UPDATE ON \(table) FOR EACH ROW EXECUTE FUNCTION geospend_stamp_updated();
            """ }.joined(separator: "\n"))
        CREATE TABLE product_tags (
            pk bigserial PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            name text COLLATE "C" NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
            name_fold text COLLATE "C" NOT NULL,
            color text CHECK (color IS NULL OR length(color) = 7),
            UNIQUE (user_id, name_fold)
        );
        CREATE TABLE product_tag_links (
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            tag_pk bigint NOT NULL REFERENCES product_tags(pk) ON DELETE CASCADE,
            product_id bigint NOT NULL REFERENCES products(id) ON DELETE CASCADE,
            PRIMARY KEY (tag_pk, product_id)
        );
        CREATE INDEX product_tag_links_user ON product_tag_links (user_id, product_id);
        CREATE TABLE product_marks (
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            product_id bigint NOT NULL REFERENCES products(id) ON DELETE CASCADE,
            favourite boolean NOT NULL DEFAULT false,
            on_sale boolean NOT NULL DEFAULT false,
            PRIMARY KEY (user_id, product_id)
        );
        """)
}
