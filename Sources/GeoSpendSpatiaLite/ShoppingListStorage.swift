import GeoSpend
import GRDB

/// The tables behind `ShoppingListStore` (migration v11).
/// - `shopping_lists`: `number` is the id users see, unique per user, never reused
///   (`shopping_list_numbers`, as `period_numbers`); the budget in minor units, BIGINT for GDAL
///   (`Integer64Columns`); `completed_expense_id` is the expense `lists complete` stored.
/// - `shopping_list_items`: in the order added; a count (`packs`) or an amount in thousandths of a
///   g, ml or piece (`PackSize`). `user_id` on every table so `users delete` finds them.
/// User keys cascade on update too: `doctor --repair` renames a user id to NFC.
enum ShoppingListSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE shopping_lists (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                number BIGINT NOT NULL CHECK (number > 0),
                name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
                budget_minor BIGINT NOT NULL CHECK (budget_minor > 0),
                currency TEXT NOT NULL CHECK (length(currency) = 3),
                completed_expense_id TEXT,
                created_at TEXT NOT NULL,
                UNIQUE (user_id, number)
            );
            CREATE TABLE shopping_list_numbers (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                last BIGINT NOT NULL
            );
            CREATE TABLE shopping_list_items (
                list_pk INTEGER NOT NULL REFERENCES shopping_lists(pk) ON DELETE CASCADE,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                position INTEGER NOT NULL,
                name TEXT NOT NULL CHECK (length(name) >= 1),
                packs BIGINT CHECK (packs > 0),
                dimension TEXT CHECK (dimension = 'mass' OR dimension = 'volume' OR dimension = 'count'),
                thousandths BIGINT CHECK (thousandths > 0),
                CHECK ((packs IS NULL) = (thousandths IS NOT NULL) AND (dimension IS NULL) = (thousandths IS NULL)),
                PRIMARY KEY (list_pk, position)
            );
            CREATE INDEX shopping_list_items_user ON shopping_list_items(user_id);
            """)
    }
}

extension ShoppingListSchema {
    /// Migration v25: items checked off one at a time (`lists check`). `checked_expense_id` the
    /// purchase, `checked_price_id` the price record it added (NULL: none was new),
    /// `checked_paid_minor` what it cost; `checks` counts a list's checks for the purchases' ids.
    static func addChecks(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE shopping_list_items ADD COLUMN checked_expense_id TEXT;
            ALTER TABLE shopping_list_items ADD COLUMN checked_price_id BIGINT;
            ALTER TABLE shopping_list_items ADD COLUMN checked_paid_minor BIGINT CHECK (checked_paid_minor > 0);
            ALTER TABLE shopping_lists ADD COLUMN checks BIGINT NOT NULL DEFAULT 0;
            """)
    }
}

