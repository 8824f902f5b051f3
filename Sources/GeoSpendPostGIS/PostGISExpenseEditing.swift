import Foundation
import GeoSpend
import PostgresNIO

/// One expense's life after import on PostgreSQL (`geospend expenses …`, `reminders due`), with
/// the file's rules, errors and orders (Sources/GeoSpendSpatiaLite/ExpenseLife.swift). Every
/// statement is scoped by `user_id`: another user's expense is never found, so never revealed,
/// and each one reaches one partition of `expenses`.
extension PostGISStore: ExpenseEditing {
    /// `PostGISRows.expenseColumns` (0–16), then the reminder's text (17), the times (18, 19) and
    /// the position's provenance (20, 21).
    static let storedColumns = "\(PostGISRows.expenseColumns), e.remind_at, e.created_at, e.updated_at, e.position_source, e.position_confidence"
    static let storedSource = "expenses AS e \(PostGISRows.categoryJoin)"

    static func stored(_ row: PostgresRow) throws -> StoredExpense {
        let r = row.makeRandomAccess()
        return StoredExpense(
            expense: try PostGISRows.expense(r), remindAt: try r[17].decode(String?.self).map { try Timestamp(parsing: $0) },
            createdAt: try r[18].decode(String?.self), updatedAt: try r[19].decode(String?.self),
            positionSource: try r[20].decode(String?.self).flatMap(PositionSource.init(rawValue:)),
            positionConfidence: try r[21].decode(Double?.self))
    }

    static func storedExpense(_ r: PostGISReader, id: String, userID: String) throws -> StoredExpense? {
        try r.rows("SELECT \(unescaped: Self.storedColumns) FROM \(unescaped: Self.storedSource) WHERE e.id = \(id) AND e.user_id = \(userID)")
            .first.map(stored)
    }

    public func addExpense(_ expense: Expense, remindAt: Timestamp?) async throws -> StoredExpense {
        try await editing { r in
            // Ids are unique per user, as the file's UNIQUE (user_id, id) has them (v17): another
            // user's expense of the same id is neither in the way nor revealed.
            if !(try r.rows("SELECT 1 FROM expenses WHERE id = \(expense.id) AND user_id = \(expense.userID) LIMIT 1")).isEmpty {
                throw EditError.invalid(field: "id", reason: "\(expense.id) is taken")
            }
            if let name = expense.category {
                try Self.checkCategory(r, name: name, kind: Category.kind(for: expense.kind), userID: expense.userID)
            }
            // The import's own writer: the user and their defaults created on first sight, the
            // same checks, hash and row.
            let writer = PostGISWriter(connection: r.connection, logger: r.logger)
            let outcome = try writer.insert([HashedRow(expense, contentHash: expense.contentHash)])[0]
            try writer.finish()
            if case .rejected(let rejection) = outcome {
                throw rejection.column == "store_id"
                    ? EditError.unknownStore(expense.storeID ?? "") : EditError.invalid(field: rejection.column, reason: rejection.reason)
            }
            try Self.raiseBudgetEvents(r, touched: writer.touched)
            // A position given here is given by hand (`PositionSource.manual`).
            _ = try r.rows("""
                UPDATE expenses SET created_at = \(unescaped: Self.nowSQL), updated_at = \(unescaped: Self.nowSQL),
                    remind_at = \(remindAt?.text), remind_ms = \(remindAt?.epochMilliseconds),
                    position_source = CASE WHEN lat IS NULL THEN NULL ELSE 'manual' END, position_confidence = NULL, store_inferred = false
                WHERE id = \(expense.id) AND user_id = \(expense.userID)
                """)
            guard let stored = try Self.storedExpense(r, id: expense.id, userID: expense.userID) else {
                throw EditError.invalid(field: "id", reason: "\(expense.id) was not stored")
            }
            return stored
        }
    }

