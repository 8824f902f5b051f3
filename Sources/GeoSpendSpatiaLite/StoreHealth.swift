import GRDB

/// One finding of `SpatiaLiteStore.checkHealth()`.
public struct HealthCheck: Sendable, Equatable {
    /// What was checked, e.g. `spatial index expenses.geom`.
    public var name: String
    public var ok: Bool
    /// What was found, in words (`ok`, or what is wrong and how `--repair` would fix it).
    public var detail: String
}

/// What `geospend doctor` reports: every check, healthy or not.
public struct HealthReport: Sendable, Equatable {
    public var checks: [HealthCheck]
    public var isHealthy: Bool { checks.allSatisfy(\.ok) }
}

/// Checks and repairs of the file: SQLite's integrity check, the schema version, SpatiaLite's
/// geometry registration, triggers and spatial indexes, GeoSpend's own indexes and invariants.
extension SpatiaLiteStore {
    /// The spatially indexed tables; each has a POINT `geom` column, SRID 4326.
    static let spatialTables = ["expenses", "stores"]
    /// The per-column triggers SpatiaLite 5 creates: geometry checks (ggi/ggu), R*Tree upkeep
    /// (gii/giu/gid) and change times (tmi/tmu/tmd).
    static let spatialTriggers = ["ggi", "ggu", "gii", "giu", "gid", "tmi", "tmu", "tmd"]
    static var secondaryIndexes: [String] { Schema.secondaryIndexSQL.map(\.name) }

    /// Runs every check; a check that SQLite cannot even run is reported as failed, not thrown.
    /// The checks run in a write transaction that is rolled back: `CheckSpatialIndex` writes
    /// SpatiaLite's bookkeeping and fails on a read-only connection.
    ///
    /// - Complexity: O(n) in the file's size (`PRAGMA integrity_check` reads every page;
    ///   `CheckSpatialIndex` compares every geometry with its R*Tree entry).
    public func checkHealth() throws -> HealthReport {
        try checkingTransaction { db in
            var checks: [HealthCheck] = []
            func check(_ name: String, _ body: () throws -> (Bool, String)) {
                do {
                    let (ok, detail) = try body()
                    checks.append(HealthCheck(name: name, ok: ok, detail: detail))
                } catch {
                    checks.append(HealthCheck(name: name, ok: false, detail: "could not check: \(error)"))
                }
            }
            check("integrity") {
                let lines = try String.fetchAll(db, sql: "PRAGMA integrity_check(20)")
                return lines == ["ok"] ? (true, "ok") : (false, lines.joined(separator: "; "))
            }
            check("schema version") {
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
                let missing = Schema.versions.filter { !applied.contains($0) }
                let current = Schema.versions.last!.prefix { $0 != ":" }
                return missing.isEmpty
                    ? (true, "\(current) (current)")
                    : (false, "missing migrations: \(missing.joined(separator: ", ")); any import applies them")
            }
            check("foreign keys") {
                let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
                return broken == 0 ? (true, "ok") : (false, "\(broken) rows refer to missing users, stores or categories")
            }
            check("secondary indexes") {
                let present = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
                let missing = Self.secondaryIndexes.filter { !present.contains($0) }
                return missing.isEmpty ? (true, "\(Self.secondaryIndexes.count) present") : (false, "missing: \(missing.joined(separator: ", "))")
            }
            for table in Self.spatialTables {
                check("geometry column \(table).geom") {
                    let row = try Row.fetchOne(db, sql: """
                        SELECT geometry_type, srid, spatial_index_enabled FROM geometry_columns
                        WHERE f_table_name = ? AND f_geometry_column = 'geom'
                        """, arguments: [table])
                    guard let row else { return (false, "not registered in geometry_columns") }
                    let (type, srid, indexed): (Int, Int, Int) = (row[0], row[1], row[2])
                    guard type == 1, srid == 4326, indexed == 1 else {
                        return (false, "registered as type \(type), SRID \(srid), spatial index \(indexed); expected POINT (1), 4326, 1")
                    }
                    return (true, "POINT, SRID 4326, indexed")
                }
                check("triggers \(table).geom") {
                    let present = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", arguments: [table]))
                    let missing = Self.spatialTriggers.map { "\($0)_\(table)_geom" }.filter { !present.contains($0) }
                    return missing.isEmpty ? (true, "\(Self.spatialTriggers.count) present") : (false, "missing: \(missing.joined(separator: ", "))")
                }
                check("spatial index \(table).geom") {
                    // rtreecheck: the R*Tree's own structure; CheckSpatialIndex: its entries against the table.
                    let structure = try String.fetchOne(db, sql: "SELECT rtreecheck(?)", arguments: ["idx_\(table)_geom"]) ?? "no answer"
                    let agrees = try Int.fetchOne(db, sql: "SELECT CheckSpatialIndex(?, 'geom')", arguments: [table])
                    if structure == "ok" && agrees == 1 { return (true, "ok") }
                    var problems: [String] = []
                    if structure != "ok" { problems.append("R*Tree structure: \(structure.split(separator: "\n").first ?? "")") }
                    if agrees != 1 { problems.append("CheckSpatialIndex says it disagrees with the table") }
                    return (false, problems.joined(separator: "; ") + "; --repair rebuilds it")
                }
                check("positions \(table)") {
                    // The plain lat/lon columns queries read must be the geometry's.
                    let mismatched = try Int.fetchOne(db, sql: """
                        SELECT count(*) FROM \(table) WHERE (lat IS NULL) != (geom IS NULL)
                            OR (geom IS NOT NULL AND (ST_X(geom) != lon OR ST_Y(geom) != lat))
                        """) ?? 0
                    return mismatched == 0 ? (true, "lat/lon match geom") : (false, "\(mismatched) rows whose lat/lon differ from geom")
                }
            }
            check("ids and names in NFC") { Self.identityDetail(try Self.identityFindings(db)) }
            check("map rollups") {
                // Derived from the expenses; a recomputation must give exactly the stored rows.
                guard try MapRollupStorage.isComplete(db) else {
                    return (false, "the tables map_rollups and map_cell_rollups or their triggers are missing, so layers scan the expenses; --repair makes them again")
                }
                let differing = try MapRollupStorage.differences(db)
                return differing == 0
                    ? (true, "equal to a recomputation from the expenses")
                    : (false, "\(differing) rows differ from a recomputation from the expenses; --repair rebuilds them")
            }
            check("deleted users scrubbed") {
                // Set by `users delete` until its VACUUM and checkpoint are done (`PendingScrub`).
                guard let since = try Self.pendingScrub(db) else { return (true, "ok") }
                return (false, "a user deleted since \(since) may have left fragments in unused page space or the "
                    + "write-ahead log (deleted with --no-vacuum, or the rewrite failed); --repair rewrites the file")
            }
            return HealthReport(checks: checks)
        }
    }

