import GeoSpend

/// A receipt in one write transaction on PostgreSQL: the expense through the import's writer
/// (`PostGISWriter`: the same checks as an import — unknown store, duplicate id — into the
/// partitioned `expenses`), then the price records (`insertPrices`). Any error rolls both back,
/// as on the file (Sources/GeoSpendSpatiaLite/ReceiptStorage.swift).
extension PostGISStore: ReceiptStore {
    public func saveReceipt(_ expense: Expense, prices: [PriceEntry]) async throws -> [PriceSaveOutcome] {
        try await editScope { db in try Self.insertReceipt(db, expense, prices: prices) }
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
}
