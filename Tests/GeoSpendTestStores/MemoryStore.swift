import Foundation
import GeoSpend

/// A store kept in memory, for tests only: a third implementation, beside the file and
/// PostgreSQL, of the storage seam (`ExpenseStore`) and of every aggregate (`ExpenseEditing`,
/// `CategoryEditing`, `PeriodStore`, `BudgetStore`, `TokenStore`, `PositionStore`,
/// `StoreChoiceStore`, `NotificationStore`, `PantryStore`, `PriceStore`, `ProductStore`,
/// `ReceiptStore`, `ShoppingListStore`, `RecurringStore`, `CommunityStore`, `UserSettingsStore`,
/// `UserDataStore`, `UserProfileStore`, in the files beside this one), which shows that
/// analytics, imports, exports and edits need nothing of SQL. Every contract suite
/// (StoreContractTests, EditingContractTests, PriceStoreContractTests, …) runs against it,
/// SpatiaLite and PostgreSQL alike, and each must give the same answers.
///
/// Simple rather than fast: every query is a brute-force scan with the project's own geodesy
/// (`Geodesic.distance`, `Ranking`) and filters (`ExpenseFilter.matches`), and the rules the
/// core holds (`ExpenseUpdateRules`, `BudgetRules`, `EditError`).
/// - A read scope works on a copy of the state taken when it starts (the state is value types,
///   so the copy is copy-on-write): one snapshot, whatever commits meanwhile.
/// - A write scope or an edit works on its own copy and swaps it in when it returns; a throw
///   drops the copy (all or nothing). They run one at a time, on one serial queue.
/// - Bodies run on dispatch queues, not on the caller's thread, as the seam asks: a read scope
///   may block while a write commits without starving Swift's cooperative threads.
/// - Order: expenses in insertion order (for every user and filter; SpatiaLite's rowid order is
///   the same for one user); stores by id (UTF-8 bytes, as SQLite's `BINARY`).
/// - Ids compare as UTF-8 bytes (`ExactText`), as SQLite's text keys do; category names as
///   SQLite's `NOCASE` (ASCII letters folded, `Identity.asciiLowercased`).
/// - Categories as the file keeps them: a new user gets the defaults, an expense's category is
///   the user's category of that name and kind (created on first sight by an import), and reads
///   give the stored spelling (`food` reads back as `Food`).
///
/// What it does not do: no persistence. Nothing of a deleted row stays in memory, so deletions
/// note no leftovers; a write raises its notification events in its own edit, as the file's
/// transaction does.
public final class MemoryStore: ExpenseStore, @unchecked Sendable {
    /// Guards `state` (read scopes copy it, write scopes and edits swap it).
    let lock = NSLock()
    var state = MemoryState()
    let writes = DispatchQueue(label: "MemoryStore.writes")

    public init() {}

    private static let reads = DispatchQueue(label: "MemoryStore.reads", attributes: .concurrent)

    public func read<T: Sendable>(_ body: @escaping @Sendable (any ExpenseReader) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { done in
            // A queue of our own, not `DispatchQueue.global()`: libdispatch runs the global queue
            // on about one thread per core, so a read that waits for a write (readScopeIsOneSnapshot,
            // which failed once under a busy `make test`) can hold one while other suites' work
            // holds the rest; a created queue overcommits and gets a thread of its own.
            Self.reads.async {
                let snapshot = self.lock.withLock { self.state }
                done.resume(with: Result { try body(MemoryReader(state: snapshot)) })
            }
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any ExpenseWriter) throws -> T) async throws -> T {
        try await edit { state in
            let writer = MemoryWriter(state: state)
            let result = try body(writer)
            // The write's events commit with its rows (the file's import scope): budget
            // crossings, and `import.finished` for each user it inserted expenses for.
            try writer.state.raiseBudgetEvents(writer.touched)
            _ = writer.state.raise(writer.touched.importEvents)
            state = writer.state
            return result
        }
    }

    /// Runs `body` on a copy of the state, one at a time with write scopes and other edits, and
    /// swaps the copy in when `body` returns (a throw drops it: all or nothing).
    func edit<T: Sendable>(_ body: @escaping @Sendable (inout MemoryState) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { done in
            writes.async {
                done.resume(with: Result {
                    var copy = self.lock.withLock { self.state }
                    let result = try body(&copy)
                    self.lock.withLock { self.state = copy }  // commit: only when body returned
                    return result
                })
            }
        }
    }
}

