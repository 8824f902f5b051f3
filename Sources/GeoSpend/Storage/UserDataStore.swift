/// What a store offers for a user's own data: listing users, reading everything kept for one
/// user in one consistent snapshot (`geospend users export`), and deleting it
/// (`geospend users delete`). Separate from `ExpenseStore` because only these tools need it.
public protocol UserDataStore: Sendable {
    /// Every user with their row counts, in id order.
    func users() async throws -> [UserRecord]

    /// Runs `body` on one read transaction that sees the user's data as of one instant (an
    /// import committing meanwhile is either wholly in or wholly out).
    /// - Returns: nil when there is no such user.
    func withUserData<T: Sendable>(_ userID: String, _ body: @escaping @Sendable (any UserDataSnapshot) throws -> T) async throws -> T?

    /// Removes every row keyed by the user, in one transaction, and leaves no copy of it in the
    /// store's indexes, statistics or unused space (`rewriteFile`: also where only rewriting
    /// the whole database reaches). Shared stores are kept. Each store says in
    /// `UserDeletion.leftovers` what it could not reach (SpatiaLite: docs/RELIABILITY.md).
    /// - Returns: what was removed, or nil when there is no such user.
    func deleteUser(_ userID: String, rewriteFile: Bool) async throws -> UserDeletion?

    /// Writes an export's data (`UserRestore.read`) for `user` (the exported id, or another:
    /// `users import --as`), all in one transaction: a failure halfway leaves nothing written.
    /// Each table is restored by a small function of its own; a new per-user table adds one
    /// (docs/ARCHITECTURE.md, "Adding a per-user table").
    /// - Throws: `UserRestoreError.notEmpty` when `user` already has rows in any table keyed by
    ///   user, `.unknownStore` when a store the export names is missing (nothing written).
    func restore(_ data: UserRestoreData, as user: String) async throws
}

/// A user's data as a read scope hands it out (every `ExpenseReader` is one).
public protocol UserDataReader {
    /// `UserDataStore.users()`, in the scope's snapshot.
    func users() throws -> [UserRecord]
    /// The user's data in the scope's snapshot (`UserDataStore.withUserData`), to be read
    /// inside the scope only; nil when there is no such user.
    func userData(_ userID: String) throws -> (any UserDataSnapshot)?
}

/// A backend's user-data reads are its read scope's (written once, in its reader).
extension UserDataStore where Self: ExpenseStore {
    public func users() async throws -> [UserRecord] { try await read { try $0.users() } }

    public func withUserData<T: Sendable>(
        _ userID: String, _ body: @escaping @Sendable (any UserDataSnapshot) throws -> T
    ) async throws -> T? {
        try await read { reader in try reader.userData(userID).map(body) }
    }
}

/// One user's data inside a read transaction (see `UserDataStore.withUserData`).
public protocol UserDataSnapshot {
    var user: UserRecord { get }
    /// The user's categories, by kind then name.
    func categories() throws -> [Category]
    /// Streams the user's expenses in id order; memory stays flat for any number of rows.
    func forEachExpense(_ body: (Expense) throws -> Void) throws
    /// The stores with these ids, in id order (unknown ids are left out).
    func stores(withIDs ids: Set<String>) throws -> [Store]
    /// The user's categories with icon, colour and flags (inactive ones included), by kind then name.
    func categoryDetails() throws -> [CategoryDetail]
    /// Streams, in id order, the user's expenses that have a reminder or stored times
    /// (`expenses add|edit`); imported rows have none.
    func forEachExpenseTimes(_ body: (ExpenseTimes) throws -> Void) throws
    /// The user's budgets, active and inactive (`BudgetStore.budgets` order).
    func budgets() throws -> [Budget]
    /// The user's periods by id, each with its expenses' ids in id order.
    func periods() throws -> [(period: Period, expenseIDs: [String])]
    /// The user's price records, ascending by recorded instant then id, with their products.
    func priceRecords() throws -> [PriceRecord]

    /// The receipt each of the user's price records came from, by the record's id
    /// (`PriceRecord.id`); records not made from a receipt are absent.
    func priceRecordReceipts() throws -> [Int64: String]

    /// The user's shopping lists by id, with their items.
    func shoppingLists() throws -> [ShoppingList]

    /// The user's API tokens by id, without their hashes (`TokenStore`).
    func apiTokens() throws -> [TokenRecord]

    /// Streams the user's location history's fixes in time order (`PositionStore`); memory
    /// stays flat for any number of them.
    func forEachPosition(_ body: (Position) throws -> Void) throws

    /// The visits the user's history recorded, by start.
    func visits() throws -> [Visit]

