import GeoSpend
import GRDB

/// A receipt in one `BEGIN IMMEDIATE` transaction: the expense through the bulk writer (the
/// same checks as an import: unknown store, duplicate id), then the price records
/// (`insertPrices`). Any error rolls both back.
extension SpatiaLiteStore: ReceiptStore {
    public func saveReceipt(_ expense: Expense, prices: [PriceEntry]) throws -> [PriceSaveOutcome] {
        try bulkWrite { writer, db in try Self.insertReceipt(db, writer, expense, prices: prices) }
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

    public func saveReceipt(_ expense: Expense, prices: [PriceEntry]) async throws -> [PriceSaveOutcome] {
        try await offloaded { try self.saveReceipt(expense, prices: prices) }
    }
}
