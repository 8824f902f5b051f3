/// Storing receipts (`geospend receipts import|list|show|correct|confirm|delete`): the receipt
/// record, its expense and its price records in one transaction, so a receipt is wholly stored
/// or not at all (Sources/GeoSpend/Prices/Receipt.swift, docs/RECEIPTS.md § Receipts as records).
public protocol ReceiptStore: Sendable {
    /// Adds `expense` (the receipt's total, linked to its store) and saves `prices` for the
    /// expense's user as `PriceStore.savePrices` does (matching each line to a product), in one
    /// transaction: when anything fails, nothing is written (shopping lists' `complete`).
    /// - Returns: one outcome per price entry, in order.
    func saveReceipt(_ expense: Expense, prices: [PriceEntry]) async throws -> [PriceSaveOutcome]

    /// Adds a new receipt and, with `records`, its expense and price records (each carrying the
    /// receipt's id; each item told its record's product), in one transaction. Refused
    /// (`EditError.invalid`, "stored before") when the user has a receipt of that id.
    /// - Returns: the receipt as stored and one outcome per price entry.
    func addReceipt(_ receipt: Receipt, records: ReceiptRecords?) async throws -> (Receipt, [PriceSaveOutcome])

    /// Replaces a stored receipt's fields; its old expense and price records are deleted and
    /// `records` stored in their place, in one transaction (`correct`, `confirm`).
    func replaceReceipt(_ receipt: Receipt, records: ReceiptRecords?) async throws -> (Receipt, [PriceSaveOutcome])

    /// The user's receipt with this id, or nil.
    func receipt(id: String, userID: String) async throws -> Receipt?

    /// The user's receipts, oldest first, after `sequence` (the keyset cursor), at most `limit`;
    /// without their kept image (`receipt(id:)` has it).
    func receipts(userID: String, after sequence: Int64?, limit: Int) async throws -> [Receipt]

    /// Deletes the receipt (its kept photo and OCR text), its expense and its price records in
    /// one transaction, then leaves no copy of them readable, as `ExpenseEditing.deleteExpense`
    /// does: the file's freed space zeroed, its write-ahead log emptied and (`rewrite`) the file
    /// rewritten; PostgreSQL `VACUUM`s the three tables.
    /// - Returns: nil when the user has no such receipt; else notes on what may remain (empty
    ///   when nothing does).
    func deleteReceipt(id: String, userID: String, rewrite: DeletionRewrite) async throws -> [String]?
}

/// Receipts as a read scope hands them out (every `ExpenseReader` is one). A store that keeps
/// no receipts finds none.
public protocol ReceiptReader {
    /// `ReceiptStore.receipt(id:userID:)`, in the scope's snapshot.
    func receipt(id: String, userID: String) throws -> Receipt?
    /// `ReceiptStore.receipts(userID:after:limit:)`, in the scope's snapshot.
    func receipts(userID: String, after sequence: Int64?, limit: Int) throws -> [Receipt]
}

/// A backend's receipt reads are its read scope's (written once, in its reader).
extension ReceiptStore where Self: ExpenseStore {
    public func receipt(id: String, userID: String) async throws -> Receipt? {
        try await read { try $0.receipt(id: id, userID: userID) }
    }

    public func receipts(userID: String, after sequence: Int64?, limit: Int) async throws -> [Receipt] {
        try await read { try $0.receipts(userID: userID, after: sequence, limit: limit) }
    }
}
