/// The storage seam: everything analytics, imports and the commands need from a database,
/// whatever the database is. The SpatiaLite file (`GeoSpendSpatiaLite`) is the embedded default;
/// a PostGIS store or an in-memory one implements the same two scopes without touching the core
/// (docs/ARCHITECTURE.md § The storage seam).
///
/// Work happens in scopes, as with GRDB's `read`/`write` pairs:
/// - a **read scope** is one snapshot: every call `body` makes sees the same committed state, so
///   an import committing meanwhile is wholly in or wholly out of one analytic's several reads;
/// - a **write scope** is one transaction: committed when `body` returns, rolled back when it
///   throws. Imports are all-or-nothing through this.
///
/// The scopes are async at the edge and synchronous inside: `body` runs on the store's own
/// threads (a connection's queue), so an async caller — the server — waits without holding one
/// of the few threads the async runtime runs on, while the store runs its hot loops as plain
/// loops over rows.
///
/// ```swift
/// let store = try SpatiaLiteStore(path: "geospend.sqlite")
/// let cafes = try await store.read { reader in
///     try reader.nearestStores(to: Coordinate(latitude: 60.1710, longitude: 24.9414), limit: 5, maxDistance: nil, kind: "amenity:cafe")
/// }
/// ```
public protocol ExpenseStore: Sendable {
    /// Runs `body` on one snapshot of the store.
    func read<T: Sendable>(_ body: @escaping @Sendable (any ExpenseReader) throws -> T) async throws -> T

    /// `read` for small reads made often (the service's `near` and `nearest-stores`): where the
    /// store can, run on the calling thread, without the hand-off to the store's own threads,
    /// which costs more than such a read. A store that cannot, or a read that turns out large,
    /// runs as `read` (the default).
    func quickRead<T: Sendable>(_ body: @escaping @Sendable (any ExpenseReader) throws -> T) async throws -> T

    /// Runs `body` in one write transaction.
    func write<T: Sendable>(_ body: @escaping @Sendable (any ExpenseWriter) throws -> T) async throws -> T

    /// `write` for bulk work beside readers (the service's imports): where the store does the
    /// work in this process, at a CPU priority below the readers', so that on a busy machine
    /// they run first. A store whose work runs in a database server writes as `write` does
    /// (the default).
    func writeInBackground<T: Sendable>(_ body: @escaping @Sendable (any ExpenseWriter) throws -> T) async throws -> T
}

extension ExpenseStore {
    public func quickRead<T: Sendable>(_ body: @escaping @Sendable (any ExpenseReader) throws -> T) async throws -> T {
        try await read(body)
    }

    public func writeInBackground<T: Sendable>(_ body: @escaping @Sendable (any ExpenseWriter) throws -> T) async throws -> T {
        try await write(body)
    }
}

