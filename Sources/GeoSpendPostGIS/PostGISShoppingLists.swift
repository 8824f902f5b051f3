import GeoSpend
import PostgresNIO

/// Shopping lists on PostgreSQL (migration v7, `PostGISSchema.shoppingListsSQL`), as on the
/// file (Sources/GeoSpendSpatiaLite/ShoppingListStorage.swift): numbered per user, never
/// reused; items in the order added; `completeList` stores the expense and its price records
/// and marks the list done in one transaction.
extension PostGISStore: ShoppingListStore {
    public func addList(userID: String, name: String, budget: Money) async throws -> ShoppingList {
        let user = Identity.normalized(userID)
        return try await editing { db in
            guard try db.hasUser(user) else {
                // The CLI checks the user first (NameChecks.user); this guards other callers.
                throw EditError.invalid(field: "user", reason: "no user with id \"\(user)\"")
            }
            let number = try db.rows("""
                INSERT INTO shopping_list_numbers (user_id, last) VALUES (\(user), 1)
                ON CONFLICT (user_id) DO UPDATE SET last = shopping_list_numbers.last + 1 RETURNING last
                """)[0].decode(Int64.self)
            _ = try db.rows("""
                INSERT INTO shopping_lists (user_id, number, name, budget_minor, currency)
                VALUES (\(user), \(number), \(name), \(budget.minorUnits), \(budget.currency.code))
                """)
            return try Self.fetchLists(db, user: user, number: number)[0]
        }
    }

    public func setItems(userID: String, id: Int64, _ items: [ShoppingListItem]) async throws -> ShoppingList? {
        let user = Identity.normalized(userID)
        return try await editing { db in
            guard try Self.hasList(db, user: user, number: id) else { return nil }
            _ = try db.rows("DELETE FROM shopping_list_items WHERE user_id = \(user) AND list_number = \(id)")
            var text = CopyText()
            for (i, item) in items.enumerated() {
                var packs: Int64?, dimension: String?, thousandths: Int64?
                switch item.want {
                case .packs(let n): packs = n
                case .amount(let a): (dimension, thousandths) = (a.dimension.rawValue, a.thousandths)
                }
                text.text(user); text.integer(id); text.integer(Int64(i + 1)); text.text(item.name); text.integer(packs)
                text.text(dimension); text.integer(thousandths)
                text.text(item.check?.expenseID); text.integer(item.check?.priceRecordID); text.integer(item.check?.paidMinor)
                text.endRow()
            }
            try db.copy(
                "shopping_list_items",
                ["user_id", "list_number", "position", "name", "packs", "dimension", "thousandths", "checked_expense_id", "checked_price_id",
                 "checked_paid_minor"], text)
            return try Self.fetchLists(db, user: user, number: id).first
        }
    }

    public func completeList(userID: String, id: Int64, expense: Expense, prices: [PriceEntry]) async throws -> ShoppingList? {
        let user = Identity.normalized(userID)
        return try await editing { db in
            guard try Self.hasList(db, user: user, number: id) else { return nil }
            _ = try Self.insertReceipt(db, expense, prices: prices)
            _ = try db.rows("UPDATE shopping_lists SET completed_expense_id = \(expense.id) WHERE user_id = \(user) AND number = \(id)")
            return try Self.fetchLists(db, user: user, number: id).first
        }
    }

    public func updateList(userID: String, id: Int64, name: String, budget: Money) async throws -> ShoppingList? {
        let user = Identity.normalized(userID)
        return try await editing { db in
            let changed = try db.rows("""
                UPDATE shopping_lists SET name = \(name), budget_minor = \(budget.minorUnits), currency = \(budget.currency.code)
                WHERE user_id = \(user) AND number = \(id) RETURNING 1
                """)
            guard !changed.isEmpty else { return nil }
            return try Self.fetchLists(db, user: user, number: id).first
        }
    }

