import GeoSpend
import Logging
import PostgresNIO

/// The tables of the PostgreSQL store, created and migrated in an existing database.
///
/// The same rows and rules as the SpatiaLite file (Sources/GeoSpendSpatiaLite/Schema.swift):
/// money as `bigint` minor units, the same CHECKs, ids unique (an expense's per user), the content hash kept for
/// deduplication. Positions are kept as the given `lat`/`lon` (`double precision`, exact) with a
/// generated `geography(Point, 4326)` column and its GiST index for the spatial candidates.
/// Ids and other keys are `COLLATE "C"`: they compare and sort by bytes, as SQLite's text does.
///
/// Every table that holds a user's rows has `user_id`: the distribution column, were the
/// tables spread over machines with Citus (docs/POSTGIS.md).
enum PostGISSchema {
    /// The advisory lock every write scope and migration takes: one writer at a time.
    static let writerLock: Int64 = 0x6765_6f73_7065_6e64  // "geospend"

    struct Migration {
        let identifier: String
        let sql: String
    }

    /// Folds ASCII letters only, as SQLite's NOCASE does (PostgreSQL's `lower` folds by locale).
    static func asciiFold(_ expression: String) -> String {
        "translate(\(expression), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
    }

    /// Expenses are spread over this many hash partitions of `user_id` (declarative
    /// partitioning): one user's rows sit in one partition, so a user's queries and deletion
    /// touch one table of an eighth of the rows, and vacuum works partition by partition. A
    /// partitioned table's unique keys must hold the partition key: `UNIQUE (id, user_id)`, which
    /// is the rule itself since ids became unique per user (the file's migration v17; before, the
    /// writer also looked every batch's ids up across users). So the per-user ids needed no
    /// schema change here: an older server's rows already satisfy it.
    static let expensePartitionCount = 8

    private static var expensePartitions: String {
        (0..<expensePartitionCount).map {
            "CREATE TABLE expenses_p\($0) PARTITION OF expenses FOR VALUES WITH (MODULUS \(expensePartitionCount), REMAINDER \($0));"
        }.joined(separator: "\n")
    }

    static let migrations: [Migration] = [
        Migration(identifier: "v1: users, categories, stores, expenses", sql: """
            CREATE TABLE users (
                id text COLLATE "C" PRIMARY KEY,
                display_name text,
                created_at text NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
            );
            CREATE TABLE categories (
                id bigserial PRIMARY KEY,
                user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                kind text NOT NULL CHECK (kind IN ('expense', 'income')),
                name text NOT NULL,
                name_fold text COLLATE "C" GENERATED ALWAYS AS (\(asciiFold("name"))) STORED,
                icon text,
                color text,
                is_default boolean NOT NULL DEFAULT false,
                is_active boolean NOT NULL DEFAULT true,
                UNIQUE (user_id, kind, name_fold),
                UNIQUE (user_id, id)
            );
            -- Stores are everyone's (a reference table, were the tables distributed).
            CREATE TABLE stores (
                pk bigserial PRIMARY KEY,
                id text COLLATE "C" NOT NULL UNIQUE,
                name text, kind text, brand text, street text, postcode text, city text, country text, source_id text,
                lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
                lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
                geog geography(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography) STORED,
                content_hash bigint NOT NULL
            );
            CREATE INDEX stores_geog ON stores USING gist (geog);
            CREATE INDEX stores_kind ON stores (kind);
            CREATE TABLE expenses (
                pk bigserial,
                id text COLLATE "C" NOT NULL,
                user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                kind text NOT NULL CHECK (kind IN ('expense', 'income', 'transfer')),
                amount_minor bigint NOT NULL CHECK (amount_minor > 0),
                currency text NOT NULL CHECK (length(currency) = 3),
                occurred_at text NOT NULL,
                occurred_ms bigint NOT NULL,
                utc_offset_min integer,
                local_date text NOT NULL,
                title text,
                category_id bigint,
                merchant text,
                lat double precision CHECK (lat BETWEEN -90 AND 90),
                lon double precision CHECK (lon BETWEEN -180 AND 180),
                accuracy_m double precision CHECK (accuracy_m >= 0),
                store_id text COLLATE "C" REFERENCES stores(id) ON DELETE SET NULL,
                notes text,
                content_hash bigint NOT NULL,
                created_at text,
                updated_at text,
                remind_at text,
                remind_ms bigint,
                geog geography(Point, 4326) GENERATED ALWAYS AS (
                    CASE WHEN lat IS NULL THEN NULL ELSE ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography END) STORED,
                CHECK ((lat IS NULL) = (lon IS NULL)),
                -- An expense's category is its own user's (and the key holds the distribution
                -- column, as Citus needs); deleting the category clears category_id alone.
                FOREIGN KEY (user_id, category_id) REFERENCES categories (user_id, id) ON DELETE SET NULL (category_id),
                PRIMARY KEY (pk, user_id),
                UNIQUE (id, user_id)
            ) PARTITION BY HASH (user_id);
            \(expensePartitions)
            CREATE INDEX expenses_geog ON expenses USING gist (geog);
            CREATE INDEX expenses_user_time ON expenses (user_id, occurred_ms);
            CREATE INDEX expenses_store ON expenses (store_id) WHERE store_id IS NOT NULL;
            CREATE INDEX expenses_category ON expenses (category_id) WHERE category_id IS NOT NULL;
            """),
        periods,
        budgets,
        tokens,
        Migration(identifier: "v6: products and price records", sql: pricesSQL),
        Migration(identifier: "v7: shopping lists", sql: shoppingListsSQL),
        positions,
        userSettings,
        positionsUnreferenced,
        notifications,
        receipts,
        budgetThresholds,
        recurring,
        community,
        pantry,
        // MONO's user has a name (display_name, from v1) and an email (issue 38).
        Migration(identifier: "v17: user email", sql: "ALTER TABLE users ADD COLUMN email text;"),
        productsAndStores,
        // MONO's defaults look (issue 38, `Category.defaultLooks`), as the file's v28.
        Migration(identifier: "v19: MONO's categories: a transfer kind, the defaults' icons and colours", sql: transferKindSQL + defaultLooksSQL),
        storeChoices,
        pantrySources,
        addedStorePrices,
        addedStoreReceipts,
        // A user's rows in insertion order, for the keyset batches (`pk > $n ORDER BY pk`) on
        // their generic plans: without it the plan walked a partition's whole primary key
        // (docs/MEASUREMENTS.md § Generic plans and an unawaited COMMIT).
        Migration(identifier: "v24: expenses by user in insertion order", sql: "CREATE INDEX expenses_user_pk ON expenses (user_id, pk);"),
    ]

