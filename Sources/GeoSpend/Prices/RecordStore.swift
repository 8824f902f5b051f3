/// Where a price record is, as stored (issue 38): a store of the shared registry (`store_id`) or
/// one of the record's own user's added stores (`user_store_number`, the N of `mine-N`). Two id
/// spaces, so no query over the registry can return a user's private place (docs/DOMAIN.md,
/// "A user's stores"); `id` is the one id a reader sees either way.
public enum RecordStore: Sendable, Hashable {
    case shared(String)
    case added(number: Int64)

    /// The registry's id, or `mine-N`.
    public var id: String {
        switch self {
        case .shared(let id): id
        case .added(let n): AddedStoreID.id(n)
        }
    }

    /// The `store_id` column's value.
    public var sharedID: String? {
        if case .shared(let id) = self { return id }
        return nil
    }

    /// The `user_store_number` column's value.
    public var addedNumber: Int64? {
        if case .added(let n) = self { return n }
        return nil
    }

    /// `storesWithPrices`' answer for one user: the registry's stores and their own added ones,
    /// by id, their own winning where an id is both (as `stores show` finds it).
    /// - Complexity: O(n log n).
    public static func merged(registry: [Store], own: [Store]) -> [Store] {
        let ownIDs = Set(own.map(\.id))
        return (registry.filter { !ownIDs.contains($0.id) } + own).sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
    }
}