    /// The user's settings (`UserSettingsStore`); all defaults when they chose nothing.
    func settings() throws -> UserSettings

    /// The user's webhooks (`NotificationStore`), oldest first, without their secrets.
    func webhooks() throws -> [Webhook]

    /// The user's notification settings (`NotificationStore`); defaults when they chose nothing.
    func notificationSettings() throws -> NotificationSettings

    /// The user's recurring rules (`RecurringStore`), by id.
    func recurringRules() throws -> [RecurringRule]

    /// The user's receipts (`ReceiptStore`), oldest first, kept photos included.
    func receipts() throws -> [Receipt]

    /// The user's pantry items (`PantryStore`), by id.
    func pantryItems() throws -> [PantryItem]

    /// The user's community membership, entries and comments (`CommunityStore`), by id.
    func communityActivity() throws -> CommunityActivity

    /// The user's tags (`ProductStore`), by name.
    func productTags() throws -> [ProductTag]

    /// The user's marks and tags of products (`ProductStore`), by product id, with the products.
    func productMarks() throws -> [(product: Product, marks: ProductMarks)]

    /// The user's added stores by number, and their favourite and default store ids as chosen
    /// (`StoreChoiceStore`).
    func storeChoiceRecord() throws -> StoreChoiceRecord
}

extension UserDataSnapshot {
    /// None: a store that keeps no receipts (the in-memory test store).
    public func priceRecordReceipts() throws -> [Int64: String] { [:] }
    /// None: a store that keeps no webhooks (the in-memory test store).
    public func webhooks() throws -> [Webhook] { [] }
    public func notificationSettings() throws -> NotificationSettings { NotificationSettings() }
    /// None: a store that keeps no receipts (the in-memory test store).
    public func receipts() throws -> [Receipt] { [] }

    /// None: a store without per-user stores (the in-memory test store).
    public func storeChoiceRecord() throws -> StoreChoiceRecord { StoreChoiceRecord() }

    /// None: a store without the community layer (the in-memory test store).
    public func communityActivity() throws -> CommunityActivity { CommunityActivity(member: nil, posts: [], comments: []) }
}

/// What an expense's life adds to its row: the reminder, when it was stored and changed, and
/// where its position came from when not with the expense (`PositionSource`).
public struct ExpenseTimes: Sendable, Hashable {
    public let id: String
    public let remindAt: String?
    public let createdAt: String?
    public let updatedAt: String?
    /// nil for a position imported with the expense (`device`) or none.
    public let positionSource: PositionSource?
    public let positionConfidence: Double?
    /// Whether geotagging linked the store (`geotag undo` unlinks it).
    public let storeInferred: Bool
    public init(
        id: String, remindAt: String?, createdAt: String?, updatedAt: String?, positionSource: PositionSource? = nil,
        positionConfidence: Double? = nil, storeInferred: Bool = false
    ) {
        self.storeInferred = storeInferred
        self.id = id
        self.remindAt = remindAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.positionSource = positionSource
        self.positionConfidence = positionConfidence
    }
}

/// A user as stored, with how many rows are theirs.
public struct UserRecord: Sendable, Hashable {
    public let id: String
    public let displayName: String?
    /// Their email address (`UserProfile`), when they gave one.
    public let email: String?
    /// When the user was created, `YYYY-MM-DDTHH:MM:SSZ`.
    public let createdAt: String
    public let expenses: Int
    public let geotaggedExpenses: Int
    public let categories: Int

    public init(
        id: String, displayName: String?, email: String? = nil, createdAt: String, expenses: Int, geotaggedExpenses: Int, categories: Int
    ) {
        self.id = id
        self.displayName = displayName
        self.email = email
        self.createdAt = createdAt
        self.expenses = expenses
        self.geotaggedExpenses = geotaggedExpenses
        self.categories = categories
    }
}

/// What deleting a user removed.
public struct UserDeletion: Sendable, Hashable {
    public let userID: String
    /// Rows removed per table (the `users` row included), in table order.
    public let rowsByTable: [TableRows]
    /// Why bytes of the deleted rows may still be in the store, when they may, in the store's
    /// own terms (SpatiaLite: the file was not rewritten, or another connection kept its log
    /// from being emptied). Empty when nothing of them remains.
    public let leftovers: [String]

    public struct TableRows: Sendable, Hashable {
        public let table: String
        public let rows: Int
        public init(table: String, rows: Int) {
            self.table = table
            self.rows = rows
        }
    }

    public init(userID: String, rowsByTable: [TableRows], leftovers: [String]) {
        self.userID = userID
        self.rowsByTable = rowsByTable
        self.leftovers = leftovers
    }

    public var totalRows: Int { rowsByTable.reduce(0) { $0 + $1.rows } }
}
