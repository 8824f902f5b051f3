import GeoSpend
import GRDB

/// One expense's life after import (`geospend expenses …`, `reminders due`). Every statement is
/// scoped by `user_id`: another user's expense is never found, so never revealed.
extension SpatiaLiteStore: ExpenseEditing {
    /// `expenseColumns` (0–16), then the reminder's text (17), the times (18, 19), the row key
    /// (20), the position's provenance (21, 22).
    static let storedColumns = "\(StoredRows.expenseColumns), e.remind_at, e.created_at, e.updated_at, e.pk, e.position_source, e.position_confidence"
    static let storedSource = "expenses AS e LEFT JOIN categories AS c ON c.id = e.category_id"
    /// SQLite's clock, as `created_at`/`updated_at` keep it: `2025-03-01T09:00:00.000Z`.
    static let nowSQL = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

    static func decodeStored(_ s: RawStatement) throws -> StoredExpense {
        StoredExpense(
            expense: try StoredRows.decodeExpense(s), remindAt: try s.text(17).map { try Timestamp(parsing: $0) },
            createdAt: s.text(18), updatedAt: s.text(19), positionSource: s.text(21).flatMap(PositionSource.init(rawValue:)),
            positionConfidence: s.optionalDouble(22))
    }

    /// Reads rows of `storedColumns` from `sql` with `bind` applied.
    static func fetchStored(_ db: Database, _ sql: String, _ bind: (RawStatement) -> Void) throws -> [(StoredExpense, Int64)] {
        let s = RawStatement(try db.cachedStatement(sql: sql))
        s.reset()
        defer { s.reset() }
        bind(s)
        var rows: [(StoredExpense, Int64)] = []
        while try s.step(db) { rows.append((try decodeStored(s), s.int64(20))) }
        return rows
    }

    static func storedExpense(_ db: Database, id: String, userID: String) throws -> StoredExpense? {
        try fetchStored(db, "SELECT \(storedColumns) FROM \(storedSource) WHERE e.id = ?1 AND e.user_id = ?2") {
            $0.bind(1, id); $0.bind(2, userID)
        }.first?.0
    }

