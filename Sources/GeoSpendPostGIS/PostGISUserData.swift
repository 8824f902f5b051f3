import GeoSpend
import Logging
import PostgresNIO

/// A user's own data on PostgreSQL: `users list`, `users export` and `users delete`, with the
/// file store's orders (by bytes) and the same JSON out of the CLI.
///
/// What "no trace" means here (docs/RELIABILITY.md): the DELETE removes the rows in one
/// transaction and `VACUUM` of the touched tables then makes their space reusable, but
/// PostgreSQL keeps the old row versions in its write-ahead log until checkpoints recycle the
/// segments, in WAL archives and replicas if configured, and in backups taken before — none
/// of which a client can erase. `deleteUser` says so in its leftovers.
extension PostGISStore: UserProfileStore {
    public func setUserProfile(userID: String, name: String?, email: String?) async throws -> UserRecord? {
        try await editing { r -> UserRecord? in
            guard !(try r.rows("UPDATE users SET display_name = \(name), email = \(email) WHERE id = \(userID) RETURNING 1")).isEmpty else { return nil }
            var query = PostgresQuery(unsafeSQL: "\(Self.userSelect) WHERE u.id = $1")
            query.binds.append(userID)
            return try r.rows(query).first.map(Self.userRecord)
        }
    }
}

extension PostGISStore: UserDataStore {
    static let userSelect = """
        SELECT u.id, u.display_name, u.created_at,
            (SELECT count(*) FROM expenses WHERE user_id = u.id),
            (SELECT count(*) FROM expenses WHERE user_id = u.id AND lat IS NOT NULL),
            (SELECT count(*) FROM categories WHERE user_id = u.id),
            u.email
        FROM users AS u
        """

    /// Deletes the user's rows from every table keyed by user (found from the catalogue: each
    /// table with a `user_id` column, so a table added later is not forgotten; expenses first),
    /// then the user, in one transaction; stores are shared and stay. Then, unless `rewriteFile`
    /// is false, `VACUUM`s those tables.
    public func deleteUser(_ userID: String, rewriteFile: Bool) async throws -> UserDeletion? {
        let removed: [UserDeletion.TableRows]? = try await editing { reader in
            guard try reader.hasUser(userID) else { return nil }
            var rows: [UserDeletion.TableRows] = []
            for table in try Self.userKeyedTables(reader) + ["users"] {
                var query = PostgresQuery(unsafeSQL: "WITH gone AS (DELETE FROM \(table) WHERE \(table == "users" ? "id" : "user_id") = $1 RETURNING 1) SELECT count(*) FROM gone")
                query.binds.append(userID)
                rows.append(.init(table: table, rows: Int(try reader.rows(query)[0].decode(Int64.self))))
            }
            // The shared catalogue keeps a product while a price record names it: the ones only
            // this user's records named could say what they bought (as on the file).
            let products = try reader.rows("""
                WITH gone AS (DELETE FROM products WHERE NOT EXISTS (SELECT 1 FROM price_records AS r WHERE r.product_id = products.id)
                    RETURNING 1) SELECT count(*) FROM gone
                """)[0].decode(Int64.self)
            rows.append(.init(table: "products", rows: Int(products)))
            return rows
        }
        guard let removed else { return nil }
        return UserDeletion(userID: userID, rowsByTable: removed, leftovers: try await vacuum(removed.map(\.table), rewriteFile))
    }

    /// The tables (not their partitions) with a `user_id` column: expenses, then by name.
    static func userKeyedTables(_ reader: PostGISReader) throws -> [String] {
        let tables = try reader.rows("""
            SELECT c.relname::text FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
            WHERE a.attname = 'user_id' AND NOT a.attisdropped AND c.relkind IN ('r', 'p') AND NOT c.relispartition
                AND c.relnamespace = current_schema()::regnamespace
            """).map { try $0.decode(String.self) }
        return tables.sorted { ($0 == "expenses" ? 0 : 1, $0) < ($1 == "expenses" ? 0 : 1, $1) }
    }

    /// `VACUUM`s `tables` after a deletion (with `rewrite`), on a connection of its own: VACUUM
    /// cannot run inside a transaction block. Returns what may remain, for the user to read.
    /// What every deletion on PostgreSQL leaves beyond GeoSpend's reach.
    static let walLeftover =
        "PostgreSQL keeps old row versions in its write-ahead log until checkpoints recycle it, and in WAL archives, replicas and backups made before; GeoSpend cannot erase those"