    public func updateExpense(_ expense: Expense, remindAt: Timestamp?) async throws -> StoredExpense? {
        try await editing { r in
            guard let old = try Self.storedExpense(r, id: expense.id, userID: expense.userID) else { return nil }
            let kind = Category.kind(for: expense.kind)
            var categoryID: Int64?
            if let name = expense.category {
                if ExpenseUpdateRules.checksCategory(old: old.expense, new: expense) {
                    try Self.checkCategory(r, name: name, kind: kind, userID: expense.userID)
                }
                categoryID = try Self.categoryID(r, name: name, kind: kind, userID: expense.userID)
                if categoryID == nil { throw EditError.unknownCategory(name: name, kind: kind, suggestion: nil) }
            }
            if let storeID = expense.storeID, try r.rows("SELECT 1 FROM stores WHERE id = \(storeID)").isEmpty {
                throw EditError.unknownStore(storeID)
            }
            if let column = CopyText.columnWithNUL([
                "title": expense.title, "merchant": expense.merchant, "notes": expense.notes,
            ]) {
                throw EditError.invalid(field: column, reason: "contains a NUL character (U+0000), which PostgreSQL cannot store; remove it")
            }
            // SUM of bigints is numeric: beyond Int64 its text reads as none.
            let code = expense.amount.currency.code
            let others = try r.rows("SELECT COALESCE(SUM(amount_minor), 0)::text FROM expenses WHERE currency = \(code) AND NOT (id = \(expense.id) AND user_id = \(expense.userID))")[0]
                .decode(String.self)
            try ExpenseUpdateRules.checkTotal(others: Int64(others), expense)
            let c = expense.location?.coordinate
            let t = expense.occurredAt
            // `geotag undo` no longer unlinks a store once the position moved (store_inferred off).
            let moved = ExpenseUpdateRules.movesPosition(old: old.expense, new: expense)
            let source = ExpenseUpdateRules.positionSource(expense)?.rawValue
            _ = try r.rows("""
                UPDATE expenses SET kind = \(expense.kind.rawValue), amount_minor = \(expense.amount.minorUnits), currency = \(code),
                    occurred_at = \(t.text), occurred_ms = \(t.epochMilliseconds), utc_offset_min = \(t.utcOffsetMinutes.map(Int32.init)),
                    local_date = \(t.localDate), title = \(expense.title), category_id = \(categoryID), merchant = \(expense.merchant),
                    lat = \(c?.latitude), lon = \(c?.longitude), accuracy_m = \(expense.location?.accuracyMeters),
                    store_id = \(expense.storeID), notes = \(expense.notes), content_hash = \(expense.contentHash),
                    remind_at = \(remindAt?.text), remind_ms = \(remindAt?.epochMilliseconds), updated_at = \(unescaped: Self.nowSQL),
                    position_source = CASE WHEN \(moved) THEN \(source) ELSE position_source END,
                    position_confidence = CASE WHEN \(moved) THEN NULL ELSE position_confidence END,
                    store_inferred = store_inferred AND NOT \(moved)
                WHERE id = \(expense.id) AND user_id = \(expense.userID)
                """)
            // The budget events of the edit (its old and new day), in its transaction (issue 39).
            var touched = TouchedDays()
            touched.add(old.expense)
            touched.add(expense)
            try Self.raiseBudgetEvents(r, touched: touched)
            return try Self.storedExpense(r, id: expense.id, userID: expense.userID)
        }
    }

    /// Deletes the row in one transaction, then (`.now`) `VACUUM`s `expenses`, so its space is
    /// reusable; what PostgreSQL keeps beyond that is said in the notes, as for `users delete`.
    public func deleteExpense(id: String, userID: String, rewrite: DeletionRewrite) async throws -> [String]? {
        let deleted = try await editing { r in
            // The reminder is a column of the row: it goes with it. A receipt's expense takes its
            // receipt and price records along (issue 42 §2: they were left behind before).
            let gone = !(try r.rows("DELETE FROM expenses WHERE id = \(id) AND user_id = \(userID) RETURNING 1")).isEmpty
            if gone { try Self.deleteReceiptRows(r, expenseID: id, userID: userID) }
            return gone
        }
        guard deleted else { return nil }
        if rewrite == .batched { return [Self.walLeftover] }
        return try await vacuum(["expenses"], rewrite == .now)
    }

    /// `VACUUM` of `expenses` and a receipt's other tables (PostgreSQL keeps no record of
    /// deletions owing one: it always runs).
    public func rewriteAfterDeletions() async throws -> [String] {
        try await vacuum(Self.receiptTables, true)
    }

    public func rewriteOwed() async throws -> Bool { false }