    public func addExpense(_ expense: Expense, remindAt: Timestamp?) async throws -> StoredExpense {
        try await bulkWrite { writer, db in
            // Ids are unique per user (v17): another user's expense of the same id is neither
            // in the way nor revealed.
            if try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM expenses WHERE id = ? AND user_id = ?)", arguments: [expense.id, expense.userID]) == true
            {
                throw EditError.invalid(field: "id", reason: "\(expense.id) is taken")
            }
            if let name = expense.category {
                try Self.checkCategory(db, name: name, kind: GeoSpend.Category.kind(for: expense.kind), userID: expense.userID)
            }
            do { _ = try writer.insert(expense) } catch let rejection as RowRejection {
                throw rejection.column == "store_id"
                    ? EditError.unknownStore(expense.storeID ?? "") : EditError.invalid(field: rejection.column, reason: rejection.reason)
            }
            try db.execute(
                // A position given here is given by hand (`PositionSource.manual`).
                sql: """
                    UPDATE expenses SET created_at = \(Self.nowSQL), updated_at = \(Self.nowSQL), remind_at = ?, remind_ms = ?,
                        position_source = CASE WHEN lat IS NULL THEN NULL ELSE 'manual' END
                    WHERE id = ? AND user_id = ?
                    """,
                arguments: [remindAt?.text, remindAt?.epochMilliseconds, expense.id, expense.userID])
            guard let stored = try Self.storedExpense(db, id: expense.id, userID: expense.userID) else {
                throw StoreError.notFound(what: "expense", id: expense.id)
            }
            return stored
        }
    }

    public func updateExpense(_ expense: Expense, remindAt: Timestamp?) async throws -> StoredExpense? {
        try await scrubbingWrite { db in
            guard let old = try Self.storedExpense(db, id: expense.id, userID: expense.userID) else { return nil }
            let kind = GeoSpend.Category.kind(for: expense.kind)
            var categoryID: Int64?
            if let name = expense.category {
                if ExpenseUpdateRules.checksCategory(old: old.expense, new: expense) {
                    try Self.checkCategory(db, name: name, kind: kind, userID: expense.userID)
                }
                categoryID = try Int64.fetchOne(
                    db, sql: "SELECT id FROM categories WHERE user_id = ? AND kind = ? AND name = ? COLLATE NOCASE",
                    arguments: [expense.userID, kind.rawValue, name])
                if categoryID == nil { throw EditError.unknownCategory(name: name, kind: kind, suggestion: nil) }
            }
            if let storeID = expense.storeID,
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM stores WHERE id = ?)", arguments: [storeID]) != true
            {
                throw EditError.unknownStore(storeID)
            }
            // `total` sums in floating point: a sum beyond Int64 reads as none.
            let others = try Double.fetchOne(
                db, sql: "SELECT total(amount_minor) FROM expenses WHERE currency = ? AND NOT (id = ? AND user_id = ?)",
                arguments: [expense.amount.currency.code, expense.id, expense.userID]) ?? 0
            try ExpenseUpdateRules.checkTotal(others: Int64(exactly: others), expense)
            let c = expense.location?.coordinate
            try db.execute(
                sql: """
                    UPDATE expenses SET kind = ?, amount_minor = ?, currency = ?, occurred_at = ?, occurred_ms = ?,
                        utc_offset_min = ?, local_date = ?, title = ?, category_id = ?, merchant = ?, lat = ?, lon = ?,
                        accuracy_m = ?, store_id = ?, notes = ?, content_hash = ?,
                        geom = CASE WHEN ?11 IS NULL THEN NULL ELSE MakePoint(?12, ?11, 4326) END,
                        remind_at = ?, remind_ms = ?, updated_at = \(Self.nowSQL)
                    WHERE id = ? AND user_id = ?
                    """,
                arguments: [
                    expense.kind.rawValue, expense.amount.minorUnits, expense.amount.currency.code, expense.occurredAt.text,
                    expense.occurredAt.epochMilliseconds, expense.occurredAt.utcOffsetMinutes, expense.occurredAt.localDate,
                    expense.title, categoryID, expense.merchant, c?.latitude, c?.longitude, expense.location?.accuracyMeters,
                    expense.storeID, expense.notes, expense.contentHash, remindAt?.text, remindAt?.epochMilliseconds,
                    expense.id, expense.userID,
                ])
            var rollups = MapRollup.Changes()
            rollups.add(old.expense, sign: -1)
            rollups.add(expense, sign: 1)
            try MapRollupStorage.apply(rollups, db)
            if ExpenseUpdateRules.movesPosition(old: old.expense, new: expense) {
                try db.execute(
                    sql: "UPDATE expenses SET position_source = ?, position_confidence = NULL, store_inferred = 0 WHERE id = ? AND user_id = ?",
                    arguments: [ExpenseUpdateRules.positionSource(expense)?.rawValue, expense.id, expense.userID])
            }
            // A moved point leaves its old bounds in the R*Tree node's unused slot (RTreeScrub).
            if old.expense.location?.coordinate != c { try RTreeScrub.zeroUnusedCells(of: "idx_expenses_geom", in: db) }
            // The budget events of the edit (its old and new day), in its transaction (issue 39).
            var touched = TouchedDays()
            touched.add(old.expense)
            touched.add(expense)
            try NotificationSchema.raiseBudgetEvents(db, path: path, touched: touched)
            return try Self.storedExpense(db, id: expense.id, userID: expense.userID)
        }
    }

    /// One expense's row gone inside the caller's transaction, its map rollups and spatial index
    /// kept true (also a receipt's expense rewritten by `receipts correct`).
    static func deleteExpenseRow(_ db: Database, id: String, userID: String) throws {
        if let old = try Self.storedExpense(db, id: id, userID: userID) {
            var rollups = MapRollup.Changes()
            rollups.add(old.expense, sign: -1)
            try MapRollupStorage.apply(rollups, db)
        }
        // The reminder is a column of the row: it goes with it.
        try db.execute(sql: "DELETE FROM expenses WHERE id = ? AND user_id = ?", arguments: [id, userID])
        try RTreeScrub.zeroUnusedCells(of: "idx_expenses_geom", in: db)
        try Self.refreshLayerStatistics(db)
        try Self.markPendingScrub(db)
    }

    public func deleteExpense(id: String, userID: String, rewrite: DeletionRewrite) throws -> [String]? {
        let what = "expense \"\(id)\" of user \"\(userID)\""
        let deleted: Bool = try translatingErrors {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")  // as `deleteUser`
                var deleted = false
                try db.inTransaction(.immediate) {
                    guard try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM expenses WHERE id = ? AND user_id = ?)", arguments: [id, userID]) == true
                    else { return .rollback }
                    if rewrite == .now { try Self.checkSpaceToRewrite(db, path: path, what: what) }
                    try Self.deleteExpenseRow(db, id: id, userID: userID)
                    // A receipt's expense goes with its receipt and price records (issue 42 §2:
                    // they were left behind before receipts were kept).
                    try Self.deleteReceiptRows(db, expenseID: id, userID: userID)
                    deleted = true
                    return .commit
                }
                return deleted
            }
        }
        guard deleted else { return nil }
        var leftovers: [String] = []
        do {
            if rewrite == .skipped {
                leftovers.append("the file was not rewritten: fragments of the deleted row may stay in unused page space until `geospend doctor --repair` rewrites it")
            }
            if try !scrubAfterDeletion(rewrite: rewrite == .now) {
                leftovers.append("another connection was reading: the write-ahead log keeps old pages until its next checkpoint; `geospend doctor --repair` empties it")
            }
        } catch let failure as ScrubFailure {
            throw StoreError.deletedButNotScrubbed(path: path, what: what, rows: 1, reason: failure.reason)
        }
        return leftovers
    }

    /// `VACUUM` and an emptied write-ahead log when a deletion owes them (`PendingScrub`).
    public func rewriteAfterDeletions() throws -> [String] {
        guard try pendingScrubSince() != nil else { return [] }
        do {
            return try scrubAfterDeletion(rewrite: true)
                ? [] : ["another connection was reading: the write-ahead log keeps old pages until its next checkpoint; `geospend doctor --repair` empties it"]
        } catch let failure as ScrubFailure {
            throw StoreError.cleanUpNotFinished(path: path, reason: failure.reason)
        }
    }

    /// A category named for a new expense: the rows `EditError.checkCategory` decides on.
    static func checkCategory(_ db: Database, name: String, kind: GeoSpend.Category.Kind, userID: String) throws {
        let row = try Row.fetchOne(
            db, sql: "SELECT name, is_active FROM categories WHERE user_id = ? AND kind = ? AND name = ? COLLATE NOCASE",
            arguments: [userID, kind.rawValue, name])
        try EditError.checkCategory(name, kind: kind, found: row.map { (name: $0[0] as String, isActive: $0[1] as Bool) }) {
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [userID]) == true else { return nil }
            return try String.fetchAll(
                db, sql: "SELECT name FROM categories WHERE user_id = ? AND kind = ? AND is_active ORDER BY name",
                arguments: [userID, kind.rawValue])
        }
    }

    /// One `BEGIN IMMEDIATE` transaction with `secure_delete` on: text an edit replaces is zeroed
    /// where SQLite frees it. On GRDB's writer queue, cancelled (rolled back) with its caller.
    func scrubbingWrite<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await translatingErrors {
            try await pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        }
    }
}