/// Everything a `MemoryStore` holds: plain values, so copying it is a snapshot.
struct MemoryState {
    struct Row {
        /// Its category, when it has one, spelled as the user's category is (`category(named:…)`).
        var expense: Expense
        var contentHash: Int64
        var remindAt: Timestamp?
        /// Set by `addExpense` and edits (`MemoryClock`); nil for a row an import wrote.
        var createdAt: String?
        var updatedAt: String?
        /// nil: `device` for a row with a position (`StoredExpense`).
        var positionSource: PositionSource?
        /// How sure geotagging was of an inferred position.
        var positionConfidence: Double?
        /// Whether geotagging linked the store (`unplace` unlinks it then).
        var storeInferred = false
        /// The user's period (`Period.id`) it is assigned to.
        var period: Int64?

        var stored: StoredExpense {
            StoredExpense(
                expense: expense, remindAt: remindAt, createdAt: createdAt, updatedAt: updatedAt, positionSource: positionSource,
                positionConfidence: positionConfidence)
        }
    }
    /// In insertion order (the order every read hands expenses out in).
    var expenses: [Row] = []
    /// Expense ids are unique per user (SpatiaLite v17): keyed by (user, id).
    struct ExpenseKey: Hashable {
        let user: ExactText
        let id: ExactText
        init(_ user: String, _ id: String) {
            self.user = ExactText(user)
            self.id = ExactText(id)
        }
    }
    var expenseIndex: [ExpenseKey: Int] = [:]
    var stores: [ExactText: (store: Store, contentHash: Int64)] = [:]
    var users: Set<ExactText> = []
    /// Per currency, the sum of every stored amount: kept within `Int64` as SpatiaLite's writer
    /// keeps it, so any total analytics compute is exact.
    var currencyTotals: [String: Int64] = [:]
    /// The bounding box of every geotagged expense (south, north, west, east), for the centre hint.
    var box: (Double, Double, Double, Double)?

    /// Categories by id (MemoryState+Categories.swift), and the id of each user's category by
    /// kind and folded name.
    var categories: [Int64: MemoryCategory] = [:]
    var categoryIDs: [MemoryCategory.Key: Int64] = [:]
    var lastCategoryID: Int64 = 0
    /// Periods, budgets and tokens by user; the last number issued per user and kind of
    /// record, so a deleted one's id is never given again (as the file's `*_numbers` tables).
    var periods: [ExactText: [MemoryPeriod]] = [:]
    var budgets: [ExactText: [Budget]] = [:]
    var tokens: [MemoryToken] = []
    var lastNumbers: [NumberKey: Int64] = [:]
    /// When each user was created (`YYYY-MM-DDTHH:MM:SSZ`), their settings (none: every
    /// default) and location history (MemoryStore+Positions.swift).
    var userCreated: [ExactText: String] = [:]
    var profiles: [ExactText: Profile] = [:]
    struct Profile {
        let name: String?
        let email: String?
    }
    var settings: [ExactText: UserSettings] = [:]
    var positions: [ExactText: [MemoryPositionKey: Position]] = [:]
    var visits: [ExactText: [MemoryVisitKey: Visit]] = [:]
    /// Each user's added stores, favourites and default (MemoryStore+StoreChoices.swift).
    var storeChoices: [ExactText: MemoryStoreChoices] = [:]
    /// The outbox, webhooks and notification settings (MemoryStore+Notifications.swift).
    var notifications = MemoryNotifications()
    /// Each user's pantry items, by id (MemoryStore+Pantry.swift).
    var pantry: [ExactText: [PantryItem]] = [:]
    /// Each user's recurring rules, by id (MemoryStore+Recurring.swift).
    var recurring: [ExactText: [RecurringRule]] = [:]
    /// The shared catalogue by id, and every user's price records in the order saved
    /// (MemoryStore+Prices.swift).
    var products: [Int64: Product] = [:]
    var priceRecords: [MemoryPriceRecord] = []
    /// Every user's receipts by sequence (MemoryStore+Receipts.swift), and each user's
    /// shopping lists by id (MemoryStore+ShoppingLists.swift).
    var receipts: [Receipt] = []
    var lists: [ExactText: [MemoryShoppingList]] = [:]
    /// Each user's tags and flags of products (MemoryStore+Products.swift).
    var productMarks: [ExactText: MemoryProductMarks] = [:]
    /// Members, feed entries and comments (MemoryStore+Community.swift).
    var community = MemoryCommunity()

    struct NumberKey: Hashable {
        enum Counter { case period, budget, token, addedStore, pantryItem, recurringRule, shoppingList }
        let counter: Counter
        let user: ExactText
    }

