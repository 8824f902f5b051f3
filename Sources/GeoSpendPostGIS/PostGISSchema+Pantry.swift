/// Migration v16: pantry items and shopping-list items checked one at a time (as the file's
/// v25, Sources/GeoSpendSpatiaLite/PantryStorage.swift and ShoppingListStorage.swift).
extension PostGISSchema {
    static let pantry = Migration(identifier: "v16: pantry", sql: """
        CREATE TABLE pantry_items (
            pk bigserial PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            number bigint NOT NULL CHECK (number > 0),
            name text NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
            quantity text,
            expires text COLLATE "C" CHECK (expires IS NULL OR length(expires) = 10),
            status text COLLATE "C" NOT NULL CHECK (status IN ('open', 'used', 'discarded')),
            created_at text COLLATE "C" NOT NULL,
            closed_at text COLLATE "C" CHECK ((closed_at IS NULL) = (status = 'open')),
            UNIQUE (user_id, number)
        );
        CREATE INDEX pantry_items_open_expires ON pantry_items (expires) WHERE status = 'open';
        CREATE TABLE pantry_numbers (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            last bigint NOT NULL
        );
        ALTER TABLE shopping_list_items ADD COLUMN checked_expense_id text COLLATE "C";
        ALTER TABLE shopping_list_items ADD COLUMN checked_price_id bigint;
        ALTER TABLE shopping_list_items ADD COLUMN checked_paid_minor bigint CHECK (checked_paid_minor > 0);
        ALTER TABLE shopping_lists ADD COLUMN checks bigint NOT NULL DEFAULT 0;
        """)

    /// Migration v21: where a pantry item came from and the purchase that made it (as the file's
    /// v30, Sources/GeoSpendSpatiaLite/PantryStorage.swift `addSources`).
    static let pantrySources = Migration(identifier: "v21: pantry items from purchases: a source and the purchase", sql: """
        ALTER TABLE pantry_items ADD COLUMN source text COLLATE "C" NOT NULL DEFAULT 'hand' CHECK (source IN ('hand', 'list', 'receipt'));
        ALTER TABLE pantry_items ADD COLUMN purchase_id text COLLATE "C";
        ALTER TABLE pantry_items ADD CONSTRAINT pantry_items_purchase_check CHECK ((purchase_id IS NULL) = (source = 'hand'));
        CREATE INDEX pantry_items_purchase ON pantry_items (user_id, purchase_id) WHERE purchase_id IS NOT NULL;
        """)
}