/// `ExpenseEditing`'s deletions for async callers. Each runs to its end on a dispatch thread
/// (`offloaded`) even when its caller is cancelled: a deletion that committed goes on to its
/// clean-up (the rewrite, the emptied log), where GRDB's async access, cancelled, would stop
/// between those steps and leave the clean-up owed. The other edits run on GRDB's async API.
extension SpatiaLiteStore {
    public func deleteExpense(id: String, userID: String, rewrite: DeletionRewrite) async throws -> [String]? {
        try await offloaded { try self.deleteExpense(id: id, userID: userID, rewrite: rewrite) }
    }

    public func rewriteAfterDeletions() async throws -> [String] {
        try await offloaded { try self.rewriteAfterDeletions() }
    }
}

/// The expense reads `ExpenseEditing` declares, in a read scope's snapshot.
extension SpatiaLiteReader: StoredExpenseReader {
    public func expense(id: String, userID: String) throws -> StoredExpense? {
        try SpatiaLiteStore.storedExpense(db, id: id, userID: userID)
    }

    public func expensePage(_ filter: ExpenseFilter, after cursor: ExpenseCursor?, limit: Int) throws -> ExpensePage {
        let (conditions, bindings) = StoredRows.conditions(for: filter, firstParameter: 5)  // ?1–?4: cursor and limit
        // Ids are unique per user: the user orders rows of one instant and id.
        let all = conditions + (cursor == nil ? [] : ["(e.occurred_ms, e.id, e.user_id) < (?1, ?2, ?4)"])
        let sql = """
            SELECT \(SpatiaLiteStore.storedColumns) FROM \(SpatiaLiteStore.storedSource)
            \(all.isEmpty ? "" : "WHERE " + all.joined(separator: " AND "))
            ORDER BY e.occurred_ms DESC, e.id DESC, e.user_id DESC LIMIT ?3
            """
        let rows = try SpatiaLiteStore.fetchStored(db, sql) { s in
            s.bind(1, cursor?.occurredMilliseconds); s.bind(2, cursor?.id); s.bind(3, Int64(limit) + 1)
            s.bind(4, cursor?.userID)
            for apply in bindings { apply(s) }
        }
        // One row more than asked tells whether another page follows.
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map { ExpenseCursor(occurredMilliseconds: $0.0.expense.occurredAt.epochMilliseconds, id: $0.0.expense.id, userID: $0.0.expense.userID) } : nil
        return ExpensePage(expenses: page.map(\.0), next: next)
    }