    private func checkingTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try translatingErrors {
            try pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .rollback
                }
                return result!
            }
        }
    }

    /// Rebuilds what can be rebuilt from the rows, in one transaction: every spatial index
    /// (SpatiaLite's `RecoverSpatialIndex`), SpatiaLite's triggers when some are missing
    /// (`UpgradeGeometryTriggers`), GeoSpend's missing secondary indexes, and every index (`REINDEX`),
    /// after ids and text stored before the identity rule are rewritten in NFC (`repairIdentity`)
    /// and an interrupted first open's leftover files removed (`FirstOpen.removeLeftovers`); the
    /// map rollups when they differ from a recomputation (`MapRollupStorage`). Then, when a user's deletion still owes its clean-up, `VACUUM` and an emptied write-ahead log.
    /// - Returns: what was done, one line per action.
    public func repair() throws -> [String] {
        var done = FirstOpen.removeLeftovers(of: path).map { "removed \($0), left by an interrupted first open" }
        done += try writeTransaction { db in try Self.repairIdentity(db) }
        done += try rebuildIndexes()
        guard try pendingScrubSince() != nil else { return done }
        do {
            let emptied = try scrubAfterDeletion(rewrite: true)
            done.append("rewrote the file (VACUUM) after a user's deletion"
                + (emptied ? " and emptied the write-ahead log" : "; another process was reading, so the write-ahead log is not empty yet: run --repair again"))
        } catch let failure as ScrubFailure {
            // Another process's lock is the one failure with its own way out (a longer wait).
            // Any other — disk full, an I/O error writing the log or SQLite's temporary copy —
            // is a clean-up not finished, not a damaged file or a command that wrote nothing.
            if let e = failure.error as? DatabaseError, e.resultCode == .SQLITE_BUSY || e.resultCode == .SQLITE_LOCKED {
                throw StoreError.locked(path: path, waitedSeconds: lockWaits.seconds)
            }
            throw StoreError.cleanUpNotFinished(path: path, reason: failure.reason)
        }
        return done
    }

    private func rebuildIndexes() throws -> [String] {
        try writeTransaction { db in
            var done: [String] = []
            let present = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')"))
            let triggers = Self.spatialTables.flatMap { t in Self.spatialTriggers.map { "\($0)_\(t)_geom" } }
            if triggers.contains(where: { !present.contains($0) }) {
                _ = try Int.fetchOne(db, sql: "SELECT UpgradeGeometryTriggers(0)")
                done.append("recreated SpatiaLite's geometry triggers (UpgradeGeometryTriggers)")
            }
            for table in Self.spatialTables {
                guard try Int.fetchOne(db, sql: "SELECT RecoverSpatialIndex(?, 'geom')", arguments: [table]) == 1 else {
                    throw StoreError.damaged(path: path, reason: "RecoverSpatialIndex('\(table)', 'geom') failed")
                }
                done.append("rebuilt the spatial index of \(table).geom (RecoverSpatialIndex)")
            }
            for (name, sql) in Schema.secondaryIndexSQL where !present.contains(name) {
                try db.execute(sql: sql)
                done.append("recreated the missing index \(name)")
            }
            try db.execute(sql: "REINDEX")
            done.append("rebuilt every index (REINDEX)")
            if try !MapRollupStorage.isComplete(db) {
                try MapRollupStorage.remake(db)
                done.append("made the map rollups again from the expenses")
            } else if try MapRollupStorage.differences(db) > 0 {
                try MapRollupStorage.rebuild(db)
                done.append("rebuilt the map rollups from the expenses")
            }
            return done
        }
    }
}
