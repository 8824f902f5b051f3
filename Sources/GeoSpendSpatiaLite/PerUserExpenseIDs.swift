import GRDB

/// Migration v17: an expense id is unique per user, `UNIQUE (user_id, id)`, no longer across
/// the file (`id TEXT NOT NULL UNIQUE`). With one id space for everyone, importing `e1` when
/// another user held `e1` answered "already stored with different content" — telling one user
/// that another had `e1`, and letting one user block another's import by storing predictable ids
/// first (issue 35, item 11).
///
/// SQLite cannot drop a column's UNIQUE (its index is the table's own `sqlite_autoindex_…`), so
/// the table is rebuilt the way SQLite documents ("Making Other Kinds Of Table Schema Changes",
/// https://sqlite.org/lang_altertable.html): a new table from the stored `CREATE TABLE` text with
/// only that constraint changed, every row copied with its `pk` (the rowid: SpatiaLite's R*Tree
/// `idx_expenses_geom` is keyed by it and stays as it is), the old table dropped, the new one
/// renamed, then every index and trigger on `expenses` (GeoSpend's indexes, SpatiaLite's
/// geometry triggers) created again from its stored text. No table references `expenses`, so
/// the drop cascades nowhere. It runs inside the migrations' one transaction: a kill or a full
/// disk leaves the file at v16.
enum PerUserExpenseIDs {
    static let columnBefore = "id TEXT NOT NULL UNIQUE,"
    static let columnAfter = "id TEXT NOT NULL,"
    static let tableConstraint = "UNIQUE (user_id, id)"

    static func migrate(_ db: Database) throws {
        guard let tableSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'expenses'"),
            tableSQL.components(separatedBy: columnBefore).count == 2,
            let open = tableSQL.firstIndex(of: "("), let close = tableSQL.lastIndex(of: ")")
        else {
            throw StoreError.cannotOpen(
                path: db.description,
                reason: "migration v17 could not find `\(columnBefore)` in the expenses table; the table's schema is not GeoSpend's: run `geospend doctor`")
        }
        let body = tableSQL[tableSQL.index(after: open)..<close].replacing(columnBefore, with: columnAfter)
        let newSQL = "CREATE TABLE expenses_v17 (\(body),\n    \(tableConstraint)\n)"
        // Indexes before triggers, each in the order SQLite keeps them; the autoindex has no text.
        let dependents = try Row.fetchAll(
            db,
            sql: """
                SELECT type, sql FROM sqlite_master
                WHERE tbl_name = 'expenses' AND type IN ('index', 'trigger') AND sql IS NOT NULL
                ORDER BY type = 'trigger', rowid
                """
        ).map { ($0[0] as String, $0[1] as String) }
        let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('expenses') ORDER BY cid")
            .map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM expenses") ?? 0
        try db.execute(sql: newSQL)
        try db.execute(sql: "INSERT INTO expenses_v17 (\(columns)) SELECT \(columns) FROM expenses ORDER BY pk")
        try db.execute(sql: "DROP TABLE expenses")
        try db.execute(sql: "ALTER TABLE expenses_v17 RENAME TO expenses")
        for (_, sql) in dependents { try db.execute(sql: sql) }
        let after = try Int.fetchOne(db, sql: "SELECT count(*) FROM expenses") ?? 0
        guard after == before else {
            throw StoreError.cannotOpen(path: db.description, reason: "migration v17 copied \(after) of \(before) expenses")
        }
    }
}