    /// The user's next number of `counter`, recorded as issued.
    mutating func nextNumber(_ counter: NumberKey.Counter, user: String) -> Int64 {
        let key = NumberKey(counter: counter, user: ExactText(user))
        let number = lastNumbers[key, default: 0] + 1
        lastNumbers[key] = number
        return number
    }

    /// Widens the box by a new position.
    mutating func extendBox(_ c: Coordinate) {
        let b = box ?? (c.latitude, c.latitude, c.longitude, c.longitude)
        box = (min(b.0, c.latitude), max(b.1, c.latitude), min(b.2, c.longitude), max(b.3, c.longitude))
    }

    /// The box anew after positions went or moved: none of them may still shape it (a deleted
    /// user's whereabouts in another user's map centre).
    mutating func recomputeBox() {
        box = nil
        for c in expenses.compactMap(\.expense.location?.coordinate) { extendBox(c) }
    }

    /// Rebuilds `expenseIndex` after rows left `expenses`.
    mutating func reindex() {
        expenseIndex = Dictionary(uniqueKeysWithValues: expenses.enumerated().map { (ExpenseKey($0.element.expense.userID, $0.element.expense.id), $0.offset) })
    }
}

/// The queries of one read scope, by brute force over one snapshot.
struct MemoryReader: ExpenseReader {
    let state: MemoryState

    /// The stored expenses matching `filter`, in insertion order.
    private func matching(_ filter: ExpenseFilter, geotaggedOnly: Bool) -> [Expense] {
        matchingRows(filter).map(\.expense).filter { !geotaggedOnly || $0.location != nil }
    }

    /// The stored rows matching `filter`, its period included (the period of each row's own
    /// user), in insertion order.
    func matchingRows(_ filter: ExpenseFilter) -> [MemoryState.Row] {
        state.expenses.filter { (filter.period == nil || $0.period == filter.period) && filter.matches($0.expense) }
    }

    private func storeHits(_ center: Coordinate, kind: String?, maxDistance: Double) -> [StoreHit] {
        state.stores.values.lazy.map(\.store).filter { kind == nil || $0.kind == kind }
            .map { StoreHit(store: $0, distanceMeters: Geodesic.distance(center, $0.coordinate)) }
            .filter { $0.distanceMeters <= maxDistance }
            .sorted(by: Ranking.byDistance)
    }

    func expenses(within radius: Distance, of center: Coordinate, filter: ExpenseFilter) throws -> [ExpenseHit] {
        matching(filter, geotaggedOnly: true)
            .map { ExpenseHit(expense: $0, distanceMeters: Geodesic.distance(center, $0.location!.coordinate)) }
            .filter { $0.distanceMeters <= radius.meters }
            .sorted(by: Ranking.byDistance)
    }

    func nearestStores(to center: Coordinate, limit: Int, maxDistance: Distance?, kind: String?) throws -> [StoreHit] {
        guard limit > 0 else { return [] }
        return Array(storeHits(center, kind: kind, maxDistance: maxDistance?.meters ?? .infinity).prefix(limit))
    }

    func stores(within radius: Distance, of center: Coordinate, kind: String?) throws -> [StoreHit] {
        storeHits(center, kind: kind, maxDistance: radius.meters)
    }


    func counts() throws -> StoreCounts {
        StoreCounts(
            users: state.users.count, expenses: state.expenses.count,
            geotaggedExpenses: state.expenses.count(where: { $0.expense.location != nil }), stores: state.stores.count)
    }

    func forEachSpendingPointBatch(_ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: ([SpendingPoint]) throws -> Void) throws {
        let points = matching(filter, geotaggedOnly: geotaggedOnly).map { e in
            SpendingPoint(
                id: e.id, userID: e.userID, storeID: e.storeID, coordinate: e.location?.coordinate, kind: e.kind,
                amountMinor: e.amount.minorUnits, currency: e.amount.currency, occurredMilliseconds: e.occurredAt.epochMilliseconds,
                utcOffsetMinutes: e.occurredAt.utcOffsetMinutes, category: e.category, merchant: filter.readsMerchant ? e.merchant : nil)
        }
        try Self.inBatches(points, body)
    }

    func forEachLocatedAmountBatch(_ filter: ExpenseFilter, withUsers: Bool, _ body: ([LocatedAmount]) throws -> Void) throws {
        let amounts = matching(filter, geotaggedOnly: true).map { e in
            LocatedAmount(
                latitude: e.location!.coordinate.latitude, longitude: e.location!.coordinate.longitude, amountMinor: e.amount.minorUnits,
                currencyKey: LocatedAmount.currencyKey(e.amount.currency), userKey: withUsers ? LocatedAmount.userKey(e.userID) : 0)
        }
        try Self.inBatches(amounts, body)
    }

