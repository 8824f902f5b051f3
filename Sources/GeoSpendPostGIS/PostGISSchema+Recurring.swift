/// Migration v14: recurring rules (as the file's v23, Sources/GeoSpendSpatiaLite/RecurringStorage.swift).
extension PostGISSchema {
    static let recurring = Migration(identifier: "v14: recurring rules", sql: """
        CREATE TABLE recurring_rules (
            pk bigserial PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            number bigint NOT NULL CHECK (number > 0),
            kind text NOT NULL CHECK (kind IN ('expense', 'income', 'transfer')),
            amount_minor bigint NOT NULL CHECK (amount_minor > 0),
            currency text COLLATE "C" NOT NULL,
            title text, category text, merchant text, store_id text COLLATE "C", notes text,
            every text COLLATE "C" NOT NULL,
            anchor_date text COLLATE "C" NOT NULL,
            until_date text COLLATE "C" CHECK (until_date IS NULL OR until_date >= anchor_date),
            next_due text COLLATE "C",
            created_at text COLLATE "C" NOT NULL,
            updated_at text COLLATE "C" NOT NULL,
            UNIQUE (user_id, number)
        );
        CREATE TABLE recurring_numbers (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            last bigint NOT NULL
        );
        """)
}
