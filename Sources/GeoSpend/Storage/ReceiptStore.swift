/// Storing a receipt (`geospend receipts import`): its expense and its price records in one
/// transaction, so a receipt is wholly stored or not at all.
public protocol ReceiptStore: Sendable {
    /// Adds `expense` (the receipt's total, linked to its store) and saves `prices` for the
    /// expense's user as `PriceStore.savePrices` does (matching each line to a product), in one
    /// transaction: when anything fails, nothing is written.
    /// - Returns: one outcome per price entry, in order.
    func saveReceipt(_ expense: Expense, prices: [PriceEntry]) async throws -> [PriceSaveOutcome]
}