/// The queries of one read scope (`ExpenseStore.read`). Rows that can be many come in batches.
/// The scope hands out stored expenses (one by id, pages, search, reminders), categories,
/// tokens, periods, store choices, budgets, prices, receipts, lists, product marks, pantry
/// items, settings, location history, recurring rules, notifications, the community and a
/// user's whole data of its snapshot too, so that one request that needs them is one snapshot
/// (docs/ARCHITECTURE.md § The storage seam).
public protocol ExpenseReader:
    StoredExpenseReader, CategoryReader, TokenReader, PeriodReader, StoreChoiceReader, BudgetReader, PriceReader,
    ReceiptReader, ShoppingListReader, ProductMarkReader, PantryReader, UserSettingsReader, PositionReader,
    RecurringReader, NotificationReader, CommunityReader, UserDataReader
{
    /// The user's expenses within `radius` (geodesic) of `center`, nearest first, ties by id.
    func expenses(within radius: Distance, of center: Coordinate, filter: ExpenseFilter) throws -> [ExpenseHit]

    /// The `limit` stores nearest to `center` (geodesic), ties broken by id.
    func nearestStores(to center: Coordinate, limit: Int, maxDistance: Distance?, kind: String?) throws -> [StoreHit]

    /// Every store within `radius` (geodesic) of `center`, optionally of one kind, nearest first,
    /// ties by id: what reports and maps ask when they want "the stores around here", however many.
    func stores(within radius: Distance, of center: Coordinate, kind: String?) throws -> [StoreHit]

    /// Row counts, for summaries and `geospend info`.
    func counts() throws -> StoreCounts

    /// Hands the expenses matching `filter` (only geotagged ones when `geotaggedOnly`) to `body`
    /// in batches, in one order for every call: memory stays flat for any number of rows. The
    /// order is the store's, but one user's rows must come in the same order whatever other
    /// users the store holds: exports list them in it, and must not reveal other users
    /// (IsolationTests).
    func forEachSpendingPointBatch(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: ([SpendingPoint]) throws -> Void) throws

    /// The expenses matching `filter` as columns: the read behind insights. Their order is the
    /// store's and may differ from `forEachSpendingPointBatch`'s, but one user's rows come in
    /// the same order whatever other users the store holds; insights do not depend on the order
    /// (ties by id, clusters independent of input order). A store without a faster way can leave
    /// it to the default, which builds the columns from the points.
    /// - Complexity: O(n) for the n matching rows.
    func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns

    /// Hands position, amount, currency and (when `withUsers`) a user key of every geotagged
    /// expense matching `filter` to `body` in batches: all that grids and density surfaces
    /// read, so a store can serve it from a narrow index. Without `withUsers` the user key is 0.
    func forEachLocatedAmountBatch(
        _ filter: ExpenseFilter, withUsers: Bool, _ body: ([LocatedAmount]) throws -> Void) throws

    /// A guess, without a scan, at the centre of every user's geotagged expenses (e.g. from a
    /// spatial index's root); nil when the store cannot tell cheaply. All-users map layers
    /// place their grid with it before their one pass and check it afterwards.
    func geotaggedCenterHint() throws -> Coordinate?

    /// Hands the rows of one level of the map rollups (`MapRollup`) for `filter`'s user (every
    /// user when nil), kinds and currency to `body`, and returns true; returns false, calling
    /// nothing, when the store keeps no rollups (the default: PostGIS and the memory store
    /// compute layers from the expenses). Callers check `MapRollup.answers` first: the other
    /// filters are not applied here.
    func forEachMapRollup(_ level: MapRollup.Level, _ filter: ExpenseFilter, _ body: (MapRollup.Row) throws -> Void) throws -> Bool

    /// Hands the cells' rollups (`MapRollup.CellRow`: every user summed) of one level for
    /// `filter`'s kinds and currency to `body`, listing the users of each row that has fewer than
    /// `listingUsersBelow`, and returns true; false, calling nothing, when the store keeps none
    /// (the default). For all-users layers: `filter.userID` is not applied.
    func forEachMapCellRollup(
        _ level: MapRollup.Level, _ filter: ExpenseFilter, listingUsersBelow minUsers: Int, _ body: (MapRollup.CellRow) throws -> Void
    ) throws -> Bool

    /// The stores with these ids (unknown ids are left out).
    func stores(withIDs ids: Set<String>) throws -> [String: Store]

    /// What insights show of each store: its display name and position, in the order of `ids`,
    /// nil for an unknown id. A store may read less for it than `stores(withIDs:)` (four
    /// columns, no dictionary: the full stores were a quarter of a 100-expense user's insights).
    func storeLabels(_ ids: [String]) throws -> [(name: String, coordinate: Coordinate)?]

    /// The full occurred-at timestamps of these expenses of user `userID` (first/last visits keep
    /// their offset). Ids are unique per user: another user's expense of the same id is not read.
    func timestamps(ofExpenses ids: Set<String>, userID: String) throws -> [String: Timestamp]

    /// Where the positions of the filter's user's expenses came from, for those not imported
    /// with them (`PositionSource` other than `device`), by expense id: one user's points layer
    /// shows it (`position_source`), so a map can show or hide inferred positions. At least the
    /// expenses in the filter's time window (a store may answer a superset; only the user and
    /// the window narrow it: the map is looked up by id); none when the filter has no user.
    func positionSources(_ filter: ExpenseFilter) throws -> [String: PositionSource]

    /// Geotagged expenses that have no store yet (of one user, or all), in id order.
    func expensesWithoutStore(userID: String?) throws -> [UnsnappedExpense]

    /// Every store, optionally of one kind, in id order.
    func allStores(kind: String?) throws -> [Store]

    // What exists to be named on the command line: the CLI checks names against these, so a
    // typo is an error with a suggestion rather than an empty result that reads like "no
    // spending".

    /// Whether `id` is a stored user.
    func hasUser(_ id: String) throws -> Bool

    /// Every user id, by bytes (for suggestions only: no counts, so it stays cheap with many users).
    func userIDs() throws -> [String]

    /// The user's categories (every user's with nil), expense and income, by kind then name
    /// (bytes), with their expense counts.
    func categoryCounts(userID: String?) throws -> [CategoryCount]

    /// Store kinds with their store counts, most stores first, then by kind (bytes); stores
    /// without a kind last.
    func storeKindCounts() throws -> [StoreKindCount]
}

