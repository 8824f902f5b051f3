import GRDB
import GeoSpend

/// The database schema as numbered migrations, recorded in GRDB's `grdb_migrations` table.
///
/// Spatial parts use SpatiaLite's own functions so the file is a standard SpatiaLite database:
/// `AddGeometryColumn` registers `expenses.geom` and `stores.geom` (POINT, SRID 4326) in
/// `geometry_columns`, and `CreateSpatialIndex` builds the R*Trees `idx_expenses_geom` and
/// `idx_stores_geom` with SpatiaLite's triggers keeping them in step. Plain `lat`/`lon` columns
/// sit next to each geometry so queries never parse a geometry blob.
///
/// Every pending migration, SpatiaLite's metadata included, runs in one `BEGIN IMMEDIATE`
/// transaction: an interrupted or failed migration (a kill, a full disk) leaves the file as it
/// was, and two processes migrating at once take turns through the busy handler, the second
/// finding the work done. (GRDB's `DatabaseMigrator` read the applied migrations before taking
/// the write lock and committed each migration on its own.)
enum Schema {
    /// Runs the migrations that are not applied yet. An up-to-date file is only read, so opening it
    /// never waits for another process's import to finish.
    static func migrate(_ pool: DatabasePool) throws {
        if try isCurrent(pool) { return }
        try pool.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try applyPending(db)
                return .commit
            }
        }
    }

    /// Applies what is missing inside the caller's write transaction, reading what is applied
    /// under the write lock.
    static func applyPending(_ db: Database) throws {
        var isNew = false
        if try !db.tableExists("spatial_ref_sys") {
            // 0: no transaction of its own (1 would BEGIN one, which fails inside ours). SpatiaLite
            // prints its SQL errors to stderr; ours say the same in one line. A full disk aborts
            // the transaction under it, which the caller sees (`FirstOpen`: disk full).
            // 'WGS84': spatial_ref_sys gets the WGS 84 systems (129 rows) instead of all 6,215;
            // GeoSpend stores SRID 4326 only. In the sqlite3 shell a new file then took ~40 ms
            // less CPU and 6.3 MB less written; the tests make many new files (the effect on a
            // whole run is not measured).
            let done = try SpatiaLiteExtension.quietly { try Int.fetchOne(db, sql: "SELECT InitSpatialMetadata(0, 'WGS84')") }
            guard done == 1, db.isInsideTransaction else {
                throw StoreError.cannotOpen(path: db.description, reason: "SpatiaLite's InitSpatialMetadata failed")
            }
            isNew = true
        }
        // A file this transaction just initialised gets the squashed schema (`SquashedSchema`) and
        // then only the migrations newer than it; any other file, every pending migration.
        if isNew, versions.starts(with: SquashedSchema.versions) {
            try db.execute(sql: SquashedSchema.sql)
        }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        for migration in migrations where !applied.contains(migration.identifier) {
            try migration.apply(db)
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
        }
    }

    /// GeoSpend's secondary indexes as the migrations leave them, for `doctor --repair`.
    static let secondaryIndexSQL: [(name: String, sql: String)] = [
        ("stores_kind", "CREATE INDEX stores_kind ON stores(kind)"),
        ("expenses_user_time", "CREATE INDEX expenses_user_time ON expenses(\(Schema.userTimeColumns))"),
        ("expenses_user_place", "CREATE INDEX expenses_user_place ON expenses(user_id, lat, lon, kind, currency, amount_minor) WHERE lat IS NOT NULL"),
        ("expenses_store", "CREATE INDEX expenses_store ON expenses(store_id) WHERE store_id IS NOT NULL"),
        ("expenses_category", "CREATE INDEX expenses_category ON expenses(category_id) WHERE category_id IS NOT NULL"),
        ("expenses_user_reminder", "CREATE INDEX expenses_user_reminder ON expenses(user_id, remind_ms) WHERE remind_ms IS NOT NULL"),
        ("expenses_period", "CREATE INDEX expenses_period ON expenses(period_id) WHERE period_id IS NOT NULL"),
        ("stores_label", "CREATE INDEX stores_label ON stores(\(Schema.storeLabelColumns))"),
    ]

    /// Whether every migration is applied.
    static func isCurrent(_ reader: some DatabaseReader) throws -> Bool {
        try reader.read { db in
            guard try db.tableExists("grdb_migrations") else { return false }
            let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
            return versions.allSatisfy(applied.contains)
        }
    }

    /// The migrations' identifiers, oldest first: the schema version is the last applied one.
    static var versions: [String] { migrations.map(\.identifier) }

    /// Refuses to touch a file that holds another program's data, or GeoSpend data of a newer
    /// schema. An empty file, or one with only SpatiaLite's metadata (left by a first open of an
    /// older GeoSpend that was interrupted), is fine to initialise; so is an older schema version.
    static func checkOwnership(of reader: some DatabaseReader, path: String) throws {
        try reader.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            // Older GeoSpends (GRDB's migrator) created grdb_migrations before the first
            // migration's transaction: empty, it means a first open was interrupted.
            let applied = tables.contains("grdb_migrations")
                ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : []
            if !applied.isEmpty {
                guard applied.contains(versions[0]) else {
                    throw StoreError.notAGeoSpendDatabase(path: path, reason: "its migrations are another program's")
                }
                let unknown = applied.filter { !versions.contains($0) }
                if !unknown.isEmpty { throw StoreError.newerSchema(path: path, unknown: unknown) }
                return
            }
            let foreign = tables.filter { !isSpatiaLiteMetadata($0) && $0 != "grdb_migrations" }.sorted()
            if !foreign.isEmpty {
                throw StoreError.notAGeoSpendDatabase(
                    path: path, reason: "it holds other tables (\(foreign.prefix(3).joined(separator: ", "))) and no GeoSpend schema")
            }
        }
    }

    /// Tables `InitSpatialMetadata(1)` creates (SpatiaLite 5.0.1), and SQLite's own.
    private static func isSpatiaLiteMetadata(_ table: String) -> Bool {
        let prefixes = [
            "sqlite_", "spatial_ref_sys", "geometry_columns", "views_geometry_columns", "virts_geometry_columns",
            "spatialite_history", "sql_statements_log", "SpatialIndex", "ElementaryGeometries", "KNN", "data_licenses",
            "ISO_metadata", "idx_ISO_metadata", "SE_", "raster_coverages", "vector_coverages", "rl2map", "wms_",
            "networks", "topologies", "stored_procedures", "stored_variables",
        ]
        return prefixes.contains { table.hasPrefix($0) }
    }

    /// One schema change; it must run inside a transaction (`applyPending`).
    struct Migration: Sendable {
        let identifier: String
        let apply: @Sendable (Database) throws -> Void
    }

    static let migrations: [Migration] = [
        Migration(identifier: "v1: users, categories, stores, expenses") { db in
            try db.execute(sql: """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY NOT NULL,
                    display_name TEXT,
                    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
                );
                CREATE TABLE categories (
                    id INTEGER PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('expense', 'income')),
                    name TEXT NOT NULL,
                    UNIQUE (user_id, kind, name COLLATE NOCASE)
                );
                CREATE TABLE stores (
                    pk INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT,
                    kind TEXT,
                    brand TEXT,
                    street TEXT,
                    postcode TEXT,
                    city TEXT,
                    country TEXT,
                    source_id TEXT,
                    lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                    lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
                    content_hash INTEGER NOT NULL
                );
                CREATE INDEX stores_kind ON stores(kind);
                CREATE TABLE expenses (
                    pk INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('expense', 'income', 'transfer')),
                    amount_minor INTEGER NOT NULL CHECK (amount_minor > 0),
                    currency TEXT NOT NULL CHECK (length(currency) = 3),
                    occurred_at TEXT NOT NULL,
                    occurred_ms INTEGER NOT NULL,
                    utc_offset_min INTEGER,
                    local_date TEXT NOT NULL,
                    title TEXT,
                    category_id INTEGER REFERENCES categories(id) ON DELETE SET NULL,
                    merchant TEXT,
                    lat REAL CHECK (lat BETWEEN -90 AND 90),
                    lon REAL CHECK (lon BETWEEN -180 AND 180),
                    accuracy_m REAL CHECK (accuracy_m >= 0),
                    store_id TEXT REFERENCES stores(id) ON DELETE SET NULL,
                    notes TEXT,
                    content_hash INTEGER NOT NULL,
                    CHECK ((lat IS NULL) = (lon IS NULL))
                );
                CREATE INDEX expenses_user_time ON expenses(user_id, occurred_ms);
                -- A user's geotagged expenses ordered by latitude: user-scoped radius queries read
                -- only that user's points in the circle's latitude band (see SpatialQueries).
                CREATE INDEX expenses_user_place ON expenses(user_id, lat, lon) WHERE lat IS NOT NULL;
                CREATE INDEX expenses_store ON expenses(store_id) WHERE store_id IS NOT NULL;
                CREATE INDEX expenses_category ON expenses(category_id) WHERE category_id IS NOT NULL;
                """)
            for table in ["stores", "expenses"] {
                let added = try Int.fetchOne(db, sql: "SELECT AddGeometryColumn(?, 'geom', 4326, 'POINT', 'XY')", arguments: [table])
                guard added == 1 else { throw StoreError.cannotOpen(path: table, reason: "AddGeometryColumn failed") }
                let indexed = try Int.fetchOne(db, sql: "SELECT CreateSpatialIndex(?, 'geom')", arguments: [table])
                guard indexed == 1 else { throw StoreError.cannotOpen(path: table, reason: "CreateSpatialIndex failed") }
            }
        },
        Migration(identifier: "v2: expenses_user_place covers map exports") { db in
            // The same (user_id, lat, lon) prefix the user-scoped radius search walks, plus what
            // grids, density surfaces and layer extents read: an all-users heat map scans this
            // narrow index instead of the wide table rows (~10× fewer bytes).
            try db.execute(sql: """
                DROP INDEX expenses_user_place;
                CREATE INDEX expenses_user_place ON expenses(user_id, lat, lon, kind, currency, amount_minor)
                    WHERE lat IS NOT NULL;
                """)
        },
        Migration(identifier: "v3: expenses.kind check by comparisons") { db in
            // SQLite 3.40 checks `kind IN ('expense', 'income', 'transfer')` (three constants or
            // more) by building a temporary B-tree for every inserted row (EXPLAIN: OpenEphemeral);
            // comparisons say the same at ~14 % less time for a 100k-row import. Every stored row
            // satisfies both forms, so only the schema text changes: SQLite's documented way to
            // alter a CHECK ("Making Other Kinds Of Table Schema Changes", lang_altertable.html).
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(
                sql: "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'expenses'",
                arguments: [
                    "CHECK (kind IN ('expense', 'income', 'transfer'))",
                    "CHECK (kind = 'expense' OR kind = 'income' OR kind = 'transfer')",
                ])
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
        },
        Migration(identifier: "v4: 64-bit integer columns declared BIGINT") { db in
            // GDAL, QGIS and geopandas read a declared INTEGER as 32-bit and clamp amounts, times
            // and hashes past 2^31 − 1; the why and the how are in `Integer64Columns`.
            try Integer64Columns.declare(db)
        },
        Migration(identifier: "v5: an expense's life: times, reminders; category icon, colour, default, active") { db in
            // Rows stored before have no known creation time: NULL, not the migration's time.
            // `remind_ms` (the reminder's instant) is BIGINT for GDAL, as in v4; `remind_at`
            // keeps the text with its offset. Categories stay active; the defaults are marked.
            try db.execute(sql: """
                ALTER TABLE expenses ADD COLUMN created_at TEXT;
                ALTER TABLE expenses ADD COLUMN updated_at TEXT;
                ALTER TABLE expenses ADD COLUMN remind_at TEXT;
                ALTER TABLE expenses ADD COLUMN remind_ms BIGINT;
                CREATE INDEX expenses_user_reminder ON expenses(user_id, remind_ms) WHERE remind_ms IS NOT NULL;
                ALTER TABLE categories ADD COLUMN icon TEXT;
                ALTER TABLE categories ADD COLUMN color TEXT;
                ALTER TABLE categories ADD COLUMN is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default = 0 OR is_default = 1);
                ALTER TABLE categories ADD COLUMN is_active INTEGER NOT NULL DEFAULT 1 CHECK (is_active = 0 OR is_active = 1);
                """)
            for c in GeoSpend.Category.defaults {
                try db.execute(
                    sql: "UPDATE categories SET is_default = 1 WHERE kind = ? AND name = ?", arguments: [c.kind.rawValue, c.name])
            }
        },
        Migration(identifier: "v6: periods") { db in
            try PeriodSchema.create(db)
        },
        Migration(identifier: "v7: budgets and their category limits") { db in
            // Issue 17's budgets, keyed by user (users export/delete find them by user_id).
            // Money in minor units, BIGINT for GDAL (see Integer64Columns). A zone is a centre
            // and radius, or a GeoJSON MultiPolygon (BudgetZone), never both. `number` is the id
            // users see, numbered per user and never reused, as periods are (`UserNumbers`):
            // one user's ids say nothing about another's, and a script holding "budget 3" never
            // reaches a newer budget after 3 is deleted. User keys cascade on update too:
            // `doctor --repair` renames a user id to NFC.
            try db.execute(sql: """
                CREATE TABLE budgets (
                    pk INTEGER PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                    number BIGINT NOT NULL CHECK (number > 0),
                    -- 1–100 grapheme clusters (DisplayName) can be more code points: the bound is wide.
                    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
                    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
                    currency TEXT NOT NULL CHECK (length(currency) = 3),
                    from_date TEXT NOT NULL,
                    to_date TEXT NOT NULL CHECK (from_date < to_date),
                    category TEXT,
                    every TEXT CHECK (every = 'week' OR every = 'month' OR every = 'year'),
                    zone_lat REAL CHECK (zone_lat BETWEEN -90 AND 90),
                    zone_lon REAL CHECK (zone_lon BETWEEN -180 AND 180),
                    zone_radius_m REAL CHECK (zone_radius_m > 0),
                    zone_geojson TEXT,
                    is_active INTEGER NOT NULL DEFAULT 1,
                    created_at TEXT NOT NULL,
                    CHECK ((zone_lat IS NULL) = (zone_lon IS NULL) AND (zone_lat IS NULL) = (zone_radius_m IS NULL)),
                    CHECK (zone_lat IS NULL OR zone_geojson IS NULL),
                    UNIQUE (user_id, number)
                );
                CREATE INDEX budgets_user ON budgets(user_id, is_active, from_date);
                CREATE TABLE budget_numbers (
                    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                    last BIGINT NOT NULL
                );
                CREATE TABLE budget_category_limits (
                    budget_id INTEGER NOT NULL REFERENCES budgets(pk) ON DELETE CASCADE,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                    category TEXT NOT NULL,
                    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
                    PRIMARY KEY (budget_id, category)
                );
                CREATE INDEX budget_category_limits_user ON budget_category_limits(user_id);
                """)
        },
        Migration(identifier: "v8: products and price records") { db in
            try PriceSchema.create(db)
        },
        Migration(identifier: "v11: shopping lists") { db in
            try ShoppingListSchema.create(db)
        },
        Migration(identifier: "v12: API tokens") { db in
            try TokenSchema.create(db)
        },
        Migration(identifier: "v13: map rollups") { db in
            try MapRollupStorage.create(db)
        },
        Migration(identifier: "v14: map cell rollups") { db in
            try MapRollupStorage.createCells(db)
        },
        Migration(identifier: "v15: expenses_user_time covers one user's rows") { db in
            // One user's rows for insights, summaries and budgets come from the index alone: no
            // table seek per row (half of an insights call, session 10), the user's entries side
            // by side on a few pages instead of one table page each. Same name and key, so every
            // `INDEXED BY expenses_user_time` and the rowid-run probes keep working.
            try db.execute(sql: """
                DROP INDEX IF EXISTS expenses_user_time;  -- doctor repairs a file that lost it
                CREATE INDEX expenses_user_time ON expenses(\(userTimeColumns));
                """)
        },
        Migration(identifier: "v16: stores_label covers a store's label") { db in
            // Insights label every store a user visited: one seek in this index per store, not
            // the id index and then the table. Labels were ~45 % of "insights per store, one
            // user" on the 100k bench file (39 stores a user); this took the call from 1.06-1.11x
            // to 0.90-0.97x SpatiaLite's GROUP BY (Benchmarks/RESULTS.md, session 18).
            // `INDEXED BY stores_label`: for an equality on id the planner takes the unique id
            // index otherwise.
            try db.execute(sql: """
                DROP INDEX IF EXISTS stores_label;  -- one made by hand before v16 gets these columns
                CREATE INDEX stores_label ON stores(\(storeLabelColumns));
                """)
        },
        Migration(identifier: "v17: expense ids unique per user") { db in
            try PerUserExpenseIDs.migrate(db)
        },
        Migration(identifier: "v18: location history, expense position provenance") { db in
            try PositionSchema.create(db)
        },
        Migration(identifier: "v19: user settings") { db in
            try UserSettingsSchema.create(db)
        },
        Migration(identifier: "v20: notifications outbox, webhooks") { db in
            try NotificationSchema.create(db)
        },
        Migration(identifier: "v21: receipts") { db in
            try ReceiptSchema.create(db)
        },
        Migration(identifier: "v22: budget thresholds") { db in
            // Issue 39's per-budget thresholds (`BudgetThresholds`), as `80,100`: every budget
            // made before keeps the thresholds it raised events at.
            try db.execute(sql: "ALTER TABLE budgets ADD COLUMN thresholds TEXT NOT NULL DEFAULT '80,100' CHECK (length(thresholds) BETWEEN 1 AND 60)")
        },
        Migration(identifier: "v23: recurring rules") { db in
            try RecurringSchema.create(db)
        },
        Migration(identifier: "v24: community") { db in
            try CommunitySchema.create(db)
        },
        Migration(identifier: "v25: pantry") { db in
            try PantrySchema.create(db)
            try ShoppingListSchema.addChecks(db)
        },
        Migration(identifier: "v26: user email") { db in
            // MONO's user has a name (display_name, from v1) and an email (issue 38).
            try db.execute(sql: "ALTER TABLE users ADD COLUMN email TEXT")
        },
        Migration(identifier: "v27: products and stores") { db in
            try ProductStoreSchema.create(db)
        },
        Migration(identifier: "v28: MONO's categories: a transfer kind, the defaults' icons and colours") { db in
            // A transfer category kind (issue 38): the CHECK widened by editing the schema text,
            // as v3 did (every stored row satisfies the wider one), then each transfer linked to
            // an expense category moves to the transfer category of the same name, made for it.
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(
                sql: "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'categories'",
                arguments: ["CHECK (kind IN ('expense', 'income'))", "CHECK (kind IN ('expense', 'income', 'transfer'))"])
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
            let widened = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'categories'") ?? ""
            guard widened.contains("'transfer'") else {
                throw StoreError.damaged(path: "", reason: "categories' kind check was not found to widen for the transfer kind: \(widened)")
            }
            try db.execute(sql: """
                INSERT INTO categories (user_id, kind, name)
                SELECT DISTINCT e.user_id, 'transfer', c.name FROM expenses AS e JOIN categories AS c ON c.id = e.category_id
                WHERE e.kind = 'transfer' AND c.kind = 'expense'
                ON CONFLICT DO NOTHING;
                UPDATE expenses SET category_id = (
                    SELECT t.id FROM categories AS c JOIN categories AS t
                        ON t.user_id = c.user_id AND t.kind = 'transfer' AND t.name = c.name COLLATE NOCASE
                    WHERE c.id = expenses.category_id)
                WHERE kind = 'transfer' AND category_id IN (SELECT id FROM categories WHERE kind = 'expense');
                """)
            // MONO's defaults look (`Category.defaultLooks`): existing users' default categories
            // get them unless the user gave one an icon or a colour already.
            for (category, look) in GeoSpend.Category.defaultLooks {
                try db.execute(
                    sql: """
                        UPDATE categories SET icon = ?, color = ?
                        WHERE is_default = 1 AND kind = ? AND name = ? AND icon IS NULL AND color IS NULL
                        """,
                    arguments: [look.icon, look.color, category.kind.rawValue, category.name])
            }
        },
        Migration(identifier: "v29: per-user stores: favourites, a default, added stores") { db in
            try StoreChoiceSchema.create(db)
        },
        Migration(identifier: "v30: pantry items from purchases: a source and the purchase") { db in
            try PantrySchema.addSources(db)
        },
        Migration(identifier: "v31: price records at a user's added stores") { db in
            try AddedStorePriceSchema.migrate(db)
        },
        Migration(identifier: "v32: receipts at a user's added stores") { db in
            try AddedStoreReceiptSchema.migrate(db)
        },
    ]

    /// The columns of `stores_label` (v16): the id, then what `SpatiaLiteReader.storeLabels` reads.
    static let storeLabelColumns = "id, name, kind, lat, lon"

    /// The columns of `expenses_user_time` (v15): the key (user, instant), then every column
    /// `SpatiaLiteReader.spendingPointQuery` reads or tests for one user, merchant aside.
    static let userTimeColumns = """
        user_id, occurred_ms, kind, currency, amount_minor, store_id, category_id, utc_offset_min, lat, lon, period_id, \
        id, occurred_at, local_date
        """
}
