import GeoSpend
import GRDB

/// The tables behind `PositionStore` (migration v18).
/// - `positions`: one fix per row, keyed (user, instant, lat, lon, source) without a rowid, so
///   one user's fixes lie in time order on their own pages, a time window is one range of the
///   key, and the same fix imported again is recognised by the key (`ON CONFLICT DO NOTHING`).
/// - `visits`: the stays a format recorded (Google Timeline, Semantic Location History), keyed
///   the same way; detected stays are not stored (the geotagger finds them from the fixes).
/// - On `expenses`: `position_source` (`PositionSource`; NULL on rows imported with
///   coordinates, which read as `device`), `position_confidence` (inferred positions), and
///   `store_inferred` (1 when geotagging linked the store, so `geotag undo` unlinks it).
/// Instants are BIGINT for GDAL (`Integer64Columns`). User keys cascade: `users delete` and
/// `doctor --repair`'s NFC renaming reach them.
enum PositionSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE positions (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                t_ms BIGINT NOT NULL,
                lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
                source TEXT NOT NULL,
                accuracy_m REAL CHECK (accuracy_m >= 0),
                PRIMARY KEY (user_id, t_ms, lat, lon, source)
            ) WITHOUT ROWID;
            CREATE TABLE visits (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                start_ms BIGINT NOT NULL,
                end_ms BIGINT NOT NULL CHECK (end_ms >= start_ms),
                lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
                source TEXT NOT NULL,
                radius_m REAL CHECK (radius_m >= 0),
                place_name TEXT,
                place_id TEXT,
                probability REAL CHECK (probability BETWEEN 0 AND 1),
                PRIMARY KEY (user_id, start_ms, end_ms, lat, lon, source)
            ) WITHOUT ROWID;
            ALTER TABLE expenses ADD COLUMN position_source TEXT;
            ALTER TABLE expenses ADD COLUMN position_confidence REAL CHECK (position_confidence BETWEEN 0 AND 1);
            ALTER TABLE expenses ADD COLUMN store_inferred INTEGER NOT NULL DEFAULT 0 CHECK (store_inferred = 0 OR store_inferred = 1);
            """)
        // An expense linked to a store before v18 had no position from it (`near` and the maps
        // ignored the link); it is placed at its store now, as `expenses edit --store` places.
        let linked = try Row.fetchAll(db, sql: """
            SELECT e.pk, e.user_id, s.lat, s.lon FROM expenses AS e JOIN stores AS s ON s.id = e.store_id WHERE e.lat IS NULL
            """)
        for row in linked {
            let pk: Int64 = row[0]
            try placeRow(db, pk: pk, latitude: row[2], longitude: row[3], accuracy: nil, source: .store, confidence: nil)
        }
    }

    /// Sets one expense row's position (rollups, geometry and R*Tree follow through the row's
    /// triggers and `MapRollupStorage`). The content hash stays the import's: importing the same
    /// statement again is still "the same rows", not a conflict.
    static func placeRow(
        _ db: Database, pk: Int64, latitude: Double, longitude: Double, accuracy: Double?, source: PositionSource, confidence: Double?
    ) throws {
        try db.execute(
            sql: """
                UPDATE expenses SET lat = ?1, lon = ?2, accuracy_m = ?3, geom = MakePoint(?2, ?1, 4326),
                    position_source = ?4, position_confidence = ?5
                WHERE pk = ?6 AND lat IS NULL
                """,
            arguments: [latitude, longitude, accuracy, source.rawValue, confidence, pk])
    }
}

extension SpatiaLiteStore: PositionStore {
    public func addLocationHistory(_ history: LocationHistory, userID: String) async throws -> PositionImportCount {
        let user = Identity.normalized(userID)
        return try await translatingErrors {
            try await pool.write { db in
                try Self.ensureUser(db, user)
                var count = PositionImportCount()
                let insertPosition = RawStatement(try db.cachedStatement(sql: """
                    INSERT INTO positions (user_id, t_ms, lat, lon, source, accuracy_m) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    ON CONFLICT DO NOTHING
                    """))
                insertPosition.reset()
                defer { insertPosition.reset() }
                insertPosition.bind(1, user)
                for p in history.positions {
                    insertPosition.rewind()  // keeps the user bound
                    insertPosition.bind(2, p.epochMilliseconds)
                    insertPosition.bind(3, p.coordinate.latitude)
                    insertPosition.bind(4, p.coordinate.longitude)
                    insertPosition.bind(5, p.source.rawValue)
                    insertPosition.bind(6, p.accuracyMeters)
                    _ = try insertPosition.step(db)
                    if db.changesCount == 1 { count.positionsAdded += 1 } else { count.positionsUnchanged += 1 }
                }
                for v in history.visits {
                    guard let source = v.source else { continue }  // detected: found again from the fixes
                    try db.execute(
                        sql: """
                            INSERT INTO visits (user_id, start_ms, end_ms, lat, lon, source, radius_m, place_name, place_id, probability)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                            """,
                        arguments: [
                            user, v.startEpochMilliseconds, v.endEpochMilliseconds, v.centre.latitude, v.centre.longitude, source.rawValue,
                            v.radiusMeters, v.placeName, v.placeID, v.probability,
                        ])
                    if db.changesCount == 1 { count.visitsAdded += 1 } else { count.visitsUnchanged += 1 }
                }
                return count
            }
        }
    }

    /// The user's fixes and recorded visits in `[from, to)`, in time order (the key's order).
    static func history(_ db: Database, user: String, from: Int64?, to: Int64?) throws -> LocationHistory {
        LocationHistory(positions: try positions(db, user: user, from: from, to: to), visits: try visits(db, user: user, from: from, to: to))
    }

    /// The user's fixes in `[from, to)`, in the key's (time) order.
    static func positions(_ db: Database, user: String, from: Int64?, to: Int64?) throws -> [Position] {
        let lower = from ?? .min, upper = to ?? .max
        let s = RawStatement(try db.cachedStatement(sql: """
            SELECT t_ms, lat, lon, accuracy_m, source FROM positions WHERE user_id = ?1 AND t_ms >= ?2 AND t_ms < ?3
            """))
        s.reset()
        defer { s.reset() }
        s.bind(1, user)
        s.bind(2, lower)
        s.bind(3, upper)
        var positions: [Position] = []
        while try s.step(db) {
            guard let source = s.text(4).flatMap(LocationHistoryFormat.init(rawValue:)) else { continue }
            positions.append(Position(
                epochMilliseconds: s.int64(0), coordinate: Coordinate(uncheckedLatitude: s.double(1), longitude: s.double(2)),
                accuracyMeters: s.optionalDouble(3), source: source))
        }
        return positions
    }

    /// The user's recorded visits overlapping `[from, to)`, by start.
    static func visits(_ db: Database, user: String, from: Int64?, to: Int64?) throws -> [Visit] {
        let lower = from ?? .min, upper = to ?? .max
        let v = RawStatement(try db.cachedStatement(sql: """
            SELECT start_ms, end_ms, lat, lon, radius_m, place_name, place_id, probability, source FROM visits
            WHERE user_id = ?1 AND end_ms > ?2 AND start_ms < ?3
            """))
        v.reset()
        defer { v.reset() }
        v.bind(1, user)
        v.bind(2, lower)
        v.bind(3, upper)
        var visits: [Visit] = []
        while try v.step(db) {
            visits.append(Visit(
                startEpochMilliseconds: v.int64(0), endEpochMilliseconds: v.int64(1),
                centre: Coordinate(uncheckedLatitude: v.double(2), longitude: v.double(3)), radiusMeters: v.optionalDouble(4),
                placeName: v.text(5), placeID: v.text(6), probability: v.optionalDouble(7),
                source: v.text(8).flatMap(LocationHistoryFormat.init(rawValue:))))
        }
        return visits
    }

    public func deletePositions(userID: String, before: Int64?) async throws -> PositionDeletion {
        let user = Identity.normalized(userID)
        let upper = before ?? .max
        let deleted = try await translatingErrors {
            // secure_delete: freed cells are zeroed (as for a deleted expense).
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")
                var deletion = PositionDeletion(positions: 0, visits: 0)
                try db.inTransaction(.immediate) {
                    try db.execute(sql: "DELETE FROM positions WHERE user_id = ? AND t_ms < ?", arguments: [user, upper])
                    deletion.positions = db.changesCount
                    try db.execute(sql: "DELETE FROM visits WHERE user_id = ? AND start_ms < ?", arguments: [user, upper])
                    deletion.visits = db.changesCount
                    return .commit
                }
                return deletion
            }
        }
        // The log's copies of the freed pages go with a checkpoint (false: a reader kept them),
        // to its end, cancelled or not, as `deleteExpense`'s clean-up (ExpenseLife.swift).
        if deleted.positions + deleted.visits > 0 { _ = try await offloaded { try self.scrubAfterDeletion(rewrite: false) } }
        return deleted
    }

    public func place(_ placements: [ExpensePlacement], userID: String, events: [NewNotificationEvent]) async throws -> [Bool] {
        let user = Identity.normalized(userID)
        return try await translatingErrors {
            try await pool.write { db in
                var placed: [Bool] = []
                var rollups = MapRollup.Changes()
                var touched = TouchedDays()
                for p in placements {
                    let unplaced = try Self.fetchStored(
                        db, "SELECT \(Self.storedColumns) FROM \(Self.storedSource) WHERE e.id = ?1 AND e.user_id = ?2 AND e.lat IS NULL"
                    ) { $0.bind(1, p.expenseID); $0.bind(2, user) }
                    guard let stored = unplaced.first else {
                        placed.append(false)
                        continue
                    }
                    let (old, pk) = stored
                    try PositionSchema.placeRow(
                        db, pk: pk, latitude: p.location.coordinate.latitude, longitude: p.location.coordinate.longitude,
                        accuracy: p.location.accuracyMeters, source: p.source, confidence: p.confidence)
                    var moved = old.expense
                    moved.location = p.location
                    if old.expense.storeID == nil, let store = p.storeID,
                        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM stores WHERE id = ?)", arguments: [store]) == true
                    {
                        try db.execute(sql: "UPDATE expenses SET store_id = ?, store_inferred = ? WHERE pk = ?",
                                       arguments: [store, p.source.isInferred ? 1 : 0, pk])
                        moved.storeID = store
                    }
                    rollups.add(old.expense, sign: -1)
                    rollups.add(moved, sign: 1)
                    touched.add(moved)
                    placed.append(true)
                }
                try MapRollupStorage.apply(rollups, db)
                // An expense placed in a zone budget's area can cross it (issue 39), in this transaction.
                try NotificationSchema.raiseBudgetEvents(db, path: path, touched: touched)
                _ = try NotificationSchema.raise(db, events)
                return placed
            }
        }
    }

    public func unplace(userID: String, expenseID: String?) async throws -> [String] {
        let user = Identity.normalized(userID)
        let inferred = PositionSource.allCases.filter(\.isInferred).map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try await translatingErrors {
            try await pool.write { db in
                let rows = try Self.fetchStored(
                    db, """
                        SELECT \(Self.storedColumns) FROM \(Self.storedSource)
                        WHERE e.user_id = ?1 AND (?2 IS NULL OR e.id = ?2) AND e.position_source IN (\(inferred)) ORDER BY e.id
                        """
                ) { $0.bind(1, user); $0.bind(2, expenseID) }
                var rollups = MapRollup.Changes()
                for (old, pk) in rows {
                    try db.execute(
                        sql: """
                            UPDATE expenses SET lat = NULL, lon = NULL, accuracy_m = NULL, geom = NULL, position_source = NULL,
                                position_confidence = NULL, store_id = CASE WHEN store_inferred = 1 THEN NULL ELSE store_id END,
                                store_inferred = 0
                            WHERE pk = ?
                            """, arguments: [pk])
                    rollups.add(old.expense, sign: -1)
                }
                try MapRollupStorage.apply(rollups, db)
                if !rows.isEmpty { try RTreeScrub.zeroUnusedCells(of: "idx_expenses_geom", in: db) }
                return rows.map(\.0.expense.id)
            }
        }
    }
}

/// The history reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: PositionReader {
    public func locationHistory(userID: String, from: Int64?, to: Int64?) throws -> LocationHistory {
        try SpatiaLiteStore.history(db, user: Identity.normalized(userID), from: from, to: to)
    }

    public func geotagInput(userID: String, from: Int64?, to: Int64?) throws -> GeotagInput {
        let user = Identity.normalized(userID)
        let history = try SpatiaLiteStore.history(db, user: user, from: from, to: to)
        let rows = try SpatiaLiteStore.fetchStored(
            db, "SELECT \(SpatiaLiteStore.storedColumns) FROM \(SpatiaLiteStore.storedSource) WHERE e.user_id = ?1 ORDER BY e.id"
        ) { $0.bind(1, user) }
        return GeotagInput(history: history, expenses: rows.map(\.0.expense))
    }
}