    private static func inBatches<Row>(_ rows: [Row], _ body: ([Row]) throws -> Void) throws {
        for start in stride(from: 0, to: rows.count, by: ReadBatch.size) {
            try body(Array(rows[start..<min(start + ReadBatch.size, rows.count)]))
        }
    }

    /// The centre of the bounding box kept while writing: no scan.
    func geotaggedCenterHint() throws -> Coordinate? {
        state.box.map { Coordinate(uncheckedLatitude: ($0.0 + $0.1) / 2, longitude: ($0.2 + $0.3) / 2) }
    }

    /// The filter's user's positions not imported with their expenses, in its time window.
    func positionSources(_ filter: ExpenseFilter) throws -> [String: PositionSource] {
        guard let userID = filter.userID else { return [:] }
        let window = ExpenseFilter(userID: userID, from: filter.from, to: filter.to)
        var sources: [String: PositionSource] = [:]
        for row in state.expenses where window.matches(row.expense) {
            if let source = row.positionSource, source != .device { sources[row.expense.id] = source }
        }
        return sources
    }

    func stores(withIDs ids: Set<String>) throws -> [String: Store] {
        Dictionary(ids.compactMap { state.stores[ExactText($0)].map { ($0.store.id, $0.store) } }, uniquingKeysWith: { a, _ in a })
    }

    func timestamps(ofExpenses ids: Set<String>, userID: String) throws -> [String: Timestamp] {
        Dictionary(
            ids.compactMap { id in state.expenseIndex[MemoryState.ExpenseKey(userID, id)].map { (id, state.expenses[$0].expense.occurredAt) } },
            uniquingKeysWith: { a, _ in a })
    }

    func expensesWithoutStore(userID: String?) throws -> [UnsnappedExpense] {
        let found: [Expense] = state.expenses.map(\.expense)
            .filter { $0.storeID == nil && $0.location != nil && (userID == nil || ExactText($0.userID) == ExactText(userID!)) }
        // By id, then user (ids are unique per user), as bytes.
        let sorted = found.sorted { (a: Expense, b: Expense) -> Bool in
            ExactText(a.id) != ExactText(b.id) ? byBytes(a.id, b.id) : byBytes(a.userID, b.userID)
        }
        return sorted.map { e in
            UnsnappedExpense(id: e.id, userID: e.userID, coordinate: e.location!.coordinate, accuracyMeters: e.location!.accuracyMeters, merchant: e.merchant)
        }
    }

    func allStores(kind: String?) throws -> [Store] {
        state.stores.values.map(\.store).filter { kind == nil || $0.kind == kind }.sorted { byBytes($0.id, $1.id) }
    }
}

/// What exists to be named: users, their categories (defaults included, as the file lists
/// them) and store kinds.
extension MemoryReader {
    func hasUser(_ id: String) throws -> Bool { state.users.contains(ExactText(id)) }

    func userIDs() throws -> [String] { state.users.map(\.text).sorted(by: byBytes) }

    /// Every category (of the user, or of every user), by kind, name and user (bytes), each
    /// with its expenses.
    func categoryCounts(userID: String?) throws -> [CategoryCount] {
        state.categories.values.filter { userID == nil || $0.user == ExactText(userID!) }
            .sorted { a, b in
                if a.kind != b.kind { return byBytes(a.kind.rawValue, b.kind.rawValue) }
                if ExactText(a.name) != ExactText(b.name) { return byBytes(a.name, b.name) }
                return byBytes(a.user.text, b.user.text)
            }
            .map { CategoryCount(name: $0.name, kind: $0.kind, expenses: state.expenses(in: $0).count) }
    }

    func storeKindCounts() throws -> [StoreKindCount] {
        Dictionary(grouping: state.stores.values.map(\.store.kind), by: { $0 }).map { StoreKindCount(kind: $0.key, stores: $0.value.count) }
            .sorted { a, b in
                if (a.kind == nil) != (b.kind == nil) { return b.kind == nil }
                if a.stores != b.stores { return a.stores > b.stores }
                return byBytes(a.kind ?? "", b.kind ?? "")
            }
    }
}

/// Ids in SQLite's `BINARY` order: by UTF-8 bytes.
func byBytes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

/// The writes of one write scope, on the scope's own copy of the state.
final class MemoryWriter: ExpenseWriter {
    var state: MemoryState
    /// The users and days the expenses written touched (their budget events).
    var touched = TouchedDays()

    func periods(ofUser userID: String) throws -> [Period] { state.periods(of: userID) }

