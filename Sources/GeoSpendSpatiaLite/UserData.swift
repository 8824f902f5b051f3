import GeoSpend
import GRDB

/// A user's own data: list, export, delete (`geospend users …`).
extension SpatiaLiteStore: UserProfileStore {
    public func setUserProfile(userID: String, name: String?, email: String?) async throws -> UserRecord? {
        try await writeTransaction { db -> UserRecord? in
            try db.execute(sql: "UPDATE users SET display_name = ?, email = ? WHERE id = ?", arguments: [name, email, userID])
            guard db.changesCount > 0 else { return nil }
            return try Row.fetchOne(db, sql: "\(Self.userSelect) WHERE u.id = ?", arguments: [userID]).map(Self.userRecord)
        }
    }
}

extension SpatiaLiteStore: UserDataStore {
    /// A user with their row counts (each count one lookup in a `user_id` index).
    static let userSelect = """
        SELECT u.id, u.display_name, u.created_at,
            (SELECT count(*) FROM expenses WHERE user_id = u.id),
            (SELECT count(*) FROM expenses WHERE user_id = u.id AND lat IS NOT NULL),
            (SELECT count(*) FROM categories WHERE user_id = u.id),
            u.email
        FROM users AS u
        """

    static func userRecord(_ r: Row) -> UserRecord {
        UserRecord(id: r[0], displayName: r[1], email: r[6], createdAt: r[2], expenses: r[3], geotaggedExpenses: r[4], categories: r[5])
    }

    struct UserSnapshot: UserDataSnapshot {
        let db: Database
        let user: UserRecord

        func categories() throws -> [GeoSpend.Category] {
            try Row.fetchAll(db, sql: "SELECT kind, name FROM categories WHERE user_id = ? ORDER BY kind, name", arguments: [user.id])
                .map { GeoSpend.Category(name: $0[1], kind: GeoSpend.Category.Kind(rawValue: $0[0]) ?? .expense) }
        }

        func forEachExpense(_ body: (Expense) throws -> Void) throws {
            let s = RawStatement(try db.cachedStatement(sql: """
                SELECT \(StoredRows.expenseColumns)
                FROM expenses AS e LEFT JOIN categories AS c ON c.id = e.category_id
                WHERE e.user_id = ?1 ORDER BY e.id
                """))
            s.reset()
            defer { s.reset() }
            s.bind(1, user.id)
            while try s.step(db) { try body(try StoredRows.decodeExpense(s)) }
        }

        func categoryDetails() throws -> [CategoryDetail] {
            try SpatiaLiteStore.categoryDetails(db, userID: user.id, includeInactive: true)
        }

