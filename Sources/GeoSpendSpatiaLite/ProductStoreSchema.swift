import GRDB

/// Issue 38's "products, stores and corrections" (migration v27).
///
/// - `created_at`/`updated_at` on `products`, `price_records`, `periods` and `categories`:
///   UTC text of SQLite's clock (`ExpenseLife.nowSQL`, `2026-03-05T10:00:00.000Z`), stamped by
///   triggers, so every writer (imports, receipts, the bulk writer, a restore) gets them without
///   naming them: an insert that leaves `created_at` NULL gets both; an update that leaves
///   `updated_at` as it was gets a new one (a cascaded user rename counts: the row changed).
///   A restore that writes the times itself keeps them. Rows older than the migration keep
///   NULL: no time was kept for them, and the migration's time would be a guess that looks
///   like a fact (docs/DOMAIN.md § Products and corrections).
/// - A user's view of the shared catalogue: `product_tags` (name, colour; unique per user by the
///   ASCII-folded name), `product_tag_links` (which of the user's products carry a tag) and
///   `product_marks` (favourite, on sale). Each row has its user, so `users delete` and `users
///   export` find them; a product that leaves the catalogue takes its links and marks with it.
enum ProductStoreSchema {
    static let timedTables = ["products", "price_records", "periods", "categories"]

    /// The triggers that stamp `table`'s `created_at`/`updated_at` (a rebuilt table makes them again).
    static func timeTriggers(_ table: String) -> String {
        let now = SpatiaLiteStore.nowSQL
        return """
            CREATE TRIGGER \(table)_created AFTER INSERT ON \(table) WHEN NEW.created_at IS NULL BEGIN
                UPDATE \(table) SET created_at = \(now), updated_at = coalesce(NEW.updated_at, \(now)) WHERE rowid = NEW.rowid;
            END;
            CREATE TRIGGER \(table)_updated AFTER UPDATE ON \(table) WHEN NEW.updated_at IS OLD.updated_at BEGIN
                UPDATE \(table) SET updated_at = \(now) WHERE rowid = NEW.rowid;
            END;
            """
    }

    static func create(_ db: Database) throws {
        for table in timedTables {
            // With recursive triggers off (SQLite's default) neither UPDATE fires its own trigger
            // again; the insert's sets updated_at, so the update trigger's WHEN is false for it.
            try db.execute(sql: """
                ALTER TABLE \(table) ADD COLUMN created_at TEXT;
                ALTER TABLE \(table) ADD COLUMN updated_at TEXT;
                \(timeTriggers(table))
                """)
        }
        try db.execute(sql: """
            CREATE TABLE product_tags (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
                name_fold TEXT NOT NULL,
                color TEXT CHECK (color IS NULL OR length(color) = 7),
                UNIQUE (user_id, name_fold)
            );
            CREATE TABLE product_tag_links (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                tag_pk INTEGER NOT NULL REFERENCES product_tags(pk) ON DELETE CASCADE,
                product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
                PRIMARY KEY (tag_pk, product_id)
            );
            CREATE INDEX product_tag_links_user ON product_tag_links(user_id, product_id);
            CREATE TABLE product_marks (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                product_id INTEGER NOT NULL REFERENCES products(id) ON DELETE CASCADE,
                favourite INTEGER NOT NULL DEFAULT 0 CHECK (favourite IN (0, 1)),
                on_sale INTEGER NOT NULL DEFAULT 0 CHECK (on_sale IN (0, 1)),
                PRIMARY KEY (user_id, product_id)
            );
            """)
    }
}