extension ExpenseReader {
    /// No rollups: layers scan the expenses.
    public func forEachMapRollup(_ level: MapRollup.Level, _ filter: ExpenseFilter, _ body: (MapRollup.Row) throws -> Void) throws -> Bool {
        false
    }

    public func forEachMapCellRollup(
        _ level: MapRollup.Level, _ filter: ExpenseFilter, listingUsersBelow minUsers: Int, _ body: (MapRollup.CellRow) throws -> Void
    ) throws -> Bool {
        false
    }

    /// `forEachSpendingPointBatch`, one point at a time.
    public func forEachSpendingPoint(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: (SpendingPoint) throws -> Void
    ) throws {
        try forEachSpendingPointBatch(filter, geotaggedOnly: geotaggedOnly) { batch in
            for p in batch { try body(p) }
        }
    }

    /// Every expense matching `filter` in its lean analytics form, in the order of
    /// `forEachSpendingPointBatch`.
    public func spendingPoints(_ filter: ExpenseFilter) throws -> [SpendingPoint] {
        var points: [SpendingPoint] = []
        try forEachSpendingPointBatch(filter, geotaggedOnly: false) { points += $0 }
        return points
    }

    public func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns {
        SpendingColumns(try spendingPoints(filter))
    }

    public func storeLabels(_ ids: [String]) throws -> [(name: String, coordinate: Coordinate)?] {
        let found = try stores(withIDs: Set(ids))
        return ids.map { id in found[id].map { ($0.displayName, $0.coordinate) } }
    }

    /// `forEachLocatedAmountBatch`, one row at a time.
    @inline(__always)
    public func forEachLocatedAmount(
        _ filter: ExpenseFilter, withUsers: Bool, _ body: (LocatedAmount) throws -> Void
    ) throws {
        try forEachLocatedAmountBatch(filter, withUsers: withUsers) { batch in
            for p in batch { try body(p) }
        }
    }

    /// Per currency, the geotagged expenses matching `filter`: count, total, largest amount and
    /// bounding box, most expenses first; one pass over the located amounts (aggregated here
    /// rather than with SQL's GROUP BY, which sorted every row through a temporary B-tree: 90 ms
    /// per 100k rows against ~25 ms for the pass). Point layers size themselves with it.
    public func geotaggedExtent(_ filter: ExpenseFilter) throws -> [GeotaggedExtent] {
        var sums = PerCurrency { ExtentAccumulator() }
        try forEachLocatedAmountBatch(filter, withUsers: false) { batch in
            for p in batch {
                sums.values[sums.slot(p.currencyKey)].add(latitude: p.latitude, longitude: p.longitude, amountMinor: p.amountMinor)
            }
        }
        return try zip(sums.keys, sums.values).map { try $1.extent(currency: LocatedAmount.currency(key: $0)) }
            .sorted { ($1.count, $0.currency.code) < ($0.count, $1.currency.code) }
    }
}

/// How many rows a store hands over per batch when it has no better size of its own.
public enum ReadBatch {
    public static let size = 4096
}
