/// Shopping lists (`geospend lists`): each user's own, numbered per user (1, 2, 3 …, never
/// reused), as periods and budgets are. Every call is one transaction or one snapshot.
public protocol ShoppingListStore: Sendable {
    /// A new, empty list of an existing user.
    func addList(userID: String, name: String, budget: Money) async throws -> ShoppingList

    /// The user's lists by id, with their items.
    func lists(userID: String) async throws -> [ShoppingList]

    /// Replaces the items of one of the user's open lists; nil when the user has no such list.
    func setItems(userID: String, id: Int64, _ items: [ShoppingListItem]) async throws -> ShoppingList?

    /// Completes an open list: stores `expense` and the price records `prices` (as
    /// `ReceiptStore.saveReceipt`) and marks the list done, all in one transaction.
    /// - Returns: nil when the user has no such list.
    func completeList(userID: String, id: Int64, expense: Expense, prices: [PriceEntry]) async throws -> ShoppingList?
}
