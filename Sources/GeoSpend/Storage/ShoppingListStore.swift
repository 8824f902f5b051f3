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

    /// A new name and budget for one of the user's lists; nil when the user has no such list.
    func updateList(userID: String, id: Int64, name: String, budget: Money) async throws -> ShoppingList?

    /// Deletes the list and its items; expenses and price records it stored stay (they happened).
    /// - Returns: false when the user has no such list.
    func deleteList(userID: String, id: Int64) async throws -> Bool

    /// Checks off the item at `position` (1-based) of an open list, in one transaction: stores
    /// `expense` (its id gets `-N` appended, N counting the list's checks, never reused), when
    /// given the price record `price` (as `ReceiptStore.saveReceipt`) and the pantry item
    /// `pantry` (source `list`, the stored expense its purchase), and marks the item with them.
    /// - Returns: the list and the stored expense; nil when the user has no such list.
    /// - Throws: when the item is checked already (nothing is stored).
    func checkItem(
        userID: String, id: Int64, position: Int, expense: Expense, price: PriceEntry?, pantry: PantryFields?
    ) async throws -> (ShoppingList, Expense)?

    /// Unchecks the item at `position`: deletes the expense, the price record and the pantry
    /// item its check stored (open or closed: the purchase did not happen) and clears the mark,
    /// in one transaction. - Returns: nil when there is no such list.
    func uncheckItem(userID: String, id: Int64, position: Int) async throws -> ShoppingList?
}

/// Shopping lists as a read scope hands them out (every `ExpenseReader` is one). A store that
/// keeps no lists finds none.
public protocol ShoppingListReader {
    /// `ShoppingListStore.lists(userID:)`, in the scope's snapshot.
    func lists(userID: String) throws -> [ShoppingList]
}

/// A backend's list reads are its read scope's (written once, in its reader).
extension ShoppingListStore where Self: ExpenseStore {
    public func lists(userID: String) async throws -> [ShoppingList] { try await read { try $0.lists(userID: userID) } }
}