    /// The file's v28, first half: the transfer category kind, and each transfer linked to an
    /// expense category moved to the transfer category of the same name, made for it.
    static let transferKindSQL = """
        ALTER TABLE categories DROP CONSTRAINT IF EXISTS categories_kind_check;
        ALTER TABLE categories ADD CONSTRAINT categories_kind_check CHECK (kind IN ('expense', 'income', 'transfer'));
        INSERT INTO categories (user_id, kind, name)
        SELECT DISTINCT ON (e.user_id, c.name_fold) e.user_id, 'transfer', c.name
        FROM expenses AS e JOIN categories AS c ON c.user_id = e.user_id AND c.id = e.category_id
        WHERE e.kind = 'transfer' AND c.kind = 'expense'
        ORDER BY e.user_id, c.name_fold, c.name
        ON CONFLICT DO NOTHING;
        UPDATE expenses AS e SET category_id = t.id
        FROM categories AS c, categories AS t
        WHERE e.kind = 'transfer' AND c.user_id = e.user_id AND c.id = e.category_id AND c.kind = 'expense'
            AND t.user_id = e.user_id AND t.kind = 'transfer' AND t.name_fold = c.name_fold;

        """

    /// The file's v28, second half: existing users' default categories get `Category.defaultLooks` unless the
    /// user gave one an icon or a colour already. The values are the code's own constants.
    static let defaultLooksSQL: String = Category.defaultLooks
        .sorted { ($0.key.kind.rawValue, $0.key.name) < ($1.key.kind.rawValue, $1.key.name) }
        .map { category, look in
            "UPDATE categories SET icon = '\(look.icon)', color = '\(look.color)' WHERE is_default AND kind = '\(category.kind.rawValue)' "
                + "AND name = '\(category.name)' AND icon IS NULL AND color IS NULL;"
        }
        .joined(separator: "\n")

    /// Checks, without writing, that a replica's schema is exactly the migrations this GeoSpend
    /// applies: a replica cannot be migrated, and reading an older or newer schema could answer
    /// wrongly.
    static func check(_ connection: PostgresConnection, replica url: String, logger: Logger) async throws {
        let hasTable = try await connection.query(
            "SELECT 1 FROM pg_tables WHERE tablename = 'geospend_migrations'", logger: logger
        ).collect().count == 1
        guard hasTable else {
            throw PostGISError.replicaSchema(
                url: url, reason: "has no GeoSpend tables; run a GeoSpend command on the primary first (it creates them) and let the replica catch up")
        }
        let applied = Set(try await connection.query("SELECT identifier FROM geospend_migrations", logger: logger)
            .collect().map { try $0.decode(String.self) })
        let known = Set(migrations.map(\.identifier))
        if !known.isSubset(of: applied) {
            throw PostGISError.replicaSchema(
                url: url, reason: "has an older schema than this GeoSpend; run a GeoSpend command on the primary first (it migrates) and let the replica catch up")
        }
        if !applied.isSubset(of: known) {
            throw PostGISError.replicaSchema(url: url, reason: "has a newer schema than this GeoSpend knows; update GeoSpend")
        }
    }

    /// Creates PostGIS when missing (if this user may), then applies the migrations not yet
    /// recorded, all in one transaction under the writers' lock: two first opens at once
    /// cannot both create the tables.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        let hasPostGIS = try await connection.query(
            "SELECT 1 FROM pg_extension WHERE extname = 'postgis'", logger: logger
        ).collect().count == 1
        if !hasPostGIS {
            do {
                try await connection.simple("CREATE EXTENSION IF NOT EXISTS postgis", logger: logger)
            } catch {
                throw PostGISError.noPostGIS(reason: "\(PostGISError.wrap(error))")
            }
        }
        try await connection.simple("""
            BEGIN;
            SELECT pg_advisory_xact_lock(\(writerLock));
            CREATE TABLE IF NOT EXISTS geospend_migrations (
                identifier text PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            """, logger: logger)
        do {
            let applied = Set(try await connection.query("SELECT identifier FROM geospend_migrations", logger: logger)
                .collect().map { try $0.decode(String.self) })
            for m in migrations where !applied.contains(m.identifier) {
                try await connection.simple(m.sql, logger: logger)
                try await connection.query("INSERT INTO geospend_migrations (identifier) VALUES (\(m.identifier))", logger: logger)
            }
            try await connection.simple("COMMIT", logger: logger)
        } catch {
            try? await connection.simple("ROLLBACK", logger: logger)
            throw error
        }
    }
}
