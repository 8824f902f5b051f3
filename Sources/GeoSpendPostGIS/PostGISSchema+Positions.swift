/// Migration v8: the location history (issue 36) and where each expense's position came from,
/// the tables and columns of the file's migration v18 (Sources/GeoSpendSpatiaLite/PositionStorage.swift)
/// with the same keys and CHECKs.
///
/// - `positions`: one fix per row, keyed (user, instant, lat, lon, source): one user's fixes in
///   time order are one range of the key's B-tree, and a fix imported again is recognised by
///   the key (`ON CONFLICT DO NOTHING`). `visits`: the stays a format recorded, keyed the same
///   way. Both carry `user_id` in every key (Citus: distributed by user, colocated with
///   `users`) and cascade from `users`.
/// - On `expenses`: `position_source` (`PositionSource`; NULL on rows imported with coordinates,
///   which read as `device`), `position_confidence` (inferred positions) and `store_inferred`
///   (true when geotagging linked the store, so `geotag undo` unlinks it).
/// - As v18 does, an expense linked to a store but without a position is placed at its store
///   (`position_source` 'store'); `geog` is generated from `lat`/`lon`, so it follows. The content
///   hash stays the import's: a re-import of the statement is still "the same rows".
extension PostGISSchema {
    static let positions = Migration(identifier: "v8: location history, expense position provenance", sql: """
        CREATE TABLE positions (
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            t_ms bigint NOT NULL,
            lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
            lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
            source text COLLATE "C" NOT NULL,
            accuracy_m double precision CHECK (accuracy_m >= 0),
            PRIMARY KEY (user_id, t_ms, lat, lon, source)
        );
        CREATE TABLE visits (
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            start_ms bigint NOT NULL,
            end_ms bigint NOT NULL CHECK (end_ms >= start_ms),
            lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
            lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
            source text COLLATE "C" NOT NULL,
            radius_m double precision CHECK (radius_m >= 0),
            place_name text,
            place_id text,
            probability double precision CHECK (probability BETWEEN 0 AND 1),
            PRIMARY KEY (user_id, start_ms, end_ms, lat, lon, source)
        );
        ALTER TABLE expenses ADD COLUMN position_source text COLLATE "C";
        ALTER TABLE expenses ADD COLUMN position_confidence double precision CHECK (position_confidence BETWEEN 0 AND 1);
        ALTER TABLE expenses ADD COLUMN store_inferred boolean NOT NULL DEFAULT false;
        UPDATE expenses AS e SET lat = s.lat, lon = s.lon, accuracy_m = NULL, position_source = 'store', position_confidence = NULL
        FROM stores AS s WHERE s.id = e.store_id AND e.lat IS NULL;
        """)
}

/// Migration v10: `positions` and `visits` without their foreign key to `users`. Its check ran
/// once per row: on 1M fixes `COPY` took 8.8 s with it and 3.0 s without (docs/POSTGIS.md
/// § Location history), and issue 36 asks 10 s of a whole import. What it guarded still holds:
/// an import adds its user first in the same transaction (`ensureUser`), every write runs under
/// the writers' lock, and `users delete` deletes from every table with a `user_id` column by
/// name (`PostGISUserData.userKeyedTables`), not by cascade; `PositionStoreContractTests` and
/// the isolation suites check that no row outlives its user.
extension PostGISSchema {
    static let positionsUnreferenced = Migration(identifier: "v10: positions and visits checked by the writer, not per row", sql: """
        ALTER TABLE positions DROP CONSTRAINT positions_user_id_fkey;
        ALTER TABLE visits DROP CONSTRAINT visits_user_id_fkey;
        """)
}