    func vacuum(_ tables: [String], _ rewrite: Bool) async throws -> [String] {
        var leftovers = [Self.walLeftover]
        if rewrite {
            try await withConnection { connection in
                try await connection.simple(tables.map { "VACUUM \($0)" }.joined(separator: ";\n"), logger: self.logger)
            }
        } else {
            leftovers.insert("the tables were not vacuumed: the deleted rows stay in their pages until VACUUM (or autovacuum) runs", at: 0)
        }
        return leftovers
    }

    static func userRecord(_ row: PostgresRow) throws -> UserRecord {
        let (id, name, created, expenses, geotagged, categories, email) = try row.decode((String, String?, String, Int64, Int64, Int64, String?).self)
        return UserRecord(
            id: id, displayName: name, email: email, createdAt: created, expenses: Int(expenses), geotaggedExpenses: Int(geotagged),
            categories: Int(categories))
    }

    /// One user's rows inside one read scope.
    struct UserSnapshot: UserDataSnapshot {
        let reader: PostGISReader
        let user: UserRecord

        private func rows(_ sql: String, _ extra: [String] = []) throws -> [PostgresRow] {
            var query = PostgresQuery(unsafeSQL: sql)
            query.binds.append(user.id)
            for value in extra { query.binds.append(value) }
            return try reader.rows(query)
        }

        func categories() throws -> [Category] {
            try rows(#"SELECT kind, name FROM categories WHERE user_id = $1 ORDER BY kind COLLATE "C", name COLLATE "C""#).map { row in
                let (kind, name) = try row.decode((String, String).self)
                return Category(name: name, kind: Category.Kind(rawValue: kind) ?? .expense)
            }
        }

        func forEachExpense(_ body: (Expense) throws -> Void) throws {
            for row in try rows("""
                SELECT \(PostGISRows.expenseColumns) FROM expenses AS e \(PostGISRows.categoryJoin) WHERE e.user_id = $1 ORDER BY e.id
                """) {
                try body(try PostGISRows.expense(row.makeRandomAccess()))
            }
        }

        func stores(withIDs ids: Set<String>) throws -> [Store] {
            try reader.stores(withIDs: ids).values.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        }

        func categoryDetails() throws -> [CategoryDetail] {
            try rows("""
                SELECT c.name, c.kind, c.icon, c.color, c.is_default, c.is_active,
                    (SELECT count(*) FROM expenses AS e WHERE e.category_id = c.id), c.created_at, c.updated_at
                FROM categories AS c WHERE c.user_id = $1 ORDER BY c.kind COLLATE "C", c.name COLLATE "C"
                """).map { row in
                let (name, kind, icon, color, isDefault, isActive, n, created, updated) = try row.decode(
                    (String, String, String?, String?, Bool, Bool, Int64, String?, String?).self)
                return CategoryDetail(
                    category: Category(name: name, kind: Category.Kind(rawValue: kind) ?? .expense), icon: icon, color: color,
                    isDefault: isDefault, isActive: isActive, expenses: Int(n), createdAt: created, updatedAt: updated)
            }
        }

        func forEachExpenseTimes(_ body: (ExpenseTimes) throws -> Void) throws {
            for row in try rows("""
                SELECT id, remind_at, created_at, updated_at, position_source, position_confidence, store_inferred FROM expenses
                WHERE user_id = $1 AND (remind_at IS NOT NULL OR created_at IS NOT NULL OR updated_at IS NOT NULL
                    OR position_source IS NOT NULL)
                ORDER BY id
                """) {
                let (id, remind, created, updated, source, confidence, inferred) = try row.decode(
                    (String, String?, String?, String?, String?, Double?, Bool).self)
                try body(ExpenseTimes(
                    id: id, remindAt: remind, createdAt: created, updatedAt: updated,
                    positionSource: source.flatMap(PositionSource.init(rawValue:)), positionConfidence: confidence, storeInferred: inferred))
            }
        }

        func budgets() throws -> [Budget] {
            try PostGISStore.fetchBudgets(reader, userID: user.id, number: nil, activeOnly: false)
        }

        func periods() throws -> [(period: Period, expenseIDs: [String])] {
            var ids: [Int64: [String]] = [:]
            for row in try rows("""
                SELECT p.number, e.id FROM expenses AS e JOIN periods AS p ON p.user_id = e.user_id AND p.pk = e.period_id
                WHERE e.user_id = $1 ORDER BY p.number, e.id
                """) {
                let (number, id) = try row.decode((Int64, String).self)
                ids[number, default: []].append(id)
            }
            return try rows("SELECT number, name, start_date, end_date, created_at, updated_at FROM periods WHERE user_id = $1 ORDER BY number").map { row in
                let (number, name, start, end, created, updated) = try row.decode((Int64, String, String, String?, String?, String?).self)
                let expenseIDs = ids[number] ?? []
                return (Period(
                    id: number, userID: user.id, name: name, start: start, end: end, expenses: expenseIDs.count, createdAt: created,
                    updatedAt: updated), expenseIDs)
            }
        }

