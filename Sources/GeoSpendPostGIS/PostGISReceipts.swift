import Foundation
import GeoSpend
import PostgresNIO

/// Receipts on PostgreSQL (migration v12), as on the file
/// (Sources/GeoSpendSpatiaLite/ReceiptStorage.swift): the receipt row, its expense through the
/// import's writer (`PostGISWriter`: the same checks as an import — unknown store, duplicate id —
/// into the partitioned `expenses`) and its price records (`insertPrices`, each then marked with
/// the receipt's id) in one write transaction. Any error rolls all back.
extension PostGISStore: ReceiptStore {
    public func saveReceipt(_ expense: Expense, prices: [PriceEntry]) async throws -> [PriceSaveOutcome] {
        try await editing { db in try Self.insertReceipt(db, expense, prices: prices) }
    }

    /// The expense, then the price records, inside the caller's transaction (also `lists complete`).
    static func insertReceipt(_ db: PostGISReader, _ expense: Expense, prices: [PriceEntry]) throws -> [PriceSaveOutcome] {
        try ensureUser(db, expense.userID)
        if try db.rows("SELECT EXISTS (SELECT 1 FROM expenses WHERE id = \(expense.id) AND user_id = \(expense.userID))")[0].decode(Bool.self) {
            throw EditError.invalid(field: "id", reason: "\(expense.id) is taken: this receipt or list was stored before")
        }
        let writer = PostGISWriter(connection: db.connection, logger: db.logger)
        do { _ = try writer.insert(expense) } catch let rejection as RowRejection {
            throw rejection.column == "store_id"
                ? EditError.unknownStore(expense.storeID ?? "") : EditError.invalid(field: rejection.column, reason: rejection.reason)
        }
        try writer.finish()
        do { return try insertPrices(db, prices, userID: expense.userID) } catch let refused as UnknownStores {
            // The expense's store is known, so a line names another: refused whole, as on the file.
            let named = zip(prices, refused.outcomes).first { $0.1 == .unknownStore }?.0.store
            switch named {
            case .openStreetMap(let type, let number): throw EditError.unknownStore("osm:\(type.lowercased())/\(number)")
            case .id(let id): throw EditError.unknownStore(id)
            case nil: throw EditError.unknownStore("")
            }
        }
    }

    // MARK: Receipt records

    public func addReceipt(_ receipt: Receipt, records: ReceiptRecords?) async throws -> (Receipt, [PriceSaveOutcome]) {
        try await editing { db in try Self.writeReceipt(db, receipt, records: records, replacing: false) }
    }

    public func replaceReceipt(_ receipt: Receipt, records: ReceiptRecords?) async throws -> (Receipt, [PriceSaveOutcome]) {
        try await editing { db in try Self.writeReceipt(db, receipt, records: records, replacing: true) }
    }

    /// Deletes in one transaction, then (`.now`) `VACUUM`s the receipt's three tables, as
    /// `deleteExpense` does `expenses`; the service's batched rewrite (`rewriteAfterDeletions`)
    /// covers them too.
    public func deleteReceipt(id: String, userID: String, rewrite: DeletionRewrite) async throws -> [String]? {
        let found = try await editing { db in
            guard let row = try db.rows("SELECT expense_id FROM receipts WHERE user_id = \(userID) AND id = \(id)").first else { return false }
            let products = try db.rows("SELECT DISTINCT product_id FROM price_records WHERE user_id = \(userID) AND receipt_id = \(id)")
                .map { try $0.decode(Int64.self) }
            let purchase = try row.decode(String?.self)
            try Self.deleteReceiptRecords(db, id: id, userID: userID, expenseID: purchase)
            if let purchase { try Self.deletePantryItems(db, user: userID, purchase: purchase, source: .receipt) }
            _ = try db.rows("DELETE FROM receipts WHERE user_id = \(userID) AND id = \(id)")
            // As `users delete`: a product the receipt's lines made goes once no record names it.
            for product in products {
                _ = try db.rows("DELETE FROM products WHERE id = \(product) AND NOT EXISTS (SELECT 1 FROM price_records WHERE product_id = \(product))")
            }
            return true
        }
        guard found else { return nil }
        if rewrite == .batched { return [Self.walLeftover] }
        return try await vacuum(Self.receiptTables, rewrite == .now)
    }

    /// What a receipt's deletion frees rows in.
    static let receiptTables = ["receipts", "price_records", "expenses"]

    /// `expenses delete` of a receipt's expense: the receipt and its price records go too, in
    /// the caller's transaction (docs/RECEIPTS.md § Receipts as records).
    static func deleteReceiptRows(_ db: PostGISReader, expenseID: String, userID: String) throws {
        _ = try db.rows("""
            DELETE FROM price_records WHERE user_id = \(userID)
                AND receipt_id IN (SELECT id FROM receipts WHERE user_id = \(userID) AND expense_id = \(expenseID))
            """)
        _ = try db.rows("DELETE FROM receipts WHERE user_id = \(userID) AND expense_id = \(expenseID)")
        try deletePantryItems(db, user: userID, purchase: expenseID, source: .receipt)
    }

    /// A receipt's price records and expense, inside the caller's transaction.
    static func deleteReceiptRecords(_ db: PostGISReader, id: String, userID: String, expenseID: String?) throws {
        _ = try db.rows("DELETE FROM price_records WHERE user_id = \(userID) AND receipt_id = \(id)")
        if let expenseID { _ = try db.rows("DELETE FROM expenses WHERE id = \(expenseID) AND user_id = \(userID)") }
    }