    func assignPeriods(_ links: [PeriodLink]) throws {
        for link in links {
            guard let at = state.expenseIndex[MemoryState.ExpenseKey(link.userID, link.expenseID)] else { continue }
            state.expenses[at].period = link.period
        }
    }

    init(state: MemoryState) { self.state = state }

    func insert(_ stores: [HashedRow<Store>]) throws -> [RowOutcome] {
        stores.map { row in
            let id = ExactText(row.record.id)
            if let old = state.stores[id] { return same(old.contentHash, row.contentHash, id: row.record.id) }
            state.stores[id] = (row.record, row.contentHash)
            return .inserted
        }
    }

    func insert(_ expenses: [HashedRow<Expense>], policy: InsertPolicy) throws -> [RowOutcome] {
        expenses.map { row in
            var e = row.record
            if let store = e.storeID, state.stores[ExactText(store)] == nil {
                return .rejected(RowRejection(column: "store_id", reason: "\"\(store)\" is not a known store; import the stores first"))
            }
            if let at = state.expenseIndex[MemoryState.ExpenseKey(e.userID, e.id)] {
                let stored = state.expenses[at]
                if stored.contentHash == row.contentHash { return .unchanged }
                guard policy.updatesChanged else { return .rejected(.changedContent(id: e.id)) }
                return update(at, with: row)
            }
            if let check = policy.duplicates {
                let day = DuplicateCheck.Day(e)
                if check.needs(day) {
                    check.add(day, stored: state.expenses.filter { $0.expense.userID == e.userID && $0.expense.occurredAt.localDate == day.localDate }.map {
                        DuplicateCheck.Stored(id: $0.expense.id, kind: $0.expense.kind, amount: $0.expense.amount, text: $0.expense.merchant ?? $0.expense.title)
                    })
                }
                if let twin = check.take(e) { return .duplicate(of: twin) }
            }
            let code = e.amount.currency.code
            let (total, overflow) = state.currencyTotals[code, default: 0].addingReportingOverflow(e.amount.minorUnits)
            if overflow {
                return .rejected(RowRejection.totalOverflow(currency: code))
            }
            state.currencyTotals[code] = total
            // The user with the defaults on first sight, the category found or created.
            state.ensureUser(e.userID)
            e.category = e.category.map { state.category(named: $0, kind: Category.kind(for: e.kind), user: e.userID).name }
            state.expenseIndex[MemoryState.ExpenseKey(e.userID, e.id)] = state.expenses.count
            state.expenses.append(MemoryState.Row(expense: e, contentHash: row.contentHash))
            touched.addInserted(e)
            if let c = e.location?.coordinate {
                state.extendBox(c)
            }
            return .inserted
        }
    }

    /// The stored row rewritten with the row's fields; a position or store it does not give stays.
    private func update(_ at: Int, with row: HashedRow<Expense>) -> RowOutcome {
        let old = state.expenses[at].expense
        var new = row.record
        if new.location == nil { new.location = old.location }
        if new.storeID == nil { new.storeID = old.storeID }
        var totals = state.currencyTotals
        totals[old.amount.currency.code, default: 0] -= old.amount.minorUnits
        let code = new.amount.currency.code
        let (total, overflow) = totals[code, default: 0].addingReportingOverflow(new.amount.minorUnits)
        if overflow {
            return .rejected(RowRejection.totalOverflow(currency: code))
        }
        totals[code] = total
        state.currencyTotals = totals
        new.category = new.category.map { state.category(named: $0, kind: Category.kind(for: new.kind), user: new.userID).name }
        state.expenses[at].expense = new
        state.expenses[at].contentHash = row.contentHash
        touched.add(new)
        if new.location != old.location { state.recomputeBox() }
        return .updated
    }

    /// Links expenses that have no store yet. An unknown store throws, as SpatiaLite's foreign
    /// key does.
    func assignStores(_ links: [StoreLink]) throws -> [Bool] {
        try links.map { link in
            guard state.stores[ExactText(link.storeID)] != nil else {
                throw RowRejection(column: "store_id", reason: "\"\(link.storeID)\" is not a known store")
            }
            guard let at = state.expenseIndex[MemoryState.ExpenseKey(link.userID, link.expenseID)], state.expenses[at].expense.storeID == nil else { return false }
            state.expenses[at].expense.storeID = link.storeID
            return true
        }
    }

    /// The outcome for a store id already stored: the same content is a no-op, other content refused.
    private func same(_ stored: Int64, _ given: Int64, id: String) -> RowOutcome {
        stored == given
            ? .unchanged
            : .rejected(RowRejection(
                column: "id", reason: "\"\(id)\" is already stored with different content; ids are stable, so give changed rows new ids"))
    }
}
