/// Migration v7: shopping lists, the tables of the file's migration v11
/// (Sources/GeoSpendSpatiaLite/ShoppingListStorage.swift) with the same columns and CHECKs.
///
/// A list is keyed by its user and its number (the id users see, never reused:
/// `shopping_list_numbers`, as on the file), and its items by the list's key: every table
/// carries `user_id`, and every key and reference holds it, so the three could be distributed
/// by `user_id` with Citus and stay co-located.
extension PostGISSchema {
    static let shoppingListsSQL = """
        CREATE TABLE shopping_lists (
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            number bigint NOT NULL CHECK (number > 0),
            name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 400),
            budget_minor bigint NOT NULL CHECK (budget_minor > 0),
            currency text NOT NULL CHECK (length(currency) = 3),
            completed_expense_id text COLLATE "C",
            created_at text NOT NULL DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            PRIMARY KEY (user_id, number)
        );
        CREATE TABLE shopping_list_numbers (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            last bigint NOT NULL
        );
        CREATE TABLE shopping_list_items (
            user_id text COLLATE "C" NOT NULL,
            list_number bigint NOT NULL,
            position integer NOT NULL,
            name text NOT NULL CHECK (char_length(name) >= 1),
            packs bigint CHECK (packs > 0),
            dimension text CHECK (dimension IN ('mass', 'volume', 'count')),
            thousandths bigint CHECK (thousandths > 0),
            CHECK ((packs IS NULL) = (thousandths IS NOT NULL) AND (dimension IS NULL) = (thousandths IS NULL)),
            PRIMARY KEY (user_id, list_number, position),
            FOREIGN KEY (user_id, list_number) REFERENCES shopping_lists (user_id, number) ON DELETE CASCADE ON UPDATE CASCADE
        );
        """
}