    /// The id of the user's category of that name (ASCII letters folded) and kind.
    static func categoryID(_ r: PostGISReader, name: String, kind: Category.Kind, userID: String) throws -> Int64? {
        try r.rows("""
            SELECT id FROM categories WHERE user_id = \(userID) AND kind = \(kind.rawValue) AND name_fold = \(PostGISRows.asciiFolded(name))
            """).first?.decode(Int64.self)
    }

    /// A category named for a new expense: the rows `EditError.checkCategory` decides on.
    static func checkCategory(_ r: PostGISReader, name: String, kind: Category.Kind, userID: String) throws {
        let found = try r.rows("""
            SELECT name, is_active FROM categories
            WHERE user_id = \(userID) AND kind = \(kind.rawValue) AND name_fold = \(PostGISRows.asciiFolded(name))
            """).first.map { try $0.decode((String, Bool).self) }
        try EditError.checkCategory(name, kind: kind, found: found.map { (name: $0.0, isActive: $0.1) }) {
            guard try r.hasUser(userID) else { return nil }
            return try r.rows(#"""
                SELECT name FROM categories WHERE user_id = \#(userID) AND kind = \#(kind.rawValue) AND is_active ORDER BY name COLLATE "C"
                """#).map { try $0.decode(String.self) }
        }
    }
}

/// The expense reads `ExpenseEditing` declares, in a read scope's snapshot.
extension PostGISReader: StoredExpenseReader {
    public func expense(id: String, userID: String) throws -> StoredExpense? {
        try PostGISStore.storedExpense(self, id: id, userID: userID)
    }

    public func expensePage(_ filter: ExpenseFilter, after cursor: ExpenseCursor?, limit: Int) throws -> ExpensePage {
        var w = try PostGISFilter(filter)
        // Ids are unique per user: the user orders rows of one instant and id.
        if let cursor {
            w.add("(e.occurred_ms, e.id, e.user_id) < (\(w.bind(cursor.occurredMilliseconds)), \(w.bind(cursor.id)), \(w.bind(cursor.userID)))")
        }
        // One row more than asked tells whether another page follows.
        let order = "ORDER BY e.occurred_ms DESC, e.id DESC, e.user_id DESC LIMIT \(w.bind(Int64(limit) + 1))"  // binds before `query` reads them
        let query = w.query("SELECT \(PostGISStore.storedColumns) FROM \(PostGISStore.storedSource)", suffix: order)
        let found = try rows(query).map(PostGISStore.stored)
        let page = found.prefix(limit)
        let next = found.count > limit
            ? page.last.map { ExpenseCursor(occurredMilliseconds: $0.expense.occurredAt.epochMilliseconds, id: $0.expense.id, userID: $0.expense.userID) } : nil
        return ExpensePage(expenses: Array(page), next: next)
    }

    /// LIKE with `\` escaping the wildcards typed ("50%" finds "50%"), on ASCII-folded text: the
    /// file's LIKE folds A–Z alone, where PostgreSQL's ILIKE would fold by locale.
    public func searchExpenses(userID: String, text: String, limit: Int) throws -> [StoredExpense] {
        let escaped = text.replacing("\\", with: "\\\\").replacing("%", with: "\\%").replacing("_", with: "\\_")
        let pattern = "%" + PostGISRows.asciiFolded(escaped) + "%"
        let fold = PostGISSchema.asciiFold
        return try rows("""
            SELECT \(unescaped: PostGISStore.storedColumns) FROM \(unescaped: PostGISStore.storedSource)
            WHERE e.user_id = \(userID) AND (\(unescaped: fold("e.title")) LIKE \(pattern) ESCAPE '\\'
                OR \(unescaped: fold("e.merchant")) LIKE \(pattern) ESCAPE '\\'
                OR \(unescaped: fold("e.notes")) LIKE \(pattern) ESCAPE '\\' OR c.name_fold LIKE \(pattern) ESCAPE '\\')
            ORDER BY e.occurred_ms DESC, e.id DESC LIMIT \(Int64(limit))
            """).map(PostGISStore.stored)
    }

    public func dueReminders(userID: String, asOf: Timestamp) throws -> [StoredExpense] {
        try rows("""
            SELECT \(unescaped: PostGISStore.storedColumns) FROM \(unescaped: PostGISStore.storedSource)
            WHERE e.user_id = \(userID) AND e.remind_ms <= \(asOf.epochMilliseconds) ORDER BY e.remind_ms, e.id
            """).map(PostGISStore.stored)
    }
}