        func apiTokens() throws -> [TokenRecord] {
            try PostGISStore.fetchTokens(reader, userID: user.id)
        }

        func forEachPosition(_ body: (Position) throws -> Void) throws {
            for row in try rows("SELECT \(PostGISStore.positionColumns) FROM positions WHERE user_id = $1 ORDER BY t_ms, lat, lon, source") {
                if let p = try PostGISStore.position(row) { try body(p) }
            }
        }

        func visits() throws -> [Visit] {
            try rows("""
                SELECT \(PostGISStore.visitColumns) FROM visits WHERE user_id = $1 ORDER BY start_ms, end_ms, lat, lon, source
                """).map(PostGISStore.visit)
        }

        func settings() throws -> UserSettings {
            try PostGISStore.settings(reader, user: user.id)
        }

        func webhooks() throws -> [Webhook] {
            try PostGISStore.webhooks(reader, user: user.id)
        }

        func notificationSettings() throws -> NotificationSettings {
            try PostGISStore.notificationSettings(reader, user: user.id)
        }

        func recurringRules() throws -> [RecurringRule] {
            try PostGISStore.recurringRules(reader, user: user.id, number: nil)
        }

        func pantryItems() throws -> [PantryItem] {
            try PostGISStore.pantryItems(reader, user: user.id, number: nil)
        }

        func storeChoiceRecord() throws -> StoreChoiceRecord {
            let chosen = try PostGISStore.chosenStoreIDs(reader, user: user.id)
            return StoreChoiceRecord(
                added: try PostGISStore.addedStores(reader, user: user.id, number: nil), favouriteIDs: chosen.favourites,
                defaultID: chosen.defaultID)
        }

        func productTags() throws -> [ProductTag] {
            try PostGISStore.productTags(reader, userID: user.id)
        }

        func productMarks() throws -> [(product: Product, marks: ProductMarks)] {
            let marks = try PostGISStore.productMarks(reader, userID: user.id)
            guard !marks.isEmpty else { return [] }
            return try reader.rows("SELECT \(unescaped: PostGISStore.productColumns) FROM products AS p WHERE p.id = ANY(\(Array(marks.keys))) ORDER BY p.id")
                .map { try PostGISStore.product($0.makeRandomAccess(), from: 0) }.map { (product: $0, marks: marks[$0.id]!) }
        }

        func communityActivity() throws -> CommunityActivity {
            CommunityActivity(
                member: try PostGISStore.communityMember(reader, user.id),
                posts: try reader.rows("SELECT \(unescaped: PostGISStore.communityPostColumns) WHERE p.user_id = \(user.id) ORDER BY p.id")
                    .map(PostGISStore.communityPost),
                comments: try PostGISStore.communityComments(reader, postID: nil, commentID: nil, user: user.id))
        }

        func priceRecords() throws -> [PriceRecord] {
            try reader.rows(PostGISStore.recordsQuery(PriceQuery(userID: user.id))).map(PostGISStore.record)
        }

        func priceRecordReceipts() throws -> [Int64: String] {
            let rows = try reader.rows("SELECT pk, receipt_id FROM price_records WHERE user_id = \(user.id) AND receipt_id IS NOT NULL")
            return Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((Int64, String).self) })
        }

        func receipts() throws -> [Receipt] {
            try reader.rows("SELECT \(unescaped: PostGISStore.receiptColumns(image: true)) FROM receipts WHERE user_id = \(user.id) ORDER BY pk")
                .map { try PostGISStore.decodeReceipt($0.makeRandomAccess()) }
        }

        func shoppingLists() throws -> [ShoppingList] {
            try PostGISStore.fetchLists(reader, user: user.id, number: nil)
        }
    }
}

/// A read scope's users and one user's data: every statement sees the scope's snapshot.
extension PostGISReader: UserDataReader {
    public func users() throws -> [UserRecord] {
        try rows(PostgresQuery(unsafeSQL: "\(PostGISStore.userSelect) ORDER BY u.id")).map(PostGISStore.userRecord)
    }

    public func userData(_ userID: String) throws -> (any UserDataSnapshot)? {
        var query = PostgresQuery(unsafeSQL: "\(PostGISStore.userSelect) WHERE u.id = $1")
        query.binds.append(userID)
        return try rows(query).first.map { PostGISStore.UserSnapshot(reader: self, user: try PostGISStore.userRecord($0)) }
    }
}
