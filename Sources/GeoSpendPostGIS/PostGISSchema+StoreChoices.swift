/// Migration v20: per-user stores (issue 38), as the file's v29
/// (Sources/GeoSpendSpatiaLite/StoreChoiceStorage.swift): stores a user added, apart from the
/// shared `stores`; favourite and default store ids, which may name either.
extension PostGISSchema {
    static let storeChoices = Migration(identifier: "v20: per-user stores: favourites, a default, added stores", sql: """
        CREATE TABLE user_stores (
            pk bigserial PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            number bigint NOT NULL CHECK (number > 0),
            name text COLLATE "C" NOT NULL CHECK (char_length(name) BETWEEN 1 AND 400),
            kind text COLLATE "C" NOT NULL CHECK (char_length(kind) BETWEEN 1 AND 80),
            region text COLLATE "C" CHECK (region IS NULL OR char_length(region) BETWEEN 1 AND 400),
            lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
            lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
            created_at text COLLATE "C" NOT NULL,
            UNIQUE (user_id, number)
        );
        CREATE TABLE user_store_numbers (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            last bigint NOT NULL
        );
        CREATE TABLE store_favourites (
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            store_id text COLLATE "C" NOT NULL,
            PRIMARY KEY (user_id, store_id)
        );
        CREATE TABLE default_stores (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            store_id text COLLATE "C" NOT NULL
        );
        """)
}