        func forEachExpenseTimes(_ body: (ExpenseTimes) throws -> Void) throws {
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, remind_at, created_at, updated_at, position_source, position_confidence, store_inferred FROM expenses
                WHERE user_id = ? AND (remind_at IS NOT NULL OR created_at IS NOT NULL OR updated_at IS NOT NULL
                    OR position_source IS NOT NULL)
                ORDER BY id
                """, arguments: [user.id])
            while let r = try rows.next() {
                try body(ExpenseTimes(
                    id: r[0], remindAt: r[1], createdAt: r[2], updatedAt: r[3],
                    positionSource: (r[4] as String?).flatMap(PositionSource.init(rawValue:)), positionConfidence: r[5],
                    storeInferred: r[6]))
            }
        }

        func forEachPosition(_ body: (Position) throws -> Void) throws {
            let s = RawStatement(try db.cachedStatement(sql: """
                SELECT t_ms, lat, lon, accuracy_m, source FROM positions WHERE user_id = ?1 ORDER BY t_ms, lat, lon, source
                """))
            s.reset()
            defer { s.reset() }
            s.bind(1, user.id)
            while try s.step(db) {
                guard let source = s.text(4).flatMap(LocationHistoryFormat.init(rawValue:)) else { continue }
                try body(Position(
                    epochMilliseconds: s.int64(0), coordinate: Coordinate(uncheckedLatitude: s.double(1), longitude: s.double(2)),
                    accuracyMeters: s.optionalDouble(3), source: source))
            }
        }

        func visits() throws -> [Visit] {
            try SpatiaLiteStore.visits(db, user: user.id, from: nil, to: nil)
        }

        func settings() throws -> UserSettings {
            try UserSettingsSchema.settings(db, user: user.id)
        }

        func webhooks() throws -> [Webhook] {
            try NotificationSchema.webhooks(db, user: user.id)
        }

        func notificationSettings() throws -> NotificationSettings {
            try NotificationSchema.settings(db, user: user.id)
        }

        func recurringRules() throws -> [RecurringRule] {
            try RecurringSchema.rules(db, user: user.id)
        }

        func pantryItems() throws -> [PantryItem] {
            try PantrySchema.items(db, user: user.id)
        }

        func storeChoiceRecord() throws -> StoreChoiceRecord {
            let chosen = try StoreChoiceSchema.chosenIDs(db, user: user.id)
            return StoreChoiceRecord(
                added: try StoreChoiceSchema.added(db, user: user.id), favouriteIDs: chosen.favourites, defaultID: chosen.defaultID)
        }

        func productTags() throws -> [ProductTag] {
            try SpatiaLiteStore.productTags(db, userID: user.id)
        }

        func productMarks() throws -> [(product: Product, marks: ProductMarks)] {
            let marks = try SpatiaLiteStore.productMarks(db, userID: user.id)
            guard !marks.isEmpty else { return [] }
            return try SpatiaLiteStore.fetchProducts(db, where: "p.id IN (SELECT value FROM json_each(?))", [
                JSONOutput.array(marks.keys.sorted().map { .integer($0) }).serialized(pretty: false),
            ]).map { (product: $0, marks: marks[$0.id]!) }
        }

        func communityActivity() throws -> CommunityActivity {
            CommunityActivity(
                member: try CommunitySchema.member(db, user.id),
                posts: try Row.fetchAll(db, sql: "SELECT \(CommunitySchema.postColumns) WHERE p.user_id = ? ORDER BY p.id", arguments: [user.id])
                    .map(CommunitySchema.post),
                comments: try CommunitySchema.comments(db, where: "c.user_id = ?", [user.id]))
        }

        func budgets() throws -> [Budget] {
            try SpatiaLiteStore.fetchBudgets(db, where: "b.user_id = ?", [user.id])
        }

        func periods() throws -> [(period: Period, expenseIDs: [String])] {
            var ids: [Int64: [String]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT p.number, e.id FROM expenses AS e JOIN periods AS p ON p.pk = e.period_id
                WHERE e.user_id = ? ORDER BY p.number, e.id
                """, arguments: [user.id]) {
                ids[row[0], default: []].append(row[1])
            }
            return try Row.fetchAll(db, sql: """
                SELECT number, name, start_date, end_date, created_at, updated_at FROM periods WHERE user_id = ? ORDER BY number
                """, arguments: [user.id]
            ).map { row in
                let expenseIDs = ids[row[0]] ?? []
                return (Period(
                    id: row[0], userID: user.id, name: row[1], start: row[2], end: row[3], expenses: expenseIDs.count, createdAt: row[4],
                    updatedAt: row[5]), expenseIDs)
            }
        }

        func priceRecords() throws -> [PriceRecord] {
            try SpatiaLiteStore.priceRecords(db, PriceQuery(userID: user.id))
        }

