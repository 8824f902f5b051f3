import GeoSpend

/// A user's store choices as the memory store keeps them (the file's `user_stores`,
/// `store_favourites` and `default_stores`): added stores by number, favourite ids and the
/// default id as chosen, resolved when read.
struct MemoryStoreChoices {
    /// By number (`mine-N`).
    var added: [Int64: StoreEntry] = [:]
    var favouriteIDs: Set<ExactText> = []
    var defaultID: String?

    var isEmpty: Bool { added.isEmpty && favouriteIDs.isEmpty && defaultID == nil }

    var rows: Int { added.count + favouriteIDs.count + (defaultID == nil ? 0 : 1) }

    /// As `users export` keeps them: the ids as chosen, whether or not they still resolve.
    var record: StoreChoiceRecord {
        StoreChoiceRecord(
            added: added.keys.sorted().map { added[$0]! }, favouriteIDs: favouriteIDs.map(\.text).sorted(by: byBytes), defaultID: defaultID)
    }
}

/// Per-user stores with the file's rules (Sources/GeoSpendSpatiaLite/StoreChoiceStorage.swift):
/// added stores numbered per user and never renumbered, seen by their user alone; a favourite
/// or the default must name a store the user can see when it is set.
extension MemoryStore: StoreChoiceStore {
    public func addStore(userID: String, _ fields: AddedStoreFields) async throws -> StoreEntry? {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard state.users.contains(ExactText(user)) else { return nil }
            let number = state.nextNumber(.addedStore, user: user)
            let entry = StoreEntry(
                store: Store(id: AddedStoreID.id(number), name: fields.name, kind: fields.kind, coordinate: fields.coordinate),
                region: fields.region, addedBy: user, createdAt: MemoryClock.now())
            state.storeChoices[ExactText(user), default: MemoryStoreChoices()].added[number] = entry
            return entry
        }
    }

    public func setFavouriteStore(userID: String, storeID: String, _ favourite: Bool) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            // Unmarking a chosen id needs no store: one that left the registry can still go.
            if !favourite, state.storeChoices[user]?.favouriteIDs.remove(ExactText(storeID)) != nil {
                state.dropEmptyChoices(user)
                return true
            }
            guard state.resolve(storeID, user: user.text) != nil else { return false }
            if favourite { state.storeChoices[user, default: MemoryStoreChoices()].favouriteIDs.insert(ExactText(storeID)) }
            return true
        }
    }

    public func setDefaultStore(userID: String, storeID: String?) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let storeID else {
                state.storeChoices[user]?.defaultID = nil
                state.dropEmptyChoices(user)
                return true
            }
            guard state.resolve(storeID, user: user.text) != nil else { return false }
            state.storeChoices[user, default: MemoryStoreChoices()].defaultID = storeID
            return true
        }
    }
}

extension MemoryState {
    /// The store `id` as `user` sees it: their own `mine-N`, else the registry's.
    func resolve(_ id: String, user: String) -> StoreEntry? {
        if let n = AddedStoreID.number(id), let own = storeChoices[ExactText(user)]?.added[n] { return own }
        return stores[ExactText(id)].map { StoreEntry(store: $0.store) }
    }

    mutating func dropEmptyChoices(_ user: ExactText) {
        if storeChoices[user]?.isEmpty == true { storeChoices[user] = nil }
    }
}

extension MemoryReader {
    func store(userID: String, id: String) throws -> StoreEntry? { state.resolve(id, user: Identity.normalized(userID)) }

    /// A favourite or default whose store no longer resolves is left out.
    func storeChoices(userID: String) throws -> StoreChoices {
        let user = Identity.normalized(userID)
        let record = (state.storeChoices[ExactText(user)] ?? MemoryStoreChoices()).record
        return StoreChoices(
            added: record.added, favourites: record.favouriteIDs.compactMap { state.resolve($0, user: user) },
            defaultStore: record.defaultID.flatMap { state.resolve($0, user: user) })
    }
}
