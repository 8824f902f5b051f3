import GeoSpend
import GRDB
import GRDBSQLite

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

    static let cellTable = "map_cell_rollups"

    /// Migration "v14: map cell rollups": per (grid, level, cell, kind, currency) the sums over
    /// every user and the number of distinct users, i.e. of `map_rollups` rows there, kept by
    /// triggers on `map_rollups` as its rows appear, change and vanish. So every write that keeps
    /// those rows (imports, edits, deletes, a user's deletion or rename, a rebuild) keeps these in
    /// the same statement, and an all-users layer reads O(cells).
    static func createCells(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE map_cell_rollups (
                grid TEXT NOT NULL CHECK (grid = 'h3' OR grid = 'tile'),
                level INTEGER NOT NULL,
                cell BIGINT NOT NULL,
                kind TEXT NOT NULL,
                currency TEXT NOT NULL,
                count BIGINT NOT NULL,
                total_minor BIGINT NOT NULL,
                users INTEGER NOT NULL,
                PRIMARY KEY (grid, level, cell, kind, currency)
            ) WITHOUT ROWID
            """)
        // Without the per-user rows (dropped by hand) the cells stay empty; doctor reports it.
        guard try db.tableExists(table) else { return }
        try db.execute(sql: "INSERT INTO map_cell_rollups \(summed)")
        try createTriggers(db)
    }

    /// `map_rollups` summed as `map_cell_rollups` keeps it: one user per row.
    static let summed = """
        SELECT grid, level, cell, kind, currency, sum(count), sum(total_minor), count(*) FROM map_rollups
        GROUP BY grid, level, cell, kind, currency
        """

    /// The triggers that keep `map_cell_rollups` equal to `map_rollups` summed. A row in is one
    /// user more; a row out one fewer (a cell left without users goes); a changed count or total
    /// adds the difference; a changed key (a user's rename) is the old row out and the new one in.
    static func createTriggers(_ db: Database) throws {
        func at(_ row: String) -> String {
            "grid = \(row).grid AND level = \(row).level AND cell = \(row).cell AND kind = \(row).kind AND currency = \(row).currency"
        }
        let rowIn = """
            INSERT INTO map_cell_rollups VALUES (NEW.grid, NEW.level, NEW.cell, NEW.kind, NEW.currency, NEW.count, NEW.total_minor, 1)
                ON CONFLICT DO UPDATE SET count = count + excluded.count, total_minor = total_minor + excluded.total_minor, users = users + 1;
            """
        let rowOut = """
            UPDATE map_cell_rollups SET count = count - OLD.count, total_minor = total_minor - OLD.total_minor, users = users - 1
                WHERE \(at("OLD"));
            DELETE FROM map_cell_rollups WHERE \(at("OLD")) AND users = 0;
            """
        let sameKey = ["grid", "level", "cell", "user_id", "kind", "currency"].map { "OLD.\($0) IS NEW.\($0)" }.joined(separator: " AND ")
        try db.execute(sql: """
            CREATE TRIGGER map_rollups_in AFTER INSERT ON map_rollups BEGIN \(rowIn) END;
            CREATE TRIGGER map_rollups_out AFTER DELETE ON map_rollups BEGIN \(rowOut) END;
            CREATE TRIGGER map_rollups_sums AFTER UPDATE ON map_rollups WHEN \(sameKey) BEGIN
                UPDATE map_cell_rollups SET count = count + NEW.count - OLD.count, total_minor = total_minor + NEW.total_minor - OLD.total_minor
                    WHERE \(at("NEW"));
            END;
            CREATE TRIGGER map_rollups_key AFTER UPDATE ON map_rollups WHEN NOT (\(sameKey)) BEGIN \(rowOut) \(rowIn) END;
            """)
    }

    /// Whether both tables are there (a file at v14 whose tables nobody dropped).
    static func bothKept(_ db: Database) throws -> Bool {
        try db.tableExists(table) && db.tableExists(cellTable)
    }

    /// Both tables and the four triggers between them: what doctor expects.
    static func isComplete(_ db: Database) throws -> Bool {
        try bothKept(db)
            && Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'map_rollups' AND name LIKE 'map_rollups_%'") == 4
    }

    /// Both tables made again from the expenses (doctor --repair, when either or a trigger is missing).
    static func remake(_ db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS map_cell_rollups; DROP TABLE IF EXISTS map_rollups")
        try create(db)
        try createCells(db)
    }

    /// Adds `changes` to the stored rows; a row whose count reaches 0 goes. Without the table
    /// (dropped: the benchmark's import without rollups) nothing is kept, layers scan, and
    /// `doctor` reports it until `--repair` makes the table again.
    static func apply(_ changes: MapRollup.Changes, _ db: Database) throws {
        guard !changes.isEmpty else { return }
        try apply(changes.sorted(), db)
    }

    /// `apply` of changes already in key order.
    static func apply(_ changes: MapRollup.Changes.Sorted, _ db: Database) throws {
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
        for (key, sums) in changes {
            bindKey(upsert, key)
            upsert.bind(7, sums.count); upsert.bind(8, sums.totalMinor)
            _ = try upsert.step(db)
            if sums.count < 0 {
                bindKey(dropEmpty, key)
                _ = try dropEmpty.step(db)
            }
        }
    }

    /// The cells' triggers as stored (name, SQL), for a writer that keeps the cells itself
    /// (`applyKeepingCells`) and sets them aside for its transaction.
    static func cellTriggers(_ db: Database) throws -> [(name: String, sql: String)] {
        try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'map_rollups' AND name LIKE 'map_rollups_%'
            """).map { ($0[0], $0[1]) }
    }

    /// `apply` for the bulk writer, which has set the cells' triggers aside (`cellTriggers`): the
    /// per-user rows in key order, and each cell's change summed from them as they pass (a cell's
    /// rows come together in key order) and written once, where the triggers wrote one cell row
    /// per per-user row (storing the rollups that way was 34 % of a 1M import's samples, perf).
    /// Additions only (the writer inserts rows): a per-user row that appears is one user more in
    /// its cell, and none goes. Into empty tables every row appears; otherwise whether it
    /// appears is the insert's change count: an upsert with `RETURNING count` tried first spent
    /// 12 % of the import's samples in `pwrite` under it.
    static func applyKeepingCells(_ changes: MapRollup.Changes.Sorted, _ db: Database) throws {
        guard !changes.isEmpty, try db.tableExists(table) else { return }
        guard try db.tableExists(cellTable) else { return try apply(changes, db) }
        let insert = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO map_rollups (grid, level, cell, user_id, kind, currency, count, total_minor)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING
            """))
        let add = RawStatement(try db.cachedStatement(sql: """
            UPDATE map_rollups SET count = count + ?7, total_minor = total_minor + ?8
            WHERE grid = ?1 AND level = ?2 AND cell = ?3 AND user_id = ?4 AND kind = ?5 AND currency = ?6
            """))
        let upsertCell = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO map_cell_rollups (grid, level, cell, kind, currency, count, total_minor, users)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            ON CONFLICT DO UPDATE SET count = count + excluded.count, total_minor = total_minor + excluded.total_minor,
                users = users + excluded.users
            """))
        defer { insert.reset(); add.reset(); upsertCell.reset() }
        // Into empty tables (a first import, or the first part stored past the writer's bound)
        // every row appears and none conflicts: they go in a hundred to a statement
        // (`BatchedInsert`). Storing a 1M import's rollups took 2.4 s of its writing thread one
        // row to a statement, 1.2 s a hundred (perf, session 17).
        let intoEmpty = try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM map_rollups) OR EXISTS (SELECT 1 FROM map_cell_rollups)") ?? true)
        var newRows = BatchedInsert(db, into: table, columns: ["grid", "level", "cell", "user_id", "kind", "currency", "count", "total_minor"])
        var newCells = BatchedInsert(db, into: cellTable, columns: ["grid", "level", "cell", "kind", "currency", "count", "total_minor", "users"])
        // The current cell's changes per (kind, currency): one or two entries, so a list.
        var cell: (level: MapRollup.Level, cell: Int64)?
        var pending: [(kind: String, currency: String, sums: MapRollup.Sums, users: Int64)] = []
        func writeCell() throws {
            guard let (level, c) = cell else { return }
            pending.sort { $0.kind != $1.kind ? $0.kind.utf8.lexicographicallyPrecedes($1.kind.utf8)
                : $0.currency.utf8.lexicographicallyPrecedes($1.currency.utf8) }
            for p in pending {
                if intoEmpty {
                    try newCells.add { row in  // appended one by one: an array literal per row is an allocation
                        row.append(.text(level.grid.rawValue)); row.append(.integer(Int64(level.level))); row.append(.integer(c))
                        row.append(.text(p.kind)); row.append(.text(p.currency))
                        row.append(.integer(p.sums.count)); row.append(.integer(p.sums.totalMinor)); row.append(.integer(p.users))
                    }
                } else {
                    upsertCell.reset()
                    upsertCell.bind(1, level.grid.rawValue); upsertCell.bind(2, Int64(level.level)); upsertCell.bind(3, c)
                    upsertCell.bind(4, p.kind); upsertCell.bind(5, p.currency)
                    upsertCell.bind(6, p.sums.count); upsertCell.bind(7, p.sums.totalMinor); upsertCell.bind(8, p.users)
                    _ = try upsertCell.step(db)
                }
            }
            pending.removeAll(keepingCapacity: true)
        }
        func bind(_ s: RawStatement, _ key: MapRollup.Key, _ sums: MapRollup.Sums) {
            s.reset()
            s.bind(1, key.level.grid.rawValue); s.bind(2, Int64(key.level.level)); s.bind(3, key.cell)
            s.bind(4, key.userID); s.bind(5, key.kind); s.bind(6, key.currency)
            s.bind(7, sums.count); s.bind(8, sums.totalMinor)
        }
        for (key, sums) in changes {
            precondition(sums.count > 0, "the bulk writer only adds expenses to the rollups")
            if cell.map({ $0.level != key.level || $0.cell != key.cell }) ?? true {
                try writeCell()
                cell = (key.level, key.cell)
            }
            let appeared: Bool
            if intoEmpty {
                try newRows.add { row in
                    row.append(.text(key.level.grid.rawValue)); row.append(.integer(Int64(key.level.level))); row.append(.integer(key.cell))
                    row.append(.text(key.userID)); row.append(.text(key.kind)); row.append(.text(key.currency))
                    row.append(.integer(sums.count)); row.append(.integer(sums.totalMinor))
                }
                appeared = true
            } else {
                bind(insert, key, sums)
                _ = try insert.step(db)
                appeared = sqlite3_changes(db.sqliteConnection) == 1
            }
            if !appeared {  // the row was there: its sums added
                bind(add, key, sums)
                _ = try add.step(db)
            }
            if let n = pending.firstIndex(where: { $0.kind == key.kind && $0.currency == key.currency }) {
                pending[n].sums.count += sums.count
                pending[n].sums.totalMinor += sums.totalMinor
                pending[n].users += appeared ? 1 : 0
            } else {
                pending.append((key.kind, key.currency, sums, appeared ? 1 : 0))
            }
        }
        try writeCell()
        try newRows.finish()
        try newCells.finish()
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
    /// stored that are not kept (left by another version). One level in memory at a time. The
    /// cells' rows are compared with the per-user rows summed, which are compared with the expenses.
    static func differences(_ db: Database) throws -> Int {
        // Missing or with other sums, then extra (a cell row no per-user row explains): each once.
        let cells = "SELECT grid, level, cell, kind, currency, count, total_minor, users FROM map_cell_rollups"
        var differing = try Int.fetchOne(db, sql: """
            SELECT (SELECT count(*) FROM (\(summed) EXCEPT \(cells)))
                + (SELECT count(*) FROM map_cell_rollups AS c WHERE NOT EXISTS (SELECT 1 FROM map_rollups AS r
                    WHERE r.grid = c.grid AND r.level = c.level AND r.cell = c.cell AND r.kind = c.kind AND r.currency = c.currency))
            """) ?? 0
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
        // The cells first: the triggers then have nothing to subtract from, row by row.
        if try db.tableExists(cellTable) { try db.execute(sql: "DELETE FROM map_cell_rollups") }
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

extension SpatiaLiteReader {
    public func forEachMapCellRollup(
        _ level: MapRollup.Level, _ filter: ExpenseFilter, listingUsersBelow minUsers: Int, _ body: (MapRollup.CellRow) throws -> Void
    ) throws -> Bool {
        try read { db in
            // Before v14, or with either table dropped: the layer reads the per-user rows or scans.
            guard try MapRollupStorage.bothKept(db) else { return false }
            var conditions = ["grid = ?1", "level = ?2"]
            var texts: [String] = []
            if let currency = filter.currency {
                texts.append(currency.code)
                conditions.append("currency = ?\(texts.count + 2)")
            }
            if !filter.kinds.isEmpty {
                let kinds = filter.kinds.map(\.rawValue).sorted()
                texts += kinds
                conditions.append("kind IN (\((texts.count - kinds.count + 3...texts.count + 2).map { "?\($0)" }.joined(separator: ", ")))")
            }
            let s = RawStatement(try db.cachedStatement(sql: """
                SELECT cell, kind, currency, count, total_minor, users FROM map_cell_rollups WHERE \(conditions.joined(separator: " AND "))
                """))
            // Who, in a cell below the threshold: its per-user rows (a prefix of their primary key).
            let who = RawStatement(try db.cachedStatement(sql: """
                SELECT user_id FROM map_rollups WHERE grid = ?1 AND level = ?2 AND cell = ?3 AND kind = ?4 AND currency = ?5
                """))
            defer { s.reset(); who.reset() }
            s.reset()
            s.bind(1, level.grid.rawValue); s.bind(2, Int64(level.level))
            for (n, text) in texts.enumerated() { s.bind(Int32(n + 3), text) }
            while try s.step(db) {
                let users = Int(s.int64(5))
                var keys: [UInt64] = []
                if users < minUsers {
                    who.reset()
                    who.bind(1, level.grid.rawValue); who.bind(2, Int64(level.level)); who.bind(3, s.int64(0))
                    who.bind(4, s.text(1)); who.bind(5, s.text(2))
                    while try who.step(db) { keys.append(who.withText(0, LocatedAmount.userKey)) }
                }
                try body(MapRollup.CellRow(
                    cell: s.int64(0), currencyKey: s.withText(2, LocatedAmount.currencyKey), count: Int(s.int64(3)),
                    totalMinor: s.int64(4), users: users, userKeys: keys))
            }
            return true
        }
    }
}
