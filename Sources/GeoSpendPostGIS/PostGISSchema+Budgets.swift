/// Migration v3: budgets and their category limits (as the file's v7). Money in minor units;
/// a zone is a centre and radius or GeoJSON text, never both (budgets test zones in Swift,
/// `BudgetZone.Matcher`, so no geography column). `number` is the id users see, numbered per
/// user and never reused (`budget_numbers`). A limit's key holds `user_id`, the distribution
/// column, with its budget's: a limit is always of its budget's user.
extension PostGISSchema {
    static let budgets = Migration(identifier: "v3: budgets and their category limits", sql: """
        CREATE TABLE budgets (
            pk bigserial PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            number bigint NOT NULL CHECK (number > 0),
            name text NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
            amount_minor bigint NOT NULL CHECK (amount_minor > 0),
            currency text NOT NULL CHECK (length(currency) = 3),
            from_date text COLLATE "C" NOT NULL,
            to_date text COLLATE "C" NOT NULL CHECK (from_date < to_date),
            category text,
            every text CHECK (every IN ('week', 'month', 'year')),
            zone_lat double precision CHECK (zone_lat BETWEEN -90 AND 90),
            zone_lon double precision CHECK (zone_lon BETWEEN -180 AND 180),
            zone_radius_m double precision CHECK (zone_radius_m > 0),
            zone_geojson text,
            is_active boolean NOT NULL DEFAULT true,
            created_at text NOT NULL,
            CHECK ((zone_lat IS NULL) = (zone_lon IS NULL) AND (zone_lat IS NULL) = (zone_radius_m IS NULL)),
            CHECK (zone_lat IS NULL OR zone_geojson IS NULL),
            UNIQUE (user_id, number),
            UNIQUE (user_id, pk)
        );
        CREATE INDEX budgets_user ON budgets (user_id, is_active, from_date);
        CREATE TABLE budget_numbers (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            last bigint NOT NULL
        );
        CREATE TABLE budget_category_limits (
            budget_id bigint NOT NULL,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            category text COLLATE "C" NOT NULL,
            amount_minor bigint NOT NULL CHECK (amount_minor > 0),
            PRIMARY KEY (user_id, budget_id, category),
            FOREIGN KEY (user_id, budget_id) REFERENCES budgets (user_id, pk) ON DELETE CASCADE
        );
        """)
}
