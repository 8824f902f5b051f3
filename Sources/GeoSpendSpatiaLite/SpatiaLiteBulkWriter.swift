import GeoSpend
import GRDB
import GRDBSQLite

/// Inserts stores and expenses inside one open write transaction, with prepared statements
/// bound directly and small caches for users, categories and store ids.
///
/// Bulk mode: SpatiaLite keeps its R*Tree in step with per-row triggers whose `RTreeAlign`
/// re-parses an SQL string for every row (24 % of a 20k-row import's instructions under
/// callgrind; a 200k-row import went from 13.4 s to 7.4 s without them).
/// For the length of the transaction the writer sets those INSERT triggers aside, writes the
/// geometry and its R*Tree entry itself, and `finish()` puts SpatiaLite's triggers back verbatim
/// (with the update-time trigger, set aside for the same reason).
/// Into a table that starts empty (a first import) the writer also packs the R*Tree in one pass
/// (`RTreeBulkLoad`; 100k expenses 2.7 s → 1.6 s) and builds the secondary indexes once, sorted,
/// in `finish()` instead of updating them row by row (1.6 s → 1.2 s).
/// It all happens in the one transaction, so a crash or a rollback leaves the triggers, indexes
/// and R*Tree as they were; other writers are locked out by `BEGIN IMMEDIATE`. The map rollups'
/// sums are added beside it on a thread of their own (`RollupSummer`) and stored by `finish()`.
final class SpatiaLiteBulkWriter {
    private let db: Database
    /// Triggers and indexes dropped for the transaction, with the SQL that recreates them.
    private var setAside: [(type: String, name: String, sql: String)] = []
    private let insertExpenseIndex: RawStatement
    private let insertStoreIndex: RawStatement
    private let insertExpense: RawStatement
    private let existingExpense: RawStatement
    private let expensesOnDay: RawStatement
    private let insertStore: RawStatement
    private let existingStore: RawStatement
    private let storeExists: RawStatement
    private let insertUser: RawStatement
    private let findCategory: RawStatement
    private let linkStore: RawStatement
    private let insertCategory: RawStatement
    private let insertDefaultCategory: RawStatement
    /// The texts of the row being inserted, bound in place.
    private let texts = BindArena()

    // Non-nil while the R*Tree started empty: its entries are collected and packed by `finish()`.
    private var expenseIndexLoad: RTreeBulkLoad?
    private var storeIndexLoad: RTreeBulkLoad?

    /// Whether `assignStore` or `update` changed a row (`finish()` then stamps the last-update time).
    private var updatedRows = false
    /// Whether `expenses` held no row when the scope began: no id can be stored, no twin found.
    private var expensesStartedEmpty = false
    /// The map rollups' changes of rows `update` rewrote, applied by `finish()` once the cells'
    /// triggers are back (the summer adds inserted rows only).
    private var updateRollups = MapRollup.Changes()
    /// Whether `update` moved a point: `finish()` scrubs the R*Tree's unused cells (`RTreeScrub`).
    private var movedPoints = false
    /// Whether `update` turned `secure_delete` on (as `expenses edit` does: replaced text is zeroed).
    private var scrubsFreedText = false
    /// SQLite's count of rows changed on this connection once the triggers and indexes were set
    /// aside (dropping them changes no row).
    private let changesBefore: Int
    /// Whether any row was inserted, updated or deleted since (the store rolls back when not).
    var wroteRows: Bool { db.totalChangesCount != changesBefore }
    /// The users and days of the expenses inserted: the budget events the scope raises before it commits.
    var touched = TouchedDays()  // set: `users import` raises no events
    // The caches below stand in for SQL lookups, so they compare as SQL does: bytes
    // (`ExactText`). Category names are keyed as written, not folded: `Food` and `food` are two
    // entries that the lookup (`NOCASE`) resolves to the same row, and no row's name is folded
    // into a new string (`asciiLowercased` was half of `category`'s cost).
    private var knownUsers = Set<ExactText>()
    /// Per currency, the sum of all expense amounts in the database with this transaction's rows.
    /// Kept within `Int64` so that every total computed later — a sum of some of these positive
    /// amounts — is exact and cannot overflow (9,224 amounts of the largest size, 10¹⁵ minor
    /// units, made `geospend summary` crash). Read once, lazily: one scan per import.
    private var currencyTotals: [String: Int64]?
    private var categoryIDs: [CategoryKey: Int64] = [:]
    /// The map rollups' share of the rows inserted so far, summed per cell on a thread of its
    /// own and stored by `finish()` (or earlier, when it grows large).
    let rollups = RollupSummer()
    /// False when the table was dropped (`MapRollupStorage.apply`): no cells computed either.
    private let keepsRollups: Bool
    /// The cells' triggers, set aside with the others (the writer keeps the cells itself,
    /// `MapRollupStorage.applyKeepingCells`); `finish()` makes them again after the last rollups
    /// are stored, which may come after the other objects are back.
    private var cellTriggersAside: [(name: String, sql: String)] = []
    private var knownStores: [ExactText: Bool] = [:]

