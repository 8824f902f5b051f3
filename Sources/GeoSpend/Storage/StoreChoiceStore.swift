/// A user's own side of the store registry (issue 38, "per-user stores"): favourite stores, one
/// default store, and stores the user added. The registry's OpenStreetMap stores stay shared;
/// a store a user adds is theirs alone: it has an id of its own kind (`mine-1`, numbered per
/// user, never reused) and no other user's call ever finds it. Every call is scoped to one user;
/// a store the user cannot see is "none", like a missing one.
public protocol StoreChoiceStore: Sendable {
    /// Adds a store only `userID` sees. - Returns: nil when there is no such user.
    func addStore(userID: String, _ fields: AddedStoreFields) async throws -> StoreEntry?

    /// The store `id` as the user sees it: their own added store (`mine-N`), else a shared one;
    /// nil when neither exists (another user's added store included).
    func store(userID: String, id: String) async throws -> StoreEntry?

    /// The user's added stores by number, their favourites by id and their default store, read
    /// in one snapshot. A favourite or default whose shared store has left the registry is left
    /// out.
    func storeChoices(userID: String) async throws -> StoreChoices

    /// Marks (`favourite`) or unmarks the store as one of the user's favourites.
    /// - Returns: false when the user cannot see such a store (nothing written).
    func setFavouriteStore(userID: String, storeID: String, _ favourite: Bool) async throws -> Bool

    /// Makes the store the user's one default store, or clears it (`storeID` nil).
    /// - Returns: false when the user cannot see such a store (nothing written).
    func setDefaultStore(userID: String, storeID: String?) async throws -> Bool
}

/// A store as one user sees it: a shared registry store, or one they added (`addedBy`).
public struct StoreEntry: Sendable, Hashable {
    public var store: Store
    /// A state or region (`--region "Uusimaa"`); nil for the registry's stores, which carry none.
    public var region: String?
    /// The user who added it; nil for a shared store.
    public var addedBy: String?
    /// When it was added, `YYYY-MM-DDTHH:MM:SS.sssZ`; nil for a shared store.
    public var createdAt: String?

    public init(store: Store, region: String? = nil, addedBy: String? = nil, createdAt: String? = nil) {
        self.store = store
        self.region = region
        self.addedBy = addedBy
        self.createdAt = createdAt
    }

    public var id: String { store.id }

    /// The store id an expense there carries: an expense names the registry's stores only (its
    /// store reports and nearest-store links are shared), so at a user's own added store it
    /// keeps the place's position and no id.
    public var expenseStoreID: String? { addedBy == nil ? store.id : nil }
}

/// A user's store choices as a read scope hands them out (every `ExpenseReader` is one):
/// `nearest-stores` lists the registry's stores and the user's own from one snapshot. A store
/// that keeps no choices finds none.
public protocol StoreChoiceReader {
    /// `StoreChoiceStore.storeChoices(userID:)`, in the scope's snapshot.
    func storeChoices(userID: String) throws -> StoreChoices
    /// `StoreChoiceStore.store(userID:id:)`, in the scope's snapshot.
    func store(userID: String, id: String) throws -> StoreEntry?
}

/// A backend's store-choice reads are its read scope's (written once, in its reader).
extension StoreChoiceStore where Self: ExpenseStore {
    public func store(userID: String, id: String) async throws -> StoreEntry? { try await read { try $0.store(userID: userID, id: id) } }
    public func storeChoices(userID: String) async throws -> StoreChoices { try await read { try $0.storeChoices(userID: userID) } }
}

/// What `StoreChoiceStore.storeChoices` reads.
public struct StoreChoices: Sendable, Hashable {
    /// The user's added stores, by number.
    public var added: [StoreEntry]
    /// The user's favourites, by id (byte order).
    public var favourites: [StoreEntry]
    public var defaultStore: StoreEntry?

    public init(added: [StoreEntry] = [], favourites: [StoreEntry] = [], defaultStore: StoreEntry? = nil) {
        self.added = added
        self.favourites = favourites
        self.defaultStore = defaultStore
    }

    public var isEmpty: Bool { added.isEmpty && favourites.isEmpty && defaultStore == nil }
}

/// A user's store choices as kept (`users export|import`): the ids as chosen, whether or not
/// they still resolve.
public struct StoreChoiceRecord: Sendable, Hashable {
    /// By number (`mine-N`).
    public var added: [StoreEntry]
    /// By id (byte order).
    public var favouriteIDs: [String]
    public var defaultID: String?

    /// Where a price record of this user's naming `id` is: their own added store when they have
    /// one of that id, else the registry's (as `PriceEntry.StoreReference.id` resolves).
    public func recordStore(_ id: String) -> RecordStore {
        if let n = AddedStoreID.number(id), added.contains(where: { $0.id == id }) { return .added(number: n) }
        return .shared(id)
    }

    public init(added: [StoreEntry] = [], favouriteIDs: [String] = [], defaultID: String? = nil) {
        self.added = added
        self.favouriteIDs = favouriteIDs
        self.defaultID = defaultID
    }

    public var isEmpty: Bool { added.isEmpty && favouriteIDs.isEmpty && defaultID == nil }
}
