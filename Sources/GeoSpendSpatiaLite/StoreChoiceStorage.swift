import GeoSpend
import GRDB

/// The tables behind `StoreChoiceStore` (migration v29).
/// - `user_stores`: stores a user added, seen by that user alone; `number` is the N of the id
///   `mine-N` (`AddedStoreID`), unique per user and never reused (`user_store_numbers`). Kept
///   apart from the shared `stores` table, so no query over the registry (nearest stores, kinds,
///   snapping, reports, another user's price records) can ever return one.
/// - `store_favourites` and `default_stores`: store ids the user chose, a shared store's id or
///   their own `mine-N`. No foreign key to `stores`: an id may name either table; reads resolve
///   it and leave out one that no longer resolves (a shared store removed from the registry).
enum StoreChoiceSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE user_stores (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                number BIGINT NOT NULL CHECK (number > 0),
                name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
                kind TEXT NOT NULL CHECK (length(kind) BETWEEN 1 AND 80),
                region TEXT CHECK (region IS NULL OR length(region) BETWEEN 1 AND 400),
                lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
                created_at TEXT NOT NULL,
                UNIQUE (user_id, number)
            );
            CREATE TABLE user_store_numbers (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                last BIGINT NOT NULL
            );
            CREATE TABLE store_favourites (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                store_id TEXT NOT NULL,
                PRIMARY KEY (user_id, store_id)
            );
            CREATE TABLE default_stores (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                store_id TEXT NOT NULL
            );
            """)
    }

    static let addedColumns = "number, user_id, name, kind, region, lat, lon, created_at"

    static func added(_ row: Row) -> StoreEntry {
        let number: Int64 = row[0]
        return StoreEntry(
            store: Store(
                id: AddedStoreID.id(number), name: row[2], kind: row[3],
                coordinate: Coordinate(uncheckedLatitude: row[5], longitude: row[6])),
            region: row[4], addedBy: row[1], createdAt: row[7])
    }

    static func added(_ db: Database, user: String, number: Int64? = nil) throws -> [StoreEntry] {
        try Row.fetchAll(db, sql: """
            SELECT \(addedColumns) FROM user_stores WHERE user_id = ?1 AND (?2 IS NULL OR number = ?2) ORDER BY number
            """, arguments: [user, number]).map(added)
    }

    /// The store `id` as `user` sees it: their own `mine-N`, else the registry's.
    static func resolve(_ db: Database, user: String, id: String) throws -> StoreEntry? {
        if let n = AddedStoreID.number(id), let own = try added(db, user: user, number: n).first { return own }
        let s = try Row.fetchOne(db, sql: """
            SELECT id, name, kind, brand, street, postcode, city, country, lat, lon, source_id FROM stores WHERE id = ?
            """, arguments: [id])
        return s.map { s in
            StoreEntry(store: Store(
                id: s[0], name: s[1], kind: s[2], brand: s[3], street: s[4], postcode: s[5], city: s[6], country: s[7],
                coordinate: Coordinate(uncheckedLatitude: s[8], longitude: s[9]), sourceID: s[10]))
        }
    }

    static func choices(_ db: Database, user: String) throws -> StoreChoices {
        let favourites = try String.fetchAll(db, sql: "SELECT store_id FROM store_favourites WHERE user_id = ? ORDER BY store_id", arguments: [user])
        let defaultID = try String.fetchOne(db, sql: "SELECT store_id FROM default_stores WHERE user_id = ?", arguments: [user])
        return StoreChoices(
            added: try added(db, user: user),
            favourites: try favourites.compactMap { try resolve(db, user: user, id: $0) },
            defaultStore: try defaultID.flatMap { try resolve(db, user: user, id: $0) })
    }

    /// The ids as stored, resolvable or not (`users export` keeps them as chosen).
    static func chosenIDs(_ db: Database, user: String) throws -> (favourites: [String], defaultID: String?) {
        (try String.fetchAll(db, sql: "SELECT store_id FROM store_favourites WHERE user_id = ? ORDER BY store_id", arguments: [user]),
         try String.fetchOne(db, sql: "SELECT store_id FROM default_stores WHERE user_id = ?", arguments: [user]))
    }
}

extension SpatiaLiteStore: StoreChoiceStore {
    public func addStore(userID: String, _ fields: AddedStoreFields) async throws -> StoreEntry? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> StoreEntry? in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [user]) == true else { return nil }
            let number = try UserNumbers.next(db, counter: "user_store_numbers", user: user)
            try db.execute(sql: """
                INSERT INTO user_stores (user_id, number, name, kind, region, lat, lon, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, \(Self.nowSQL))
                """, arguments: [user, number, fields.name, fields.kind, fields.region, fields.coordinate.latitude, fields.coordinate.longitude])
            return try StoreChoiceSchema.added(db, user: user, number: number).first
        }
    }

    public func setFavouriteStore(userID: String, storeID: String, _ favourite: Bool) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> Bool in
            if !favourite {
                try db.execute(sql: "DELETE FROM store_favourites WHERE user_id = ? AND store_id = ?", arguments: [user, storeID])
                if db.changesCount > 0 { return true }
            }
            guard try StoreChoiceSchema.resolve(db, user: user, id: storeID) != nil else { return false }
            if favourite {
                try db.execute(
                    sql: "INSERT INTO store_favourites (user_id, store_id) VALUES (?, ?) ON CONFLICT DO NOTHING", arguments: [user, storeID])
            }
            return true
        }
    }

    public func setDefaultStore(userID: String, storeID: String?) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> Bool in
            guard let storeID else {
                try db.execute(sql: "DELETE FROM default_stores WHERE user_id = ?", arguments: [user])
                return true
            }
            guard try StoreChoiceSchema.resolve(db, user: user, id: storeID) != nil else { return false }
            try db.execute(sql: """
                INSERT INTO default_stores (user_id, store_id) VALUES (?1, ?2) ON CONFLICT (user_id) DO UPDATE SET store_id = ?2
                """, arguments: [user, storeID])
            return true
        }
    }
}

extension SpatiaLiteReader: StoreChoiceReader {
    public func store(userID: String, id: String) throws -> StoreEntry? {
        try StoreChoiceSchema.resolve(db, user: Identity.normalized(userID), id: id)
    }

    public func storeChoices(userID: String) throws -> StoreChoices {
        try StoreChoiceSchema.choices(db, user: Identity.normalized(userID))
    }
}