    private struct CategoryKey: Hashable {
        let user: ExactText, kind: Category.Kind, name: ExactText
    }

    /// SQLite's change count and last rowid of the connection, read directly: GRDB's
    /// `changesCount` and `lastInsertedRowID` check the calling queue first (~500 instructions
    /// each, twice per row).
    private var changes: Int32 { sqlite3_changes(db.sqliteConnection) }
    private var lastRowID: Int64 { sqlite3_last_insert_rowid(db.sqliteConnection) }

    /// The INSERT triggers SpatiaLite creates per geometry column: geometry check (ggi),
    /// last-insert time (tmi) and R*Tree update (gii); and its last-update time trigger (tmu),
    /// which fires on any column's update: snapping's store links spent most of their time
    /// there (3.5G of a 100k-expense snap's 13.5G instructions went to the link updates).
    private static func triggersSetAside(_ table: String) -> [String] {
        ["ggi_\(table)_geom", "tmi_\(table)_geom", "gii_\(table)_geom", "tmu_\(table)_geom"]
    }


    /// Partial indexes on columns this writer never fills (a reminder's time, a period): no
    /// inserted row enters them, so they stay in place, where rebuilding each would cost a scan
    /// of the whole table (0.14 s of CPU at 1M rows, sqlite3 shell).
    private static let indexesLeftEmpty: Set<String> = ["expenses_user_reminder", "expenses_period"]

