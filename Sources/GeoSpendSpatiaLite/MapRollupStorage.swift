import GeoSpend
import GRDB

/// The map rollups' table (`MapRollup`, docs/ROLLUPS.md): one row per (grid, level, cell, user,
/// kind, currency) with the count and exact total of the geotagged expenses there. Every write
/// that adds, changes or removes a positioned expense applies its `MapRollup.Changes` in its own
/// transaction: imports, `expenses add` and receipts and list completion (`SpatiaLiteBulkWriter`),
/// `expenses edit|delete` (ExpenseLife), `users delete` (a `user_id` table, so
/// `userKeyedTables` empties it), and `doctor --repair`'s user renames (IdentityRepair).
///
/// `WITHOUT ROWID`: the key is the row, so a level's rows are one range of the primary key's
/// B-tree, read in key order, and no second index doubles the table.
enum MapRollupStorage {
    static let table = "map_rollups"

    /// Migration "v13: map rollups": the table, filled from the expenses already stored.
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE map_rollups (
                grid TEXT NOT NULL CHECK (grid = 'h3' OR grid = 'tile'),
                level INTEGER NOT NULL,
                cell BIGINT NOT NULL,
                user_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                currency TEXT NOT NULL,
                count BIGINT NOT NULL,
                total_minor BIGINT NOT NULL,
                PRIMARY KEY (grid, level, cell, user_id, kind, currency)
            ) WITHOUT ROWID
            """)
        try rebuild(db)
    }

    /// Adds `changes` to the stored rows; a row whose count reaches 0 goes. Without the table
    /// (dropped: the benchmark's import without rollups) nothing is kept, layers scan, and
    /// `doctor` reports it until `--repair` makes the table again.
    static func apply(_ changes: MapRollup.Changes, _ db: Database) throws {
        guard !changes.isEmpty, try db.tableExists(table) else { return }
        let upsert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO map_rollups (grid, level, cell, user_id, kind, currency, count, total_minor)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            ON CONFLICT DO UPDATE SET count = count + excluded.count, total_minor = total_minor + excluded.total_minor
            """))
        let dropEmpty = RawStatement(try db.cachedStatement(sql: """
            DELETE FROM map_rollups
            WHERE grid = ?1 AND level = ?2 AND cell = ?3 AND user_id = ?4 AND kind = ?5 AND currency = ?6 AND count = 0
            """))
        defer { upsert.reset(); dropEmpty.reset() }
        func bindKey(_ s: RawStatement, _ key: MapRollup.Key) {
            s.reset()
            s.bind(1, key.level.grid.rawValue); s.bind(2, Int64(key.level.level)); s.bind(3, key.cell)
            s.bind(4, key.userID); s.bind(5, key.kind); s.bind(6, key.currency)
        }
        for (key, sums) in changes.sorted() {
            bindKey(upsert, key)
            upsert.bind(7, sums.count); upsert.bind(8, sums.totalMinor)
            _ = try upsert.step(db)
            if sums.count < 0 {
                bindKey(dropEmpty, key)
                _ = try dropEmpty.step(db)
            }
        }
    }

    /// One level's rollups as the expenses give them now.
    static func recomputed(_ level: MapRollup.Level, _ db: Database) throws -> [MapRollup.Key: MapRollup.Sums] {
        var changes = MapRollup.Changes()
        let s = RawStatement(try db.cachedStatement(
            sql: "SELECT user_id, kind, currency, lat, lon, amount_minor FROM expenses WHERE lat IS NOT NULL"))
        defer { s.reset() }
        s.reset()
        while try s.step(db) {
            changes.add(
                userID: s.text(0) ?? "", kind: s.text(1) ?? "", currency: s.text(2) ?? "", latitude: s.double(3),
                longitude: s.double(4), amountMinor: s.int64(5), sign: 1, levels: [level])
        }
        return changes.sums
    }

    /// One level's stored rows.
    static func stored(_ level: MapRollup.Level, _ db: Database) throws -> [MapRollup.Key: MapRollup.Sums] {
        var rows: [MapRollup.Key: MapRollup.Sums] = [:]
        let s = RawStatement(try db.cachedStatement(sql: """
            SELECT cell, user_id, kind, currency, count, total_minor FROM map_rollups WHERE grid = ?1 AND level = ?2
            """))
        defer { s.reset() }
        s.reset()
        s.bind(1, level.grid.rawValue); s.bind(2, Int64(level.level))
        while try s.step(db) {
            let key = MapRollup.Key(level: level, cell: s.int64(0), userID: s.text(1) ?? "", kind: s.text(2) ?? "", currency: s.text(3) ?? "")
            rows[key] = MapRollup.Sums(count: s.int64(4), totalMinor: s.int64(5))
        }
        return rows
    }

    /// Rows that differ from a recomputation (missing, extra or with other sums), and the levels
    /// stored that are not kept (left by another version). One level in memory at a time.
    static func differences(_ db: Database) throws -> Int {
        var differing = 0
        for level in MapRollup.levels {
            let (stored, fresh) = (try stored(level, db), try recomputed(level, db))
            differing += fresh.filter { stored[$0.key] != $0.value }.count + stored.keys.filter { fresh[$0] == nil }.count
        }
        let kept = MapRollup.levels.map { "(grid = '\($0.grid.rawValue)' AND level = \($0.level))" }.joined(separator: " OR ")
        differing += try Int.fetchOne(db, sql: "SELECT count(*) FROM map_rollups WHERE NOT (\(kept))") ?? 0
        return differing
    }

    /// Empties the table and fills it from the expenses, a level at a time.
    static func rebuild(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM map_rollups")
        for level in MapRollup.levels {
            var changes = MapRollup.Changes()
            for (key, sums) in try recomputed(level, db) { changes.add(key, sums) }
            try apply(changes, db)
        }
    }
}

extension SpatiaLiteReader {
    public func forEachMapRollup(_ level: MapRollup.Level, _ filter: ExpenseFilter, _ body: (MapRollup.Row) throws -> Void) throws -> Bool {
        try read { db in
            // A file opened read-only before its migration to v13 has no rollups yet: scan.
            guard try db.tableExists(MapRollupStorage.table) else { return false }
            var conditions = ["grid = ?1", "level = ?2"]
            var binds: [(RawStatement) -> Void] = []
            var next: Int32 = 3
            func parameter(_ bind: @escaping (RawStatement, Int32) -> Void) -> String {
                let n = next
                next += 1
                binds.append { bind($0, n) }
                return "?\(n)"
            }
            if let user = filter.userID { conditions.append("user_id = \(parameter { $0.bind($1, user) })") }
            if let currency = filter.currency { conditions.append("currency = \(parameter { $0.bind($1, currency.code) })") }
            if !filter.kinds.isEmpty {
                let kinds = filter.kinds.map(\.rawValue).sorted()
                conditions.append("kind IN (\(kinds.map { k in parameter { $0.bind($1, k) } }.joined(separator: ", ")))")
            }
            let s = RawStatement(try db.cachedStatement(sql: """
                SELECT cell, user_id, currency, count, total_minor FROM map_rollups WHERE \(conditions.joined(separator: " AND "))
                """))
            defer { s.reset() }
            s.reset()
            s.bind(1, level.grid.rawValue); s.bind(2, Int64(level.level))
            for bind in binds { bind(s) }
            while try s.step(db) {
                try body(MapRollup.Row(
                    cell: s.int64(0), userKey: s.withText(1, LocatedAmount.userKey), currencyKey: s.withText(2, LocatedAmount.currencyKey),
                    count: Int(s.int64(3)), totalMinor: s.int64(4)))
            }
            return true
        }
    }
}