        func priceRecordReceipts() throws -> [Int64: String] {
            guard try db.tableExists("receipts") else { return [:] }  // a file before v21
            let rows = try Row.fetchAll(
                db, sql: "SELECT pk, receipt_id FROM price_records WHERE user_id = ? AND receipt_id IS NOT NULL", arguments: [user.id])
            return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as Int64, $0[1] as String) })
        }

        func receipts() throws -> [Receipt] {
            try Row.fetchAll(db, sql: "SELECT \(SpatiaLiteStore.receiptColumns(image: true)) FROM receipts WHERE user_id = ? ORDER BY pk", arguments: [user.id])
                .map(SpatiaLiteStore.decodeReceipt)
        }

        func shoppingLists() throws -> [ShoppingList] {
            try SpatiaLiteStore.fetchLists(db, user: user.id, number: nil)
        }

        func apiTokens() throws -> [TokenRecord] {
            try SpatiaLiteStore.fetchTokens(db, userID: user.id)
        }

        func stores(withIDs ids: Set<String>) throws -> [Store] {
            guard !ids.isEmpty else { return [] }
            let s = RawStatement(try db.cachedStatement(sql: """
                SELECT \(StoredRows.storeColumns)
                FROM json_each(?1) AS j JOIN stores AS s ON s.id = j.value ORDER BY s.id
                """))
            s.reset()
            defer { s.reset() }
            s.bind(1, StoredRows.jsonArray(ids))
            var stores: [Store] = []
            while try s.step(db) { stores.append(StoredRows.decodeStore(s)) }
            return stores
        }
    }

    /// Deletes the user's rows from every table keyed by user (found from the schema: a foreign
    /// key to `users` or a `user_id` column, so a table added later is not forgotten), then the
    /// user, in one `BEGIN IMMEDIATE` transaction. SpatiaLite's triggers take the expenses out of
    /// the spatial index. Nothing of the user is left behind:
    /// - `secure_delete` zeroes the space the deleted rows took in the file's pages;
    /// - `RTreeScrub` zeroes the slots the R*Tree leaves behind in its nodes;
    /// - layer statistics (`UpdateLayerStatistics`, kept by QGIS and `spatialite`), when present,
    ///   are recomputed: they hold the layer's extent and per-column minima and maxima;
    /// - with `rewriteFile`, `VACUUM` rebuilds every page: when earlier writes made SQLite move
    ///   rows between pages, stale copies stay in the pages' unused space, which `secure_delete`
    ///   never visits (measured: 30k expenses, `snap` over all, then a user deleted — 7 of their
    ///   positions were still in the file, none after `VACUUM`). It costs a pass over the file
    ///   and as much free disk space as the file takes, which is checked before anything is deleted;
    /// - the write-ahead log is checkpointed and truncated, so the old pages are not kept there.
    /// The clean-up after the commit is owed until done (`PendingScrub`): when it fails, the error
    /// says what was deleted and `doctor --repair` finishes it. Stores are shared and stay; so do
    /// products other users' price records name (the rest go: `products` in the counts).
    /// - Throws: `StoreError.notEnoughSpaceToScrub` (nothing deleted), `.deletedButNotScrubbed`
    ///   (deleted and committed, clean-up owed), or another `StoreError` (nothing deleted).
    @discardableResult
    public func deleteUser(_ userID: String, rewriteFile: Bool = true) throws -> UserDeletion? {
        let removed: [UserDeletion.TableRows]? = try translatingErrors {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")  // Debian builds SQLite with it on; other builds may not
                var removed: [UserDeletion.TableRows]?
                try db.inTransaction(.immediate) {
                    guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [userID]) == true else {
                        return .rollback
                    }
                    if rewriteFile { try Self.checkSpaceToRewrite(db, path: path, what: "user \"\(userID)\"") }
                    var rows: [UserDeletion.TableRows] = []
                    for (table, column) in try Self.userKeyedTables(db) {
                        try db.execute(sql: "DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \(column.quotedDatabaseIdentifier) = ?", arguments: [userID])
                        rows.append(.init(table: table, rows: db.changesCount))
                    }
                    try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [userID])
                    rows.append(.init(table: "users", rows: db.changesCount))
                    // The shared catalogue keeps a product while a price record names it: the
                    // ones only this user's records named could say what they bought.
                    try db.execute(sql: "DELETE FROM products WHERE NOT EXISTS (SELECT 1 FROM price_records AS r WHERE r.product_id = products.id)")
                    rows.append(.init(table: "products", rows: db.changesCount))
                    try RTreeScrub.zeroUnusedCells(of: "idx_expenses_geom", in: db)
                    try Self.refreshLayerStatistics(db)
                    try Self.markPendingScrub(db)
                    removed = rows
                    return .commit
                }
                return removed
            }
        }
        guard let removed else { return nil }
        var leftovers: [String] = []
        do {
            if !rewriteFile {
                leftovers.append("the file was not rewritten: fragments of the deleted rows may stay in unused page space until `geospend doctor --repair` rewrites it")
            }
            if try !scrubAfterDeletion(rewrite: rewriteFile) {
                leftovers.append("another connection was reading: the write-ahead log keeps old pages until its next checkpoint; `geospend doctor --repair` empties it")
            }
        } catch let failure as ScrubFailure {
            throw StoreError.deletedButNotScrubbed(
                path: path, what: "user \"\(userID)\"", rows: removed.map(\.rows).reduce(0, +), reason: failure.reason)
        }
        return UserDeletion(userID: userID, rowsByTable: removed, leftovers: leftovers)
    }

    /// Tables with a column that holds a user id, expenses first (their categories go after them,
    /// so no expense is updated to a NULL category only to be deleted).
    static func userKeyedTables(_ db: Database) throws -> [(table: String, column: String)] {
        let found = try Row.fetchAll(db, sql: """
            SELECT m.name, f."from" FROM sqlite_master AS m JOIN pragma_foreign_key_list(m.name) AS f
            WHERE m.type = 'table' AND f."table" = 'users'
            UNION
            SELECT m.name, p.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p
            WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%' AND p.name = 'user_id' AND m.name <> 'users'
            """).map { (table: $0[0] as String, column: $0[1] as String) }
        return found.sorted { ($0.table == "expenses" ? 0 : 1, $0.table, $0.column) < ($1.table == "expenses" ? 0 : 1, $1.table, $1.column) }
    }

    /// Recomputes SpatiaLite's statistics of the expenses layer if anything ever computed them.
    static func refreshLayerStatistics(_ db: Database) throws {
        let kept = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM geometry_columns_statistics WHERE f_table_name = 'expenses' AND last_verified IS NOT NULL)
                OR EXISTS (SELECT 1 FROM geometry_columns_field_infos WHERE f_table_name = 'expenses')
            """) ?? false
        if kept { _ = try Int.fetchOne(db, sql: "SELECT UpdateLayerStatistics('expenses', 'geom')") }
    }
}

/// `UserDataStore`'s deletion for async callers: to its end, cancelled or not, as
/// `deleteExpense` (ExpenseLife.swift).
extension SpatiaLiteStore {
    public func deleteUser(_ userID: String, rewriteFile: Bool) async throws -> UserDeletion? {
        try await offloaded { try self.deleteUser(userID, rewriteFile: rewriteFile) }
    }
}

/// A read scope's users and one user's data: every statement sees the scope's snapshot.
extension SpatiaLiteReader: UserDataReader {
    public func users() throws -> [UserRecord] {
        try Row.fetchAll(db, sql: "\(SpatiaLiteStore.userSelect) ORDER BY u.id").map(SpatiaLiteStore.userRecord)
    }

    public func userData(_ userID: String) throws -> (any UserDataSnapshot)? {
        try Row.fetchOne(db, sql: "\(SpatiaLiteStore.userSelect) WHERE u.id = ?", arguments: [userID])
            .map { SpatiaLiteStore.UserSnapshot(db: db, user: SpatiaLiteStore.userRecord($0)) }
    }
}