    /// Runs a write scope with SQLite's foreign-key enforcement off (`PRAGMA foreign_keys` can
    /// only change outside a transaction), and on again after it. Every reference this writer
    /// writes it has checked itself: the user (`ensureUser`), the category (found or created for
    /// that user) and the store (`storeIsKnown`, for inserts and links alike), so SQLite's checks
    /// were the same lookups made twice (3 per expense: 1M rows inserted with them 2.5 s of CPU,
    /// without them 1.5 s, sqlite3 shell). Only for scopes whose every write goes through this
    /// writer: `addExpense`'s raw SQL keeps them.
    static func checkingReferencesItself<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
        return try body()
    }

    /// Rollup keys held before they are stored mid-transaction: ~130 MB at 2M (the 1M bench's
    /// expenses make 1.35M, stored once at `finish()`).
    private let rollupBound: Int

    init(db: Database, rollupBound: Int = 1 << 21) throws {
        self.db = db
        self.rollupBound = rollupBound
        var dropped: [(type: String, name: String, sql: String)] = []
        func drop(_ type: String, _ name: String, sql: String) throws {
            dropped.append((type, name, sql))
            try db.execute(sql: "DROP \(type) \(name.quotedDatabaseIdentifier)")
        }
        for table in ["expenses", "stores"] {
            for name in Self.triggersSetAside(table) {
                guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", arguments: [name]) else {
                    continue
                }
                try drop("TRIGGER", name, sql: sql)
            }
            // Into an empty table, one sorted CREATE INDEX per index at the end beats updating
            // them per row. UNIQUE indexes stay: they decide ON CONFLICT.
            if try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM \(table.quotedDatabaseIdentifier))") ?? false {
                if table == "expenses" { expensesStartedEmpty = true }
                let secondary = try Row.fetchAll(db, sql: """
                    SELECT m.name, m.sql FROM pragma_index_list(?) AS i JOIN sqlite_master AS m ON m.name = i.name
                    WHERE i."unique" = 0 AND i.origin = 'c' AND m.sql IS NOT NULL
                    """, arguments: [table])
                for index in secondary where !Self.indexesLeftEmpty.contains(index[0]) { try drop("INDEX", index[0], sql: index[1]) }
            }
        }
        setAside = dropped
        keepsRollups = try db.tableExists(MapRollupStorage.table)
        // Here, before any statement is prepared: a DROP later in the transaction makes GRDB
        // clear its statement cache, finalizing the statements this writer holds (storing the
        // rollups past their bound in the middle of an import crashed there).
        if keepsRollups {
            cellTriggersAside = try MapRollupStorage.cellTriggers(db)
            for trigger in cellTriggersAside { try db.execute(sql: "DROP TRIGGER \(trigger.name.quotedDatabaseIdentifier)") }
        }
        changesBefore = db.totalChangesCount
        if try RTreeBulkLoad.isEmpty("idx_expenses_geom", in: db) { expenseIndexLoad = RTreeBulkLoad(index: "idx_expenses_geom") }
        if try RTreeBulkLoad.isEmpty("idx_stores_geom", in: db) { storeIndexLoad = RTreeBulkLoad(index: "idx_stores_geom") }
        insertExpenseIndex = RawStatement(try db.cachedStatement(
            sql: "INSERT INTO idx_expenses_geom (pkid, xmin, xmax, ymin, ymax) VALUES (?1, ?2, ?2, ?3, ?3)"))
        insertStoreIndex = RawStatement(try db.cachedStatement(
            sql: "INSERT INTO idx_stores_geom (pkid, xmin, xmax, ymin, ymax) VALUES (?1, ?2, ?2, ?3, ?3)"))
        insertExpense = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO expenses (id, user_id, kind, amount_minor, currency, occurred_at, occurred_ms,
                utc_offset_min, local_date, title, category_id, merchant, lat, lon, accuracy_m, store_id, notes,
                content_hash, geom)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                CASE WHEN ?13 IS NULL THEN NULL ELSE MakePoint(?14, ?13, 4326) END)
            ON CONFLICT (user_id, id) DO NOTHING
            """))
        // Ids are unique per user (v17): another user's row of the same id is never compared, so never revealed.
        existingExpense = RawStatement(try db.cachedStatement(sql: "SELECT content_hash FROM expenses WHERE id = ?1 AND user_id = ?2"))
        expensesOnDay = RawStatement(try db.cachedStatement(sql: """
            SELECT id, kind, currency, amount_minor, COALESCE(merchant, title) FROM expenses
            WHERE user_id = ?1 AND occurred_ms BETWEEN ?2 AND ?3 AND local_date = ?4
            """))
        insertStore = RawStatement(try db.cachedStatement(sql: """
            INSERT INTO stores (id, name, kind, brand, street, postcode, city, country, source_id, lat, lon,
                content_hash, geom)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, MakePoint(?11, ?10, 4326))
            ON CONFLICT (id) DO NOTHING
            """))
        existingStore = RawStatement(try db.cachedStatement(sql: "SELECT content_hash FROM stores WHERE id = ?"))
        storeExists = RawStatement(try db.cachedStatement(sql: "SELECT 1 FROM stores WHERE id = ?"))
        insertUser = RawStatement(try db.cachedStatement(sql: "INSERT INTO users (id) VALUES (?) ON CONFLICT (id) DO NOTHING"))
        linkStore = RawStatement(try db.cachedStatement(
            sql: "UPDATE expenses SET store_id = ?1 WHERE id = ?2 AND user_id = ?3 AND store_id IS NULL"))
        findCategory = RawStatement(try db.cachedStatement(
            sql: "SELECT id FROM categories WHERE user_id = ? AND kind = ? AND name = ? COLLATE NOCASE"))
        insertCategory = RawStatement(try db.cachedStatement(
            sql: "INSERT INTO categories (user_id, kind, name) VALUES (?, ?, ?)"))
        insertDefaultCategory = RawStatement(try db.cachedStatement(
            sql: "INSERT INTO categories (user_id, kind, name, is_default, icon, color) VALUES (?, ?, ?, 1, ?, ?)"))
    }

    /// Packs the R*Trees that started empty, recreates the indexes and SpatiaLite's triggers
    /// verbatim, and stamps `geometry_columns_time` as the triggers would have.
    func finish() throws {
        // The last sums are added and sorted on the summer's thread while this one packs the
        // R*Trees and builds the indexes.
        if keepsRollups { rollups.startSorting() }
        try expenseIndexLoad?.write(into: db)
        try storeIndexLoad?.write(into: db)
        expenseIndexLoad = nil
        storeIndexLoad = nil
        let indexes = setAside.filter { $0.type == "INDEX" }  // set aside only when a table started empty
        for index in indexes { try rebuild(index.sql) }
        for object in setAside where object.type != "INDEX" { try db.execute(sql: object.sql) }
        setAside = []
        try storeRollups()
        for trigger in cellTriggersAside { try db.execute(sql: trigger.sql) }
        cellTriggersAside = []
        if keepsRollups { try MapRollupStorage.apply(updateRollups, db) }
        updateRollups = MapRollup.Changes()
        // A moved point leaves its old bounds in the R*Tree node's unused slot.
        if movedPoints { try RTreeScrub.zeroUnusedCells(of: "idx_expenses_geom", in: db) }
        try db.execute(sql: """
            UPDATE geometry_columns_time SET last_insert = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
            WHERE f_table_name IN ('expenses', 'stores') AND f_geometry_column = 'geom'
            """)
        if updatedRows {
            try db.execute(sql: """
                UPDATE geometry_columns_time SET last_update = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                WHERE f_table_name = 'expenses' AND f_geometry_column = 'geom'
                """)
        }
    }

    /// Creates one index set aside, its entries sorted in runs (`sortingInRuns`). When SQLite's
    /// temporary folder has no room for the runs (`SQLITE_FULL` while the transaction goes on),
    /// it sorts them once more in memory, as before the runs: a small /tmp does not fail an import
    /// whose indexes fit in the page cache.
    private func rebuild(_ sql: String) throws {
        do {
            try sortingInRuns { try db.execute(sql: sql) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL && db.isInsideTransaction {
            try db.execute(sql: sql)
        }
    }

    /// Runs `body` (an index set aside, made again) with SQLite's sorter splitting its
    /// work. A `CREATE INDEX` sorts its entries in runs as large as the page cache (up to 512 MB)
    /// and merges them: under the import's 1 GiB cache, a 1M import's indexes were each one run,
    /// sorted on this thread alone. With an 8 MB cache the runs are small, and `PRAGMA threads`
    /// lets SQLite sort them on threads of its own. The runs go to SQLite's temporary files
    /// (`SQLITE_TMPDIR`, else `TMPDIR`, else /var/tmp or /tmp), as runs past 512 MB always did
    /// (`rebuild` falls back when they do not fit there). `cache_spill` (negative: KiB, as for
    /// `cache_size`) keeps the transaction's dirty pages in memory meanwhile, up to 1 GiB as
    /// before, where the small cache would write them to the WAL mid-transaction. Afterwards the
    /// connection is as the bulk transaction set it (`cache_spill = 1`: SQLite's default).
    /// Measured (Benchmarks/RESULTS.md, session 17): the four expense indexes of a 1M file 4.12
    /// → 2.63 s (sqlite3 shell); the whole 1M import 0.873× its wall time (paired alternating
    /// runs, median of the pairs' ratios).
    private func sortingInRuns(_ body: () throws -> Void) throws {
        try db.execute(sql: "PRAGMA cache_spill = \(SpatiaLiteStore.bulkCacheSize); PRAGMA cache_size = -8192; PRAGMA threads = 2")
        defer { try? db.execute(sql: "PRAGMA threads = 0; PRAGMA cache_size = \(SpatiaLiteStore.bulkCacheSize); PRAGMA cache_spill = 1") }
        try body()
    }

    /// Stores the rollups gathered so far, the cells' rows summed here
    /// (`MapRollupStorage.applyKeepingCells`, their triggers set aside by `init`).
    private func storeRollups() throws {
        guard keepsRollups else { return }
        try MapRollupStorage.applyKeepingCells(rollups.takeSorted(), db)
    }

    /// Adds the just inserted row's point to its R*Tree, or to the pending bulk load.
    private func index(_ load: inout RTreeBulkLoad?, _ statement: RawStatement, latitude: Double, longitude: Double) throws {
        if load != nil {
            load?.add(id: lastRowID, x: longitude, y: latitude)
            return
        }
        statement.reset()
        statement.bind(1, lastRowID); statement.bind(2, longitude); statement.bind(3, latitude)
        _ = try statement.step(db)
    }

    func insert(_ store: Store, contentHash hash: Int64) throws -> InsertOutcome {
        let s = insertStore
        texts.reset()
        defer { s.reset() }  // no binding outlives the texts it points to
        s.bind(1, store.id, in: texts); s.bind(2, store.name, in: texts); s.bind(3, store.kind, in: texts)
        s.bind(4, store.brand, in: texts); s.bind(5, store.street, in: texts); s.bind(6, store.postcode, in: texts)
        s.bind(7, store.city, in: texts); s.bind(8, store.country, in: texts); s.bind(9, store.sourceID, in: texts)
        s.bind(10, store.coordinate.latitude); s.bind(11, store.coordinate.longitude)
        s.bind(12, hash)
        _ = try s.step(db)
        if changes == 1 {
            try index(&storeIndexLoad, insertStoreIndex, latitude: store.coordinate.latitude, longitude: store.coordinate.longitude)
            knownStores[ExactText(store.id)] = true
            return .inserted
        }
        return try compareExisting(existingStore, id: store.id, hash: hash, what: "store")
    }

    func insert(_ expense: Expense, contentHash hash: Int64, policy: InsertPolicy) throws -> InsertOutcome {
        if let storeID = expense.storeID, try !storeIsKnown(storeID) {
            throw RowRejection(column: "store_id", reason: "\"\(storeID)\" is not a known store; import the stores first")
        }
        let code = expense.amount.currency.code
        if currencyTotals == nil {
            currencyTotals = Dictionary(uniqueKeysWithValues: try Row.fetchAll(
                db, sql: "SELECT currency, SUM(amount_minor) FROM expenses GROUP BY currency"
            ).map { ($0[0] as String, $0[1] as Int64) })
        }
        // Into a table that held rows: the id looked up first (one probe instead of a failed
        // INSERT and then the probe, for a re-import's every row), and a new id's twin.
        if !expensesStartedEmpty {
            if let stored = try storedHash(of: expense) { return try settle(expense, contentHash: hash, stored: stored, policy: policy) }
            if let check = policy.duplicates {
                let day = DuplicateCheck.Day(expense)
                if check.needs(day) { check.add(day, stored: try expenses(on: day)) }
                if let twin = check.take(expense) { return .duplicate(of: twin) }
            }
        }
        let (projected, overflow) = currencyTotals![code, default: 0].addingReportingOverflow(expense.amount.minorUnits)
        guard !overflow else {
            // A row already stored adds nothing: re-importing at the limit stays a no-op.
            if let stored = try storedHash(of: expense) { return try settle(expense, contentHash: hash, stored: stored, policy: policy) }
            throw RowRejection.totalOverflow(currency: code)
        }
        try ensureUser(expense.userID)
        let categoryID = try expense.category.map { try category(named: $0, user: expense.userID, kind: Category.kind(for: expense.kind)) }
        let s = insertExpense
        texts.reset()
        defer { s.reset() }  // no binding outlives the texts it points to
        s.bind(1, expense.id, in: texts); s.bind(2, expense.userID, in: texts); s.bind(3, expense.kind.rawValue, in: texts)
        s.bind(4, expense.amount.minorUnits); s.bind(5, expense.amount.currency.code, in: texts)
        s.bind(6, expense.occurredAt.text, in: texts); s.bind(7, expense.occurredAt.epochMilliseconds)
        s.bind(8, expense.occurredAt.utcOffsetMinutes.map(Int64.init)); s.bind(9, expense.occurredAt.localDate, in: texts)
        s.bind(10, expense.title, in: texts); s.bind(11, categoryID); s.bind(12, expense.merchant, in: texts)
        s.bind(13, expense.location?.coordinate.latitude); s.bind(14, expense.location?.coordinate.longitude)
        s.bind(15, expense.location?.accuracyMeters); s.bind(16, expense.storeID, in: texts); s.bind(17, expense.notes, in: texts)
        s.bind(18, hash)
        _ = try s.step(db)
        if changes == 1 {
            currencyTotals![code] = projected
            touched.addInserted(expense)
            if let c = expense.location?.coordinate { try index(&expenseIndexLoad, insertExpenseIndex, latitude: c.latitude, longitude: c.longitude) }
            if keepsRollups {
                rollups.add(expense)
                // Below the bound they are stored once, each key once, in key order.
                if rollups.count >= rollupBound { try storeRollups() }
            }
            return .inserted
        }
        // Written earlier in this scope (a table that started empty).
        s.reset()
        guard let stored = try storedHash(of: expense) else {
            throw RowRejection(column: "id", reason: "could not insert expense \"\(expense.id)\"")
        }
        return try settle(expense, contentHash: hash, stored: stored, policy: policy)
    }

    /// The content hash stored for the expense's user and id, if any.
    private func storedHash(of expense: Expense) throws -> Int64? {
        let s = existingExpense
        s.reset()
        defer { s.reset() }
        s.bind(1, expense.id)
        s.bind(2, expense.userID)
        return try s.step(db) ? s.int64(0) : nil
    }

    /// A stored id: the same content is a no-op; other content is rewritten or refused.
    private func settle(_ expense: Expense, contentHash hash: Int64, stored: Int64, policy: InsertPolicy) throws -> InsertOutcome {
        if stored == hash { return .unchanged }
        guard policy.updatesChanged else { throw RowRejection.changedContent(id: expense.id) }
        try update(expense, contentHash: hash)
        return .updated
    }

    /// The user's expenses stored on one local day, for `DuplicateCheck`.
    private func expenses(on day: DuplicateCheck.Day) throws -> [DuplicateCheck.Stored] {
        let s = expensesOnDay
        s.reset()
        defer { s.reset() }
        let range = day.utcMilliseconds
        s.bind(1, day.userID); s.bind(2, range.lowerBound); s.bind(3, range.upperBound); s.bind(4, day.localDate)
        var found: [DuplicateCheck.Stored] = []
        while try s.step(db) {
            guard let id = s.text(0), let kind = s.text(1).flatMap(ExpenseKind.init(rawValue:)),
                let currency = try? Currency(code: s.text(2) ?? "")
            else { continue }
            found.append(DuplicateCheck.Stored(id: id, kind: kind, amount: Money(minorUnits: s.int64(3), currency: currency), text: s.text(4)))
        }
        return found
    }

    /// Rewrites the stored row of the expense's user and id with its fields (`InsertPolicy`):
    /// a position or store the row does not give stays, with its provenance; the reminder and
    /// creation time stay. The R*Tree follows through SpatiaLite's update trigger (kept in
    /// bulk mode), the rollups in `finish()`; replaced text is zeroed where SQLite frees it.
    private func update(_ expense: Expense, contentHash hash: Int64) throws {
        guard let (old, pk) = try SpatiaLiteStore.fetchStored(
            db, "SELECT \(SpatiaLiteStore.storedColumns) FROM \(SpatiaLiteStore.storedSource) WHERE e.id = ?1 AND e.user_id = ?2", {
                $0.bind(1, expense.id); $0.bind(2, expense.userID)
            }
        ).first else { throw RowRejection(column: "id", reason: "could not update expense \"\(expense.id)\"") }
        var new = expense
        let keepsPosition = new.location == nil && old.expense.location != nil
        if keepsPosition { new.location = old.expense.location }
        let keepsStore = new.storeID == nil && old.expense.storeID != nil
        if keepsStore { new.storeID = old.expense.storeID }
        // Every total of a currency stays within Int64, the old amount taken out first (it was
        // part of its total, so taking it out cannot overflow).
        var totals = currencyTotals!
        totals[old.expense.amount.currency.code, default: 0] -= old.expense.amount.minorUnits
        let code = new.amount.currency.code
        let (projected, overflow) = totals[code, default: 0].addingReportingOverflow(new.amount.minorUnits)
        guard !overflow else {
            throw RowRejection.totalOverflow(currency: code)
        }
        let categoryID = try new.category.map { try category(named: $0, user: new.userID, kind: Category.kind(for: new.kind)) }
        let c = new.location?.coordinate
        if c != nil, let load = expenseIndexLoad {
            // The update trigger writes this point's R*Tree entry itself: the pending packed
            // entries go in first, and the rest of the scope's points one by one.
            try load.write(into: db)
            expenseIndexLoad = nil
        }
        if !scrubsFreedText {
            try db.execute(sql: "PRAGMA secure_delete = ON")
            scrubsFreedText = true
        }
        try db.execute(
            sql: """
                UPDATE expenses SET kind = ?, amount_minor = ?, currency = ?, occurred_at = ?, occurred_ms = ?,
                    utc_offset_min = ?, local_date = ?, title = ?, category_id = ?, merchant = ?, lat = ?, lon = ?,
                    accuracy_m = ?, store_id = ?, notes = ?, content_hash = ?,
                    geom = CASE WHEN ?11 IS NULL THEN NULL ELSE MakePoint(?12, ?11, 4326) END,
                    position_source = CASE WHEN ? THEN position_source END,
                    position_confidence = CASE WHEN ? THEN position_confidence END,
                    store_inferred = CASE WHEN ? THEN store_inferred ELSE 0 END,
                    updated_at = \(SpatiaLiteStore.nowSQL)
                WHERE pk = ?
                """,
            arguments: [
                new.kind.rawValue, new.amount.minorUnits, code, new.occurredAt.text, new.occurredAt.epochMilliseconds,
                new.occurredAt.utcOffsetMinutes, new.occurredAt.localDate, new.title, categoryID, new.merchant, c?.latitude,
                c?.longitude, new.location?.accuracyMeters, new.storeID, new.notes, hash, keepsPosition, keepsPosition, keepsStore, pk,
            ])
        totals[code] = projected
        currencyTotals = totals
        updatedRows = true
        // The new day's budgets may cross a threshold; the old day's only lose (as PostGISWriter).
        touched.add(new)
        if keepsRollups {
            updateRollups.add(old.expense, sign: -1)
            updateRollups.add(new, sign: 1)
        }
        if old.expense.location?.coordinate != c { movedPoints = true }
    }

    /// Links the store to user `userID`'s expense `expenseID`: ids are unique per user, so
    /// another user's expense of the same id is never touched.
    func assignStore(_ storeID: String, toExpense expenseID: String, of userID: String) throws -> Bool {
        // The store may have been deleted since the link was planned in a read scope; SQLite's
        // foreign-key check is off in this writer's scopes (`checkingReferencesItself`).
        guard try storeIsKnown(storeID) else { throw RowRejection(column: "store_id", reason: "\"\(storeID)\" is not a known store") }
        linkStore.reset()
        linkStore.bind(1, storeID)
        linkStore.bind(2, expenseID)
        linkStore.bind(3, userID)
        _ = try linkStore.step(db)
        let changed = db.changesCount == 1
        updatedRows = updatedRows || changed
        return changed
    }

    /// After `ON CONFLICT DO NOTHING` skipped a store: the same content is a no-op, other content an error.
    private func compareExisting(_ s: RawStatement, id: String, hash: Int64, what: String) throws -> InsertOutcome {
        s.reset()
        s.bind(1, id)
        guard try s.step(db) else {
            throw RowRejection(column: "id", reason: "could not insert \(what) \"\(id)\"")
        }
        if s.int64(0) == hash { return .unchanged }
        throw RowRejection(
            column: "id",
            reason: "\"\(id)\" is already stored with different content; ids are stable, so give changed rows new ids")
    }

    private func storeIsKnown(_ id: String) throws -> Bool {
        if let known = knownStores[ExactText(id)] { return known }
        storeExists.reset()
        storeExists.bind(1, id)
        let found = try storeExists.step(db)
        knownStores[ExactText(id)] = found
        return found
    }

    /// Creates the user with the default categories on first sight.
    private func ensureUser(_ id: String) throws {
        guard !knownUsers.contains(ExactText(id)) else { return }
        insertUser.reset()
        insertUser.bind(1, id)
        _ = try insertUser.step(db)
        if changes == 1 {
            // A new user has no categories yet: the defaults go in marked as such, without a
            // lookup each and an UPDATE compiled per user (1000 users: 0.5G instructions).
            for c in Category.defaults {
                insertDefaultCategory.reset()
                insertDefaultCategory.bind(1, id); insertDefaultCategory.bind(2, c.kind.rawValue); insertDefaultCategory.bind(3, c.name)
                insertDefaultCategory.bind(4, Category.defaultLooks[c]?.icon); insertDefaultCategory.bind(5, Category.defaultLooks[c]?.color)
                _ = try insertDefaultCategory.step(db)
                categoryIDs[CategoryKey(user: ExactText(id), kind: c.kind, name: ExactText(c.name))] = lastRowID
            }
        }
        knownUsers.insert(ExactText(id))
    }

    /// The category's row id, created for this user when it is new.
    private func category(named name: String, user: String, kind: Category.Kind) throws -> Int64 {
        let key = CategoryKey(user: ExactText(user), kind: kind, name: ExactText(name))
        if let id = categoryIDs[key] { return id }
        findCategory.reset()
        findCategory.bind(1, user); findCategory.bind(2, kind.rawValue); findCategory.bind(3, name)
        let id: Int64
        if try findCategory.step(db) {
            id = findCategory.int64(0)
        } else {
            insertCategory.reset()
            insertCategory.bind(1, user); insertCategory.bind(2, kind.rawValue); insertCategory.bind(3, name)
            _ = try insertCategory.step(db)
            id = lastRowID
        }
        categoryIDs[key] = id
        return id
    }
}

/// The writer's batches, row by row on the one connection: SQLite pays no round trip per row,
/// so a batch is a loop, each row with its own outcome.
extension SpatiaLiteBulkWriter: ExpenseWriter {
    func insert(_ stores: [HashedRow<Store>]) throws -> [RowOutcome] {
        try stores.map { row in try outcome { try insert(row.record, contentHash: row.contentHash) } }
    }

    func insert(_ expenses: [HashedRow<Expense>], policy: InsertPolicy) throws -> [RowOutcome] {
        try expenses.map { row in try outcome { try insert(row.record, contentHash: row.contentHash, policy: policy) } }
    }

    func assignStores(_ links: [StoreLink]) throws -> [Bool] {
        try links.map { try assignStore($0.storeID, toExpense: $0.expenseID, of: $0.userID) }
    }

    func periods(ofUser userID: String) throws -> [Period] {
        try SpatiaLiteStore.fetchPeriods(db, user: Identity.normalized(userID), number: nil)
    }

    func assignPeriods(_ links: [PeriodLink]) throws {
        for link in links {
            try db.execute(sql: """
                UPDATE expenses SET period_id = (SELECT pk FROM periods WHERE user_id = ?1 AND number = ?2)
                WHERE user_id = ?1 AND id = ?3
                """, arguments: [link.userID, link.period, link.expenseID])
        }
    }

    private func outcome(_ insert: () throws -> InsertOutcome) throws -> RowOutcome {
        do {
            switch try insert() {
            case .inserted: return .inserted
            case .unchanged: return .unchanged
            case .updated: return .updated
            case .duplicate(let id): return .duplicate(of: id)
            }
        } catch let rejection as RowRejection {
            return .rejected(rejection)
        }
    }
}