extension SpatiaLiteStore: ShoppingListStore {
    public func updateList(userID: String, id: Int64, name: String, budget: Money) async throws -> ShoppingList? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            try db.execute(
                sql: "UPDATE shopping_lists SET name = ?, budget_minor = ?, currency = ? WHERE user_id = ? AND number = ?",
                arguments: [name, budget.minorUnits, budget.currency.code, user, id])
            guard db.changesCount > 0 else { return nil }
            return try Self.fetchLists(db, user: user, number: id).first
        }
    }

    public func deleteList(userID: String, id: Int64) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            try db.execute(sql: "DELETE FROM shopping_lists WHERE user_id = ? AND number = ?", arguments: [user, id])
            return db.changesCount > 0
        }
    }

    public func checkItem(
        userID: String, id: Int64, position: Int, expense: Expense, price: PriceEntry?, pantry: PantryFields?
    ) async throws -> (ShoppingList, Expense)? {
        let user = Identity.normalized(userID)
        return try await bulkWrite { writer, db -> (ShoppingList, Expense)? in
            guard let pk = try Int64.fetchOne(db, sql: "SELECT pk FROM shopping_lists WHERE user_id = ? AND number = ?", arguments: [user, id])
            else { return nil }
            try db.execute(sql: "UPDATE shopping_lists SET checks = checks + 1 WHERE pk = ?", arguments: [pk])
            var stored = expense
            stored.id += "-\(try Int64.fetchOne(db, sql: "SELECT checks FROM shopping_lists WHERE pk = ?", arguments: [pk]) ?? 0)"
            let outcomes = try Self.insertReceipt(db, writer, stored, prices: price.map { [$0] } ?? [])
            var recordID: Int64?
            if case .inserted(let r, _)? = outcomes.first { recordID = r.id }
            try db.execute(sql: """
                UPDATE shopping_list_items SET checked_expense_id = ?, checked_price_id = ?, checked_paid_minor = ?
                WHERE list_pk = ? AND position = ? AND checked_expense_id IS NULL
                """, arguments: [stored.id, recordID, stored.amount.minorUnits, pk, position])
            guard db.changesCount == 1 else { throw EditError.invalid(field: "item", reason: "is checked off already, or no longer on the list") }
            if let pantry { try PantrySchema.insert(db, user: user, pantry, source: .list, purchase: stored.id) }
            return (try Self.fetchLists(db, user: user, number: id)[0], stored)
        }
    }

    public func uncheckItem(userID: String, id: Int64, position: Int) async throws -> ShoppingList? {
        let user = Identity.normalized(userID)
        return try await bulkWrite { _, db -> ShoppingList? in
            guard let pk = try Int64.fetchOne(db, sql: "SELECT pk FROM shopping_lists WHERE user_id = ? AND number = ?", arguments: [user, id])
            else { return nil }
            guard let row = try Row.fetchOne(db, sql: """
                SELECT checked_expense_id, checked_price_id FROM shopping_list_items WHERE list_pk = ? AND position = ? AND checked_expense_id IS NOT NULL
                """, arguments: [pk, position])
            else { throw EditError.invalid(field: "item", reason: "is not checked off") }
            let expenseID: String = row[0]
            if let old = try Self.storedExpense(db, id: expenseID, userID: user) {
                var rollups = MapRollup.Changes()
                rollups.add(old.expense, sign: -1)
                try MapRollupStorage.apply(rollups, db)
                try db.execute(sql: "DELETE FROM expenses WHERE id = ? AND user_id = ?", arguments: [expenseID, user])
                try RTreeScrub.zeroUnusedCells(of: "idx_expenses_geom", in: db)
                try Self.refreshLayerStatistics(db)
                try Self.markPendingScrub(db)
            }
            if let priceID: Int64 = row[1] {
                try db.execute(sql: "DELETE FROM price_records WHERE pk = ? AND user_id = ?", arguments: [priceID, user])
            }
            try PantrySchema.deleteItems(db, user: user, purchase: expenseID, source: .list)
            try db.execute(sql: """
                UPDATE shopping_list_items SET checked_expense_id = NULL, checked_price_id = NULL, checked_paid_minor = NULL
                WHERE list_pk = ? AND position = ?
                """, arguments: [pk, position])
            return try Self.fetchLists(db, user: user, number: id).first
        }
    }

    public func addList(userID: String, name: String, budget: Money) async throws -> ShoppingList {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            let number = try UserNumbers.next(db, counter: "shopping_list_numbers", existingUser: user)
            try db.execute(
                sql: "INSERT INTO shopping_lists (user_id, number, name, budget_minor, currency, created_at) VALUES (?, ?, ?, ?, ?, \(Self.nowSQL))",
                arguments: [user, number, name, budget.minorUnits, budget.currency.code])
            return try Self.fetchLists(db, user: user, number: number)[0]
        }
    }

    public func setItems(userID: String, id: Int64, _ items: [ShoppingListItem]) async throws -> ShoppingList? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            guard let pk = try Int64.fetchOne(db, sql: "SELECT pk FROM shopping_lists WHERE user_id = ? AND number = ?", arguments: [user, id])
            else { return nil }
            try Self.replaceItems(db, pk: pk, user: user, items)
            return try Self.fetchLists(db, user: user, number: id).first
        }
    }

    public func completeList(userID: String, id: Int64, expense: Expense, prices: [PriceEntry]) async throws -> ShoppingList? {
        let user = Identity.normalized(userID)
        return try await bulkWrite { writer, db in
            guard let pk = try Int64.fetchOne(db, sql: "SELECT pk FROM shopping_lists WHERE user_id = ? AND number = ?", arguments: [user, id])
            else { return nil }
            _ = try Self.insertReceipt(db, writer, expense, prices: prices)
            try db.execute(sql: "UPDATE shopping_lists SET completed_expense_id = ? WHERE pk = ?", arguments: [expense.id, pk])
            return try Self.fetchLists(db, user: user, number: id).first
        }
    }

    static func replaceItems(_ db: Database, pk: Int64, user: String, _ items: [ShoppingListItem]) throws {
        try db.execute(sql: "DELETE FROM shopping_list_items WHERE list_pk = ?", arguments: [pk])
        for (i, item) in items.enumerated() {
            var packs: Int64?, dimension: String?, thousandths: Int64?
            switch item.want {
            case .packs(let n): packs = n
            case .amount(let a): (dimension, thousandths) = (a.dimension.rawValue, a.thousandths)
            }
            try db.execute(
                sql: """
                    INSERT INTO shopping_list_items (list_pk, user_id, position, name, packs, dimension, thousandths,
                        checked_expense_id, checked_price_id, checked_paid_minor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [pk, user, i + 1, item.name, packs, dimension, thousandths, item.check?.expenseID, item.check?.priceRecordID,
                            item.check?.paidMinor])
        }
    }

    static func fetchLists(_ db: Database, user: String, number: Int64?) throws -> [ShoppingList] {
        var items: [Int64: [ShoppingListItem]] = [:]
        for r in try Row.fetchAll(db, sql: """
            SELECT l.number, i.name, i.packs, i.dimension, i.thousandths, i.checked_expense_id, i.checked_price_id, i.checked_paid_minor
            FROM shopping_list_items AS i
            JOIN shopping_lists AS l ON l.pk = i.list_pk WHERE i.user_id = ? ORDER BY l.number, i.position
            """, arguments: [user]) {
            let want: BasketItem.Want
            if let packs: Int64 = r[2] { want = .packs(packs) } else {
                want = .amount(PackSize(dimension: PackSize.Dimension(rawValue: r[3]) ?? .count, thousandths: r[4]))
            }
            let check = (r[5] as String?).map { ShoppingListCheck(expenseID: $0, priceRecordID: r[6], paidMinor: r[7] ?? 0) }
            items[r[0], default: []].append(ShoppingListItem(name: r[1], want: want, check: check))
        }
        return try Row.fetchAll(db, sql: """
            SELECT number, name, budget_minor, currency, completed_expense_id FROM shopping_lists
            WHERE user_id = ? AND (?2 IS NULL OR number = ?2) ORDER BY number
            """, arguments: [user, number]).map { r in
            ShoppingList(
                id: r[0], userID: user, name: r[1], budget: Money(minorUnits: r[2], currency: try Currency(code: r[3])),
                items: items[r[0]] ?? [], completedExpenseID: r[4])
        }
    }
}

/// The list reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: ShoppingListReader {
    public func lists(userID: String) throws -> [ShoppingList] {
        try SpatiaLiteStore.fetchLists(db, user: Identity.normalized(userID), number: nil)
    }
}
