import GeoSpend
import PostgresNIO

/// Per-user stores on PostgreSQL (migration v20), with the file's rules
/// (Sources/GeoSpendSpatiaLite/StoreChoiceStorage.swift): added stores numbered per user and
/// seen by that user alone, favourite and default ids resolved to the user's own store first.
extension PostGISStore: StoreChoiceStore {
    public func addStore(userID: String, _ fields: AddedStoreFields) async throws -> StoreEntry? {
        let user = Identity.normalized(userID)
        return try await editing { r -> StoreEntry? in
            guard !(try r.rows("SELECT 1 FROM users WHERE id = \(user)")).isEmpty else { return nil }
            let number = try Self.nextNumber(r, counter: "user_store_numbers", user: user)
            _ = try r.rows("""
                INSERT INTO user_stores (user_id, number, name, kind, region, lat, lon, created_at)
                VALUES (\(user), \(number), \(fields.name), \(fields.kind), \(fields.region), \(fields.coordinate.latitude),
                        \(fields.coordinate.longitude), \(unescaped: Self.nowSQL))
                """)
            return try Self.addedStores(r, user: user, number: number).first
        }
    }

    public func setFavouriteStore(userID: String, storeID: String, _ favourite: Bool) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await editing { r -> Bool in
            if !favourite {
                let gone = try r.rows("DELETE FROM store_favourites WHERE user_id = \(user) AND store_id = \(storeID) RETURNING store_id")
                if !gone.isEmpty { return true }
            }
            guard try Self.resolveStore(r, user: user, id: storeID) != nil else { return false }
            if favourite {
                _ = try r.rows("INSERT INTO store_favourites (user_id, store_id) VALUES (\(user), \(storeID)) ON CONFLICT DO NOTHING")
            }
            return true
        }
    }

    public func setDefaultStore(userID: String, storeID: String?) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await editing { r -> Bool in
            guard let storeID else {
                _ = try r.rows("DELETE FROM default_stores WHERE user_id = \(user)")
                return true
            }
            guard try Self.resolveStore(r, user: user, id: storeID) != nil else { return false }
            _ = try r.rows("""
                INSERT INTO default_stores (user_id, store_id) VALUES (\(user), \(storeID))
                ON CONFLICT (user_id) DO UPDATE SET store_id = EXCLUDED.store_id
                """)
            return true
        }
    }

    static func addedStores(_ r: PostGISReader, user: String, number: Int64?) throws -> [StoreEntry] {
        try r.rows("""
            SELECT \(unescaped: addedStoreColumns) FROM user_stores
            WHERE user_id = \(user) AND (\(number)::bigint IS NULL OR number = \(number)) ORDER BY number
            """).map(addedStore)
    }

    static let addedStoreColumns = "number, user_id, name, kind, region, lat, lon, created_at"

    /// An added store from `addedStoreColumns`.
    static func addedStore(_ row: PostgresRow) throws -> StoreEntry {
        let (n, owner, name, kind, region, lat, lon, created) = try row.decode(
            (Int64, String, String, String, String?, Double, Double, String).self)
        return StoreEntry(
            store: Store(id: AddedStoreID.id(n), name: name, kind: kind, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon)),
            region: region, addedBy: owner, createdAt: created)
    }

    static func resolveStore(_ r: PostGISReader, user: String, id: String) throws -> StoreEntry? {
        if let n = AddedStoreID.number(id), let own = try addedStores(r, user: user, number: n).first { return own }
        return try r.rows("SELECT \(unescaped: PostGISRows.storeColumns) FROM stores AS s WHERE s.id = \(id)").first.map {
            StoreEntry(store: try PostGISRows.store($0.makeRandomAccess()))
        }
    }

    static func chosenStoreIDs(_ r: PostGISReader, user: String) throws -> (favourites: [String], defaultID: String?) {
        (try r.rows("SELECT store_id FROM store_favourites WHERE user_id = \(user) ORDER BY store_id").map { try $0.decode(String.self) },
         try r.rows("SELECT store_id FROM default_stores WHERE user_id = \(user)").first.map { try $0.decode(String.self) })
    }
}

extension PostGISReader: StoreChoiceReader {
    public func store(userID: String, id: String) throws -> StoreEntry? {
        try PostGISStore.resolveStore(self, user: Identity.normalized(userID), id: id)
    }

    public func storeChoices(userID: String) throws -> StoreChoices {
        let user = Identity.normalized(userID)
        let (favourites, defaultID) = try PostGISStore.chosenStoreIDs(self, user: user)
        return StoreChoices(
            added: try PostGISStore.addedStores(self, user: user, number: nil),
            favourites: try favourites.compactMap { try PostGISStore.resolveStore(self, user: user, id: $0) },
            defaultStore: try defaultID.flatMap { try PostGISStore.resolveStore(self, user: user, id: $0) })
    }
}
