/// Migration v2: periods (as the file's v6, Sources/GeoSpendSpatiaLite/Periods.swift).
///
/// - `periods`: `number` is the id users see, unique per user; `period_numbers` keeps the last
///   number issued per user, so a deleted period's id is never given to a new one.
/// - `expenses.period_id`: the link. Its foreign key holds `user_id` (an expense's period is its
///   own user's, and the key holds the distribution column, as Citus needs); deleting a period
///   clears `period_id` alone. Added without a default: existing rows read NULL, no period.
extension PostGISSchema {
    static let periods = Migration(identifier: "v2: periods", sql: """
        CREATE TABLE periods (
            pk bigserial PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            number bigint NOT NULL CHECK (number > 0),
            name text NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
            start_date text COLLATE "C" NOT NULL,
            end_date text COLLATE "C" CHECK (end_date IS NULL OR end_date >= start_date),
            UNIQUE (user_id, number),
            UNIQUE (user_id, pk)
        );
        CREATE TABLE period_numbers (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            last bigint NOT NULL
        );
        ALTER TABLE expenses ADD COLUMN period_id bigint;
        ALTER TABLE expenses ADD CONSTRAINT expenses_period_fkey
            FOREIGN KEY (user_id, period_id) REFERENCES periods (user_id, pk) ON DELETE SET NULL (period_id);
        CREATE INDEX expenses_period ON expenses (period_id) WHERE period_id IS NOT NULL;
        """)
}