    public func deleteList(userID: String, id: Int64) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await editing { db in
            !(try db.rows("DELETE FROM shopping_lists WHERE user_id = \(user) AND number = \(id) RETURNING 1")).isEmpty
        }
    }

    public func checkItem(
        userID: String, id: Int64, position: Int, expense: Expense, price: PriceEntry?, pantry: PantryFields?
    ) async throws -> (ShoppingList, Expense)? {
        let user = Identity.normalized(userID)
        return try await editing { db -> (ShoppingList, Expense)? in
            let counted = try db.rows("UPDATE shopping_lists SET checks = checks + 1 WHERE user_id = \(user) AND number = \(id) RETURNING checks")
            guard let n = try counted.first?.decode(Int64.self) else { return nil }
            var stored = expense
            stored.id += "-\(n)"
            let outcomes = try Self.insertReceipt(db, stored, prices: price.map { [$0] } ?? [])
            var recordID: Int64?
            if case .inserted(let r, _)? = outcomes.first { recordID = r.id }
            let marked = try db.rows("""
                UPDATE shopping_list_items SET checked_expense_id = \(stored.id), checked_price_id = \(recordID),
                    checked_paid_minor = \(stored.amount.minorUnits)
                WHERE user_id = \(user) AND list_number = \(id) AND position = \(Int64(position)) AND checked_expense_id IS NULL RETURNING 1
                """)
            guard marked.count == 1 else { throw EditError.invalid(field: "item", reason: "is checked off already, or no longer on the list") }
            if let pantry { try Self.insertPantryItem(db, user: user, pantry, source: .list, purchase: stored.id) }
            return (try Self.fetchLists(db, user: user, number: id)[0], stored)
        }
    }

    public func uncheckItem(userID: String, id: Int64, position: Int) async throws -> ShoppingList? {
        let user = Identity.normalized(userID)
        return try await editing { db -> ShoppingList? in
            guard try Self.hasList(db, user: user, number: id) else { return nil }
            let rows = try db.rows("""
                UPDATE shopping_list_items AS i SET checked_expense_id = NULL, checked_price_id = NULL, checked_paid_minor = NULL
                FROM shopping_list_items AS old
                WHERE i.user_id = \(user) AND i.list_number = \(id) AND i.position = \(Int64(position)) AND i.checked_expense_id IS NOT NULL
                    AND old.user_id = i.user_id AND old.list_number = i.list_number AND old.position = i.position
                RETURNING old.checked_expense_id, old.checked_price_id
                """)
            guard let row = rows.first else { throw EditError.invalid(field: "item", reason: "is not checked off") }
            let (expenseID, priceID) = try row.decode((String, Int64?).self)
            _ = try db.rows("DELETE FROM expenses WHERE id = \(expenseID) AND user_id = \(user)")
            if let priceID { _ = try db.rows("DELETE FROM price_records WHERE pk = \(priceID) AND user_id = \(user)") }
            try Self.deletePantryItems(db, user: user, purchase: expenseID, source: .list)
            return try Self.fetchLists(db, user: user, number: id).first
        }
    }

    private static func hasList(_ db: PostGISReader, user: String, number: Int64) throws -> Bool {
        try db.rows("SELECT EXISTS (SELECT 1 FROM shopping_lists WHERE user_id = \(user) AND number = \(number))")[0].decode(Bool.self)
    }

    /// The user's lists by number (or the one numbered `number`), each with its items in order.
    static func fetchLists(_ db: PostGISReader, user: String, number: Int64?) throws -> [ShoppingList] {
        var items: [Int64: [ShoppingListItem]] = [:]
        for row in try db.rows("""
            SELECT list_number, name, packs, dimension, thousandths, checked_expense_id, checked_price_id, checked_paid_minor
            FROM shopping_list_items WHERE user_id = \(user) ORDER BY list_number, position
            """) {
            let (list, name, packs, dimension, thousandths, checked, priceID, paid) = try row.decode(
                (Int64, String, Int64?, String?, Int64?, String?, Int64?, Int64?).self)
            let want: BasketItem.Want
            if let packs { want = .packs(packs) } else {
                want = .amount(PackSize(dimension: dimension.flatMap(PackSize.Dimension.init(rawValue:)) ?? .count, thousandths: thousandths ?? 0))
            }
            let check = checked.map { ShoppingListCheck(expenseID: $0, priceRecordID: priceID, paidMinor: paid ?? 0) }
            items[list, default: []].append(ShoppingListItem(name: name, want: want, check: check))
        }
        return try db.rows("""
            SELECT number, name, budget_minor, currency, completed_expense_id FROM shopping_lists
            WHERE user_id = \(user) AND (\(number)::bigint IS NULL OR number = \(number)) ORDER BY number
            """).map { row in
            let (n, name, minor, currency, completed) = try row.decode((Int64, String, Int64, String, String?).self)
            return ShoppingList(
                id: n, userID: user, name: name, budget: Money(minorUnits: minor, currency: try Currency(code: currency)),
                items: items[n] ?? [], completedExpenseID: completed)
        }
    }
}

/// The list reads of a read scope, on its connection and snapshot.
extension PostGISReader: ShoppingListReader {
    func lists(userID: String) throws -> [ShoppingList] {
        try PostGISStore.fetchLists(self, user: Identity.normalized(userID), number: nil)
    }
}
