import Foundation
import GeoSpend
import GRDB

/// Receipts on the file (migration v21, `ReceiptSchema`): the receipt row, its expense through
/// the bulk writer (the same checks as an import: unknown store, duplicate id) and its price
/// records (`insertPrices`, each then marked with the receipt's id), in one `BEGIN IMMEDIATE`
/// transaction. Any error rolls all back.
extension SpatiaLiteStore: ReceiptStore {
    public func saveReceipt(_ expense: Expense, prices: [PriceEntry]) async throws -> [PriceSaveOutcome] {
        try await bulkWrite { writer, db in try Self.insertReceipt(db, writer, expense, prices: prices) }
    }

    /// The expense, then the price records, inside the caller's transaction (also `lists complete`).
    static func insertReceipt(_ db: Database, _ writer: SpatiaLiteBulkWriter, _ expense: Expense, prices: [PriceEntry]) throws -> [PriceSaveOutcome] {
        try Self.ensureUser(db, expense.userID)
        if try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM expenses WHERE id = ? AND user_id = ?)", arguments: [expense.id, expense.userID]) == true
        {
            throw EditError.invalid(field: "id", reason: "\(expense.id) is taken: this receipt or list was stored before")
        }
        do { _ = try writer.insert(expense) } catch let rejection as RowRejection {
            throw rejection.column == "store_id"
                ? EditError.unknownStore(expense.storeID ?? "") : EditError.invalid(field: rejection.column, reason: rejection.reason)
        }
        return try Self.insertPrices(db, prices, userID: expense.userID)
    }

    // MARK: Receipt records

    public func addReceipt(_ receipt: Receipt, records: ReceiptRecords?) async throws -> (Receipt, [PriceSaveOutcome]) {
        try await writeTransaction { db in try Self.writeReceipt(db, receipt, records: records, replacing: false) }
    }

    public func replaceReceipt(_ receipt: Receipt, records: ReceiptRecords?) async throws -> (Receipt, [PriceSaveOutcome]) {
        try await writeTransaction { db in try Self.writeReceipt(db, receipt, records: records, replacing: true) }
    }

    /// To its end, cancelled or not, as `deleteExpense` (ExpenseLife.swift).
    public func deleteReceipt(id: String, userID: String, rewrite: DeletionRewrite) async throws -> [String]? {
        try await offloaded { try self.deleteReceiptNow(id: id, userID: userID, rewrite: rewrite) }
    }

    /// As `deleteExpense`: `secure_delete` zeroes what the transaction frees, the pending clean-up
    /// is flagged in it (`PendingScrub`), and once it commits the write-ahead log is emptied and
    /// (`.now`) the file rewritten, so neither the photo's bytes nor its text stay readable.
    func deleteReceiptNow(id: String, userID: String, rewrite: DeletionRewrite) throws -> [String]? {
        let what = "receipt \"\(id)\" of user \"\(userID)\""
        let found: Bool = try translatingErrors {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")  // a kept photo leaves no copy in free pages
                var found = false
                try db.inTransaction(.immediate) {
                    guard let expenseID = try Row.fetchOne(
                        db, sql: "SELECT expense_id FROM receipts WHERE user_id = ? AND id = ?", arguments: [userID, id]) else { return .rollback }
                    if rewrite == .now { try Self.checkSpaceToRewrite(db, path: path, what: what) }
                    found = true
                    let products = try Int64.fetchAll(
                        db, sql: "SELECT DISTINCT product_id FROM price_records WHERE user_id = ? AND receipt_id = ?", arguments: [userID, id])
                    try Self.deleteReceiptRecords(db, id: id, userID: userID, expenseID: expenseID[0])
                    if let purchase: String = expenseID[0] { try PantrySchema.deleteItems(db, user: userID, purchase: purchase, source: .receipt) }
                    try db.execute(sql: "DELETE FROM receipts WHERE user_id = ? AND id = ?", arguments: [userID, id])
                    // As `users delete`: a product the receipt's lines made goes once no record names
                    // it, or the catalogue would keep what the receipt said.
                    for product in products {
                        try db.execute(
                            sql: "DELETE FROM products WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM price_records WHERE product_id = ?1)",
                            arguments: [product])
                    }
                    try Self.markPendingScrub(db)  // a receipt waiting for review has no expense to flag it
                    return .commit
                }
                return found
            }
        }
        guard found else { return nil }
        var leftovers: [String] = []
        do {
            if rewrite == .skipped {
                leftovers.append("the file was not rewritten: fragments of the deleted receipt may stay in unused page space until `geospend doctor --repair` rewrites it")
            }
            if try !scrubAfterDeletion(rewrite: rewrite == .now) {
                leftovers.append("another connection was reading: the write-ahead log keeps old pages until its next checkpoint; `geospend doctor --repair` empties it")
            }
        } catch let failure as ScrubFailure {
            throw StoreError.deletedButNotScrubbed(path: path, what: what, rows: 1, reason: failure.reason)
        }
        return leftovers
    }

    /// `expenses delete` of a receipt's expense: the receipt and its price records go too, in
    /// the caller's transaction (docs/RECEIPTS.md § Receipts as records).
    static func deleteReceiptRows(_ db: Database, expenseID: String, userID: String) throws {
        guard try db.tableExists("receipts") else { return }
        try db.execute(sql: """
            DELETE FROM price_records WHERE user_id = ?1
                AND receipt_id IN (SELECT id FROM receipts WHERE user_id = ?1 AND expense_id = ?2)
            """, arguments: [userID, expenseID])
        try db.execute(sql: "DELETE FROM receipts WHERE user_id = ? AND expense_id = ?", arguments: [userID, expenseID])
        try PantrySchema.deleteItems(db, user: userID, purchase: expenseID, source: .receipt)
    }

    /// A receipt's price records and expense, inside the caller's transaction.
    static func deleteReceiptRecords(_ db: Database, id: String, userID: String, expenseID: String?) throws {
        try db.execute(sql: "DELETE FROM price_records WHERE user_id = ? AND receipt_id = ?", arguments: [userID, id])
        if let expenseID { try Self.deleteExpenseRow(db, id: expenseID, userID: userID) }
    }

    /// The old expense and price records out (`replacing`), the new ones in, then the row.
    static func writeReceipt(_ db: Database, _ receipt: Receipt, records: ReceiptRecords?, replacing: Bool) throws -> (Receipt, [PriceSaveOutcome]) {
        let user = receipt.userID
        try Self.ensureUser(db, user)
        let old = try Row.fetchOne(db, sql: "SELECT pk, expense_id FROM receipts WHERE user_id = ? AND id = ?", arguments: [user, receipt.id])
        if replacing {
            guard let old else { throw ReceiptRecording.notFound(receipt.id) }
            try Self.deleteReceiptRecords(db, id: receipt.id, userID: user, expenseID: old[1])
        } else if old != nil {
            throw EditError.invalid(field: "id", reason: "\(receipt.id) is taken: this receipt was stored before (`geospend receipts show \(receipt.id)`)")
        }
        var stored = receipt
        var outcomes: [PriceSaveOutcome] = []
        if let records {
            // After the deletions: the writer sets the expense triggers aside while it works.
            let writer = try SpatiaLiteBulkWriter(db: db)
            outcomes = try Self.insertReceipt(db, writer, records.expense, prices: records.prices.map(\.entry))
            try writer.finish()
            try NotificationSchema.raiseBudgetEvents(db, path: db.description, touched: writer.touched)
            for (price, outcome) in zip(records.prices, outcomes) {
                guard case .inserted(let record, _) = outcome else { continue }
                try db.execute(sql: "UPDATE price_records SET receipt_id = ? WHERE pk = ?", arguments: [receipt.id, record.id])
                stored.items[price.item].productID = record.product.id
            }
            for item in records.pantry { try PantrySchema.insert(db, user: user, item, source: .receipt, purchase: records.expense.id) }
        }
        // The store as the user sees it; an unknown one stays for the foreign key to refuse.
        let place = try stored.storeID.map { id in try Self.recordStore(db, .id(id), user: user) ?? .shared(id) }
        let values: [DatabaseValue] = [
            place?.sharedID.databaseValue ?? .null, place?.addedNumber.databaseValue ?? .null, stored.date.databaseValue, stored.time.databaseValue, stored.totalMinor.databaseValue,
            stored.currency.code.databaseValue, stored.imageHash.databaseValue, stored.imageName.databaseValue,
            stored.image.map { Data($0) }.databaseValue, stored.text.databaseValue, stored.status.rawValue.databaseValue,
            Receipt.encodeProblems(stored.problems).databaseValue, Receipt.encodeItems(stored.items).databaseValue,
            stored.expenseID.databaseValue,
        ]
        if let old {
            try db.execute(sql: """
                UPDATE receipts SET store_id = ?, user_store_number = ?, receipt_date = ?, receipt_time = ?, total_minor = ?, currency = ?, image_sha256 = ?,
                    image_name = ?, image = ?, text = ?, status = ?, problems = ?, items = ?, expense_id = ? WHERE pk = ?
                """, arguments: StatementArguments(values + [(old[0] as Int64).databaseValue]))
        } else {
            try db.execute(sql: """
                INSERT INTO receipts (store_id, user_store_number, receipt_date, receipt_time, total_minor, currency, image_sha256, image_name,
                    image, text, status, problems, items, expense_id, id, user_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: StatementArguments(values + [receipt.id.databaseValue, user.databaseValue, receipt.createdAt.databaseValue]))
        }
        let row = try Row.fetchOne(db, sql: "SELECT \(receiptColumns(image: true)) FROM receipts WHERE user_id = ? AND id = ?", arguments: [user, receipt.id])!
        return (try decodeReceipt(row), outcomes)
    }

    static func receiptColumns(image: Bool) -> String {
        """
        pk, id, user_id, coalesce(store_id, '\(AddedStoreID.prefix)' || user_store_number), receipt_date, receipt_time, total_minor, \
        currency, image_sha256, image_name, \(image ? "image" : "NULL"), text, status, problems, items, expense_id, created_at
        """
    }

    static func decodeReceipt(_ r: Row) throws -> Receipt {
        let image: Data? = r[10]
        return Receipt(
            id: r[1], userID: r[2], storeID: r[3], date: r[4], time: r[5], totalMinor: r[6], currency: try Currency(code: r[7]),
            imageHash: r[8], imageName: r[9], image: image.map { [UInt8]($0) }, text: r[11],
            status: Receipt.Status(rawValue: r[12]) ?? .needsReview, problems: try Receipt.decodeProblems(r[13]),
            items: try Receipt.decodeItems(r[14]), expenseID: r[15], createdAt: r[16], sequence: r[0])
    }
}

/// The receipt reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: ReceiptReader {
    public func receipt(id: String, userID: String) throws -> Receipt? {
        try Row.fetchOne(db, sql: "SELECT \(SpatiaLiteStore.receiptColumns(image: true)) FROM receipts WHERE user_id = ? AND id = ?", arguments: [userID, id])
            .map(SpatiaLiteStore.decodeReceipt)
    }

    public func receipts(userID: String, after sequence: Int64?, limit: Int) throws -> [Receipt] {
        try Row.fetchAll(db, sql: """
            SELECT \(SpatiaLiteStore.receiptColumns(image: false)) FROM receipts WHERE user_id = ? AND pk > ? ORDER BY pk LIMIT ?
            """, arguments: [userID, sequence ?? 0, limit]).map(SpatiaLiteStore.decodeReceipt)
    }
}