    /// The old expense and price records out (`replacing`), the new ones in, then the row.
    static func writeReceipt(_ db: PostGISReader, _ receipt: Receipt, records: ReceiptRecords?, replacing: Bool) throws -> (Receipt, [PriceSaveOutcome]) {
        let user = receipt.userID
        try ensureUser(db, user)
        let old = try db.rows("SELECT pk, expense_id FROM receipts WHERE user_id = \(user) AND id = \(receipt.id)").first
            .map { try $0.decode((Int64, String?).self) }
        if replacing {
            guard let old else { throw ReceiptRecording.notFound(receipt.id) }
            try deleteReceiptRecords(db, id: receipt.id, userID: user, expenseID: old.1)
        } else if old != nil {
            throw EditError.invalid(field: "id", reason: "\(receipt.id) is taken: this receipt was stored before (`geospend receipts show \(receipt.id)`)")
        }
        var stored = receipt
        var outcomes: [PriceSaveOutcome] = []
        if let records {
            outcomes = try insertReceipt(db, records.expense, prices: records.prices.map(\.entry))
            for (price, outcome) in zip(records.prices, outcomes) {
                guard case .inserted(let record, _) = outcome else { continue }
                _ = try db.rows("UPDATE price_records SET receipt_id = \(receipt.id) WHERE user_id = \(user) AND pk = \(record.id)")
                stored.items[price.item].productID = record.product.id
            }
            for item in records.pantry { try insertPantryItem(db, user: user, item, source: .receipt, purchase: records.expense.id) }
        }
        let (problems, items, image) = (Receipt.encodeProblems(stored.problems), Receipt.encodeItems(stored.items), stored.image.map { Data($0) })
        // The store as the user sees it; an unknown one stays for the foreign key to refuse.
        let place = try stored.storeID.map { id in try recordStores(db, [.id(id)], user: user)[.id(id)] ?? .shared(id) }
        let (storeID, number) = (place?.sharedID, place?.addedNumber)
        if let old {
            _ = try db.rows("""
                UPDATE receipts SET store_id = \(storeID), user_store_number = \(number), receipt_date = \(stored.date), receipt_time = \(stored.time),
                    total_minor = \(stored.totalMinor), currency = \(stored.currency.code), image_sha256 = \(stored.imageHash),
                    image_name = \(stored.imageName), image = \(image), text = \(stored.text), status = \(stored.status.rawValue),
                    problems = \(problems), items = \(items), expense_id = \(stored.expenseID)
                WHERE pk = \(old.0)
                """)
        } else {
            _ = try db.rows("""
                INSERT INTO receipts (id, user_id, store_id, user_store_number, receipt_date, receipt_time, total_minor, currency, image_sha256,
                    image_name, image, text, status, problems, items, expense_id, created_at)
                VALUES (\(stored.id), \(user), \(storeID), \(number), \(stored.date), \(stored.time), \(stored.totalMinor), \(stored.currency.code),
                    \(stored.imageHash), \(stored.imageName), \(image), \(stored.text), \(stored.status.rawValue), \(problems), \(items),
                    \(stored.expenseID), \(stored.createdAt))
                """)
        }
        let row = try db.rows("SELECT \(unescaped: receiptColumns(image: true)) FROM receipts WHERE user_id = \(user) AND id = \(receipt.id)")[0]
        return (try decodeReceipt(row.makeRandomAccess()), outcomes)
    }

    static func receiptColumns(image: Bool) -> String {
        """
        pk, id, user_id, coalesce(store_id, '\(AddedStoreID.prefix)' || user_store_number), receipt_date, receipt_time, total_minor, \
        currency, image_sha256, image_name, \(image ? "image" : "NULL::bytea"), text, status, problems, items, expense_id, created_at
        """
    }

    static func decodeReceipt(_ r: PostgresRandomAccessRow) throws -> Receipt {
        let image = try r[10].decode(Data?.self)
        return Receipt(
            id: try r[1].decode(String.self), userID: try r[2].decode(String.self), storeID: try r[3].decode(String?.self),
            date: try r[4].decode(String?.self), time: try r[5].decode(String?.self), totalMinor: try r[6].decode(Int64?.self),
            currency: try Currency(code: try r[7].decode(String.self)), imageHash: try r[8].decode(String?.self),
            imageName: try r[9].decode(String?.self), image: image.map { [UInt8]($0) }, text: try r[11].decode(String.self),
            status: Receipt.Status(rawValue: try r[12].decode(String.self)) ?? .needsReview,
            problems: try Receipt.decodeProblems(try r[13].decode(String.self)), items: try Receipt.decodeItems(try r[14].decode(String.self)),
            expenseID: try r[15].decode(String?.self), createdAt: try r[16].decode(String.self), sequence: try r[0].decode(Int64.self))
    }
}

/// The receipt reads of a read scope, on its connection and snapshot.
extension PostGISReader: ReceiptReader {
    func receipt(id: String, userID: String) throws -> Receipt? {
        try rows("SELECT \(unescaped: PostGISStore.receiptColumns(image: true)) FROM receipts WHERE user_id = \(userID) AND id = \(id)")
            .first.map { try PostGISStore.decodeReceipt($0.makeRandomAccess()) }
    }

    func receipts(userID: String, after sequence: Int64?, limit: Int) throws -> [Receipt] {
        try rows("""
            SELECT \(unescaped: PostGISStore.receiptColumns(image: false)) FROM receipts
            WHERE user_id = \(userID) AND pk > \(sequence ?? 0) ORDER BY pk LIMIT \(Int64(limit))
            """).map { try PostGISStore.decodeReceipt($0.makeRandomAccess()) }
    }
}