    public func searchExpenses(userID: String, text: String, limit: Int) throws -> [StoredExpense] {
        // LIKE with `\` escaping the wildcards typed: "50%" finds "50%", not "50 euros".
        let escaped = text.replacing("\\", with: "\\\\").replacing("%", with: "\\%").replacing("_", with: "\\_")
        let sql = """
            SELECT \(SpatiaLiteStore.storedColumns) FROM \(SpatiaLiteStore.storedSource)
            WHERE e.user_id = ?1 AND (e.title LIKE ?2 ESCAPE '\\' OR e.merchant LIKE ?2 ESCAPE '\\'
                OR e.notes LIKE ?2 ESCAPE '\\' OR c.name LIKE ?2 ESCAPE '\\')
            ORDER BY e.occurred_ms DESC, e.id DESC LIMIT ?3
            """
        return try SpatiaLiteStore.fetchStored(db, sql) { s in
            s.bind(1, userID); s.bind(2, "%" + escaped + "%"); s.bind(3, Int64(limit))
        }.map(\.0)
    }

    public func dueReminders(userID: String, asOf: Timestamp) throws -> [StoredExpense] {
        let sql = """
            SELECT \(SpatiaLiteStore.storedColumns) FROM \(SpatiaLiteStore.storedSource)
            WHERE e.user_id = ?1 AND e.remind_ms <= ?2 ORDER BY e.remind_ms, e.id
            """
        return try SpatiaLiteStore.fetchStored(db, sql) { s in s.bind(1, userID); s.bind(2, asOf.epochMilliseconds) }.map(\.0)
    }
}
