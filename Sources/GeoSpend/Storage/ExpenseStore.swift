/// The storage seam: everything analytics and import need from a database. The SpatiaLite
/// store (`GeoSpendSpatiaLite`) is the embedded default; a PostGIS store can implement the same
/// protocol without touching the core.
public protocol ExpenseStore: Sendable {
    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): committed when `body` returns,
    /// rolled back when it throws. Imports are all-or-nothing through this.
    func write<T>(_ body: (any BulkWriter) throws -> T) throws -> T

    /// The user's expenses within `radius` (geodesic) of `center`, nearest first, ties by id.
    func expenses(within radius: Distance, of center: Coordinate, filter: ExpenseFilter) throws -> [ExpenseHit]

    /// The `limit` stores nearest to `center` (geodesic), ties broken by id.
    func nearestStores(to center: Coordinate, limit: Int, maxDistance: Distance?, kind: String?) throws -> [StoreHit]

    /// Row counts, for summaries and `geospend info`.
    func counts() throws -> StoreCounts

    /// Every expense matching `filter` in its lean analytics form, in the order of
    /// `forEachSpendingPoint`.
    /// - Complexity: O(n) for the n matching rows.
    func spendingPoints(_ filter: ExpenseFilter) throws -> [SpendingPoint]

    /// Streams the expenses matching `filter` (only geotagged ones when `geotaggedOnly`) to
    /// `body` one at a time; memory stays flat for any number of rows. The order is the store's,
    /// but one user's rows must come in the same order whatever other users the store holds:
    /// exports list them in it, and must not reveal other users (IsolationTests).
    func forEachSpendingPoint(_ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: (SpendingPoint) throws -> Void) throws

    /// The expenses matching `filter` as columns, in the order of `forEachSpendingPoint`: the
    /// read behind insights. A store without a faster way can leave it to the default, which
    /// builds the columns from `spendingPoints`.
    /// - Complexity: O(n) for the n matching rows.
    func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns

    /// Streams position, amount, currency and (when `withUsers`) a user key of every geotagged
    /// expense matching `filter`: all that grids and density surfaces read, so a store can serve
    /// it from a narrow index. Without `withUsers` the user key is 0 and the id is not read.
    func forEachLocatedAmount(_ filter: ExpenseFilter, withUsers: Bool, _ body: (LocatedAmount) throws -> Void) throws

    /// A guess, without a scan, at the centre of every user's geotagged expenses (e.g. from a
    /// spatial index's root box); nil when the store cannot tell cheaply. All-users map layers
    /// place their grid with it before their one pass and check it afterwards.
    func geotaggedCenterHint() throws -> Coordinate?

    /// The stores with these ids (unknown ids are left out).
    func stores(withIDs ids: Set<String>) throws -> [String: Store]

    /// The full occurred-at timestamps of these expenses (first/last visits keep their offset).
    func timestamps(ofExpenses ids: Set<String>) throws -> [String: Timestamp]

    /// Geotagged expenses that have no store yet (of one user, or all), in id order.
    func expensesWithoutStore(userID: String?) throws -> [UnsnappedExpense]

    /// Every store, optionally of one kind, in id order.
    func allStores(kind: String?) throws -> [Store]
}

extension ExpenseStore {
    /// Per currency, the geotagged expenses matching `filter`: count, total, largest amount and
    /// bounding box, most expenses first; one pass of `forEachLocatedAmount` (aggregated here
    /// rather than with SQL's GROUP BY, which sorted every row through a temporary B-tree: 90 ms
    /// per 100k rows against ~25 ms for the pass). Point layers size themselves with it.
    public func geotaggedExtent(_ filter: ExpenseFilter) throws -> [GeotaggedExtent] {
        var sums = PerCurrency { ExtentAccumulator() }
        try forEachLocatedAmount(filter, withUsers: false) { p in
            sums.values[sums.slot(p.currencyKey)].add(latitude: p.latitude, longitude: p.longitude, amountMinor: p.amountMinor)
        }
        return try zip(sums.keys, sums.values).map { try $1.extent(currency: LocatedAmount.currency(key: $0)) }
            .sorted { ($1.count, $0.currency.code) < ($0.count, $1.currency.code) }
    }
}

extension ExpenseStore {
    public func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns {
        SpendingColumns(try spendingPoints(filter))
    }

    /// `forEachSpendingPoint` with the rows read and decoded on a second thread, handed over in
    /// batches through a bounded queue: the calling thread works on rows while the next ones are
    /// read. Memory stays flat; the order is the store's.
    func forEachSpendingPointReadAhead(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: (SpendingPoint) throws -> Void
    ) throws {
        let pipeline = ProducerPipeline<SpendingPoint>(batchSize: 2048)
        pipeline.start { emit in
            try self.forEachSpendingPoint(filter, geotaggedOnly: geotaggedOnly) { try emit($0) }
            return 0
        }
        do {
            while let batch = pipeline.next() {
                for p in batch { try body(p) }
            }
            _ = try pipeline.finish()
        } catch {
            pipeline.cancel()
            throw error
        }
    }
}

/// A geotagged expense that no store has been assigned to: what snapping needs.
public struct UnsnappedExpense: Sendable, Hashable {
    public let id: String
    public let coordinate: Coordinate
    public let accuracyMeters: Double?
    public let merchant: String?

    public init(id: String, coordinate: Coordinate, accuracyMeters: Double?, merchant: String?) {
        self.id = id
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.merchant = merchant
    }
}

/// One expense as analytics see it: what aggregation needs, and the merchant text points layers
/// show (the only free text; title and notes are never read here).
public struct SpendingPoint: Sendable, Hashable {
    public let id: String
    public let userID: String
    public let storeID: String?
    public let coordinate: Coordinate?
    public let kind: ExpenseKind
    public let amountMinor: Int64
    public let currency: Currency
    /// The instant, milliseconds since 1970 UTC.
    public let occurredMilliseconds: Int64
    /// The recorded UTC offset in minutes; nil for a bare date (no time of day).
    public let utcOffsetMinutes: Int?
    public let category: String?
    /// The merchant as imported (`merchant`), whether or not a store was assigned.
    public let merchant: String?

    public init(
        id: String, userID: String, storeID: String?, coordinate: Coordinate?, kind: ExpenseKind, amountMinor: Int64,
        currency: Currency, occurredMilliseconds: Int64, utcOffsetMinutes: Int?, category: String?, merchant: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.storeID = storeID
        self.coordinate = coordinate
        self.kind = kind
        self.amountMinor = amountMinor
        self.currency = currency
        self.occurredMilliseconds = occurredMilliseconds
        self.utcOffsetMinutes = utcOffsetMinutes
        self.category = category
        self.merchant = merchant
    }

    /// Orders points by instant, ties by id: "first" and "last" visits are reproducible.
    public static func chronological(_ a: SpendingPoint, _ b: SpendingPoint) -> Bool {
        (a.occurredMilliseconds, a.id) < (b.occurredMilliseconds, b.id)
    }

    /// The local calendar day, `YYYY-MM-DD`, in the recorded offset. Made from the instant when
    /// asked for, not read and kept per row: analytics mostly need `localDayNumber`.
    public var localDate: String { Timestamp(localDay: localDayNumber).localDate }

    /// The local calendar day as days since 1970-01-01, from the instant and its offset (a bare
    /// date's instant is its midnight read as UTC, as `Timestamp` parses it): no text to parse.
    public var localDayNumber: Int64 {
        Timestamp.localDayNumber(epochMilliseconds: occurredMilliseconds, utcOffsetMinutes: utcOffsetMinutes)
    }

    /// Local weekday (0 = Monday … 6 = Sunday) and hour (0–23); nil for a bare date.
    public var localWeekdayHour: (weekday: Int, hour: Int)? {
        guard let offset = utcOffsetMinutes else { return nil }
        let (days, millisecond) = Timestamp.localDayAndTime(epochMilliseconds: occurredMilliseconds, utcOffsetMinutes: offset)
        let hour = Int(millisecond / 3_600_000)
        let weekday = Int(((days % 7) + 7 + 3) % 7)  // 1970-01-01 was a Thursday (3)
        return (weekday, hour)
    }

    /// The lean form of a full expense (tests and other stores build points this way).
    public init(_ e: Expense) {
        self.init(
            id: e.id, userID: e.userID, storeID: e.storeID, coordinate: e.location?.coordinate, kind: e.kind,
            amountMinor: e.amount.minorUnits, currency: e.amount.currency, occurredMilliseconds: e.occurredAt.epochMilliseconds,
            utcOffsetMinutes: e.occurredAt.utcOffsetMinutes, category: e.category)
    }
}

/// A geotagged expense as grids see it.
public struct LocatedAmount: Sendable, Hashable {
    public let latitude: Double
    public let longitude: Double
    public let amountMinor: Int64
    /// The currency code's three ASCII bytes packed (`currencyKey(_:)`): no string per row.
    public let currencyKey: UInt32
    /// A 64-bit FNV-1a hash of the user id (`userKey(_:)`): distinct-user counts without a
    /// string per row.
    public let userKey: UInt64

    public init(latitude: Double, longitude: Double, amountMinor: Int64, currencyKey: UInt32, userKey: UInt64) {
        self.latitude = latitude
        self.longitude = longitude
        self.amountMinor = amountMinor
        self.currencyKey = currencyKey
        self.userKey = userKey
    }

    /// The key of a user id, as stores compute it from the id's UTF-8 bytes.
    public static func userKey(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = FNV1a()
        h.add(bytes: bytes)
        return h.value
    }

    /// The key of a currency code's UTF-8 bytes (0 for anything but three bytes).
    @inline(__always)
    public static func currencyKey(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        bytes.count == 3 ? UInt32(bytes[0]) << 16 | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) : 0
    }

    /// The currency a key stands for.
    public static func currency(key: UInt32) throws -> Currency {
        let bytes = [UInt8(truncatingIfNeeded: key >> 16), UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key)]
        return try Currency(code: String(decoding: bytes, as: UTF8.self))
    }
}

/// One value per currency met in a pass over `LocatedAmount`s (usually a single currency): the
/// last currency's slot is remembered, so a row costs one comparison in the common case.
public struct PerCurrency<Value> {
    public private(set) var keys: [UInt32] = []
    public var values: [Value] = []
    private var last = -1
    private let make: @Sendable () -> Value

    public init(_ make: @escaping @Sendable () -> Value) { self.make = make }

    /// The slot of `key` in `values`, created on first sight.
    @inline(__always)
    public mutating func slot(_ key: UInt32) -> Int {
        if last >= 0 && keys[last] == key { return last }
        if let k = keys.firstIndex(of: key) { last = k; return k }
        keys.append(key)
        values.append(make())
        last = keys.count - 1
        return last
    }
}

extension PerCurrency: Sendable where Value: Sendable {}

/// What `ExpenseStore.geotaggedExtent` reports for one currency.
public struct GeotaggedExtent: Sendable, Hashable {
    public let currency: Currency
    public let count: Int
    public let totalMinor: Int64
    public let maxMinor: Int64
    public let south: Double, north: Double
    /// Longitudes as stored, and shifted into [0, 360) (the narrower of the two spans is the
    /// real one when the points straddle ±180°).
    public let west: Double, east: Double, west360: Double, east360: Double

    public init(
        currency: Currency, count: Int, totalMinor: Int64, maxMinor: Int64, south: Double, north: Double,
        west: Double, east: Double, west360: Double, east360: Double
    ) {
        self.currency = currency
        self.count = count
        self.totalMinor = totalMinor
        self.maxMinor = maxMinor
        self.south = south
        self.north = north
        self.west = west
        self.east = east
        self.west360 = west360
        self.east360 = east360
    }

    /// The box's centre, taking the narrower longitude span (so data around ±180° centres there).
    public var center: Coordinate {
        let lat = (south + north) / 2
        if east360 - west360 < east - west {
            var lon = (west360 + east360) / 2
            if lon > 180 { lon -= 360 }
            return Coordinate(uncheckedLatitude: lat, longitude: lon)
        }
        return Coordinate(uncheckedLatitude: lat, longitude: (west + east) / 2)
    }
}

/// Builds a `GeotaggedExtent` point by point; stores and map layers share it.
public struct ExtentAccumulator: Sendable {
    public private(set) var count = 0
    private var total: Int64 = 0, largest: Int64 = 0
    private var south = Double.infinity, north = -Double.infinity, west = Double.infinity, east = -Double.infinity
    private var west360 = Double.infinity, east360 = -Double.infinity

    public init() {}

    @inline(__always)
    public mutating func add(latitude: Double, longitude: Double, amountMinor: Int64) {
        let lon360 = longitude < 0 ? longitude + 360 : longitude
        count += 1
        total += amountMinor
        largest = max(largest, amountMinor)
        south = min(south, latitude); north = max(north, latitude)
        west = min(west, longitude); east = max(east, longitude)
        west360 = min(west360, lon360); east360 = max(east360, lon360)
    }

    public func extent(currency: Currency) -> GeotaggedExtent {
        GeotaggedExtent(
            currency: currency, count: count, totalMinor: total, maxMinor: largest, south: south, north: north,
            west: west, east: east, west360: west360, east360: east360)
    }
}

/// Inserts inside one `ExpenseStore.write` transaction.
public protocol BulkWriter {
    /// Inserts a store, or recognises an identical one already there.
    /// - Parameter contentHash: `store.contentHash` (see `insert(_:contentHash:)` for expenses).
    /// - Throws: `RowRejection` when the id exists with other content.
    func insert(_ store: Store, contentHash: Int64) throws -> InsertOutcome

    /// Inserts an expense (creating its user with default categories, and its category, on
    /// first sight), or recognises an identical one already there.
    /// - Parameter contentHash: `expense.contentHash`, passed in so the importer can compute it
    ///   on its parsing thread instead of the writing one.
    /// - Throws: `RowRejection` when the id exists with other content or `store_id` is unknown.
    func insert(_ expense: Expense, contentHash: Int64) throws -> InsertOutcome

    /// Links an expense to a store if it has none yet.
    /// - Returns: whether the expense changed (false when it already had a store).
    func assignStore(_ storeID: String, toExpense expenseID: String) throws -> Bool
}

extension BulkWriter {
    /// Inserts a store (see `insert(_:contentHash:)`).
    public func insert(_ store: Store) throws -> InsertOutcome {
        try insert(store, contentHash: store.contentHash)
    }

    /// Inserts an expense (see `insert(_:contentHash:)`).
    public func insert(_ expense: Expense) throws -> InsertOutcome {
        try insert(expense, contentHash: expense.contentHash)
    }
}

public enum InsertOutcome: Sendable, Equatable {
    case inserted
    /// The same id with the same content was already stored: nothing changed.
    case unchanged
}

/// A row the store refuses, with the column at fault; the importer adds file and line.
public struct RowRejection: Error, Sendable, Equatable {
    public let column: String
    public let reason: String
    public init(column: String, reason: String) {
        self.column = column
        self.reason = reason
    }
}

/// Filters shared by the queries scoped to one user. Ids and names are kept in NFC
/// (`Identity`), as the importer stores them: `--user` typed in another normal form finds the
/// same user.
public struct ExpenseFilter: Sendable, Hashable {
    /// The user whose expenses are searched; nil only for cross-user tools (benchmarks, reports).
    public var userID: String? { didSet { userID = userID.map(Identity.normalized) } }
    /// Lower bound, inclusive. A bare date compares with the expense's local calendar day
    /// (`2026-03-01` starts at local midnight wherever the expense happened); a date-time
    /// compares instants.
    public var from: Timestamp?
    /// Upper bound. A bare date is inclusive of that local day (`--to 2026-03-31` keeps all of
    /// March 31st); a date-time is exclusive.
    public var to: Timestamp?
    public var kinds: Set<ExpenseKind>
    /// Category names, compared case-insensitively for ASCII letters (SQLite's `NOCASE`); empty means all.
    public var categories: Set<String> { didSet { categories = Set(categories.map(Identity.normalized)) } }
    /// Only expenses linked to these stores; empty means all.
    public var storeIDs: Set<String> { didSet { storeIDs = Set(storeIDs.map(Identity.normalized)) } }
    /// Only expenses in this currency; nil means all.
    public var currency: Currency?
    /// Only expenses assigned to the user's period with this id (`PeriodStore`); nil means all.
    /// Not checked by `matches`: an `Expense` does not carry its period.
    public var period: Int64?
    /// Read each point's merchant (`SpendingPoint.merchant`): only the points layer shows it;
    /// every other reader leaves the text unread (a store report over 100k rows: 10 % of its CPU).
    public var readsMerchant = false

    public init(
        userID: String?, from: Timestamp? = nil, to: Timestamp? = nil, kinds: Set<ExpenseKind> = [],
        categories: Set<String> = [], storeIDs: Set<String> = [], currency: Currency? = nil, period: Int64? = nil
    ) {
        self.currency = currency
        self.period = period
        self.userID = userID.map(Identity.normalized)
        self.from = from
        self.to = to
        self.kinds = kinds
        self.categories = Set(categories.map(Identity.normalized))
        self.storeIDs = Set(storeIDs.map(Identity.normalized))
    }

    /// Whether an expense passes the non-spatial filters (used by brute-force oracles in tests).
    public func matches(_ e: Expense) -> Bool {
        if let userID, e.userID != userID { return false }
        if let from {
            if from.isDateOnly ? e.occurredAt.localDate < from.localDate : e.occurredAt.epochMilliseconds < from.epochMilliseconds {
                return false
            }
        }
        if let to {
            if to.isDateOnly ? e.occurredAt.localDate > to.localDate : e.occurredAt.epochMilliseconds >= to.epochMilliseconds {
                return false
            }
        }
        if !kinds.isEmpty, !kinds.contains(e.kind) { return false }
        if let currency, e.amount.currency != currency { return false }
        if !storeIDs.isEmpty {
            guard let s = e.storeID, storeIDs.contains(s) else { return false }
        }
        if !categories.isEmpty {
            guard let c = e.category.map(Identity.asciiLowercased),
                categories.contains(where: { ExactText(Identity.asciiLowercased($0)) == ExactText(c) })
            else {
                return false
            }
        }
        return true
    }
}

/// An expense found by a radius query, with its geodesic distance from the centre.
public struct ExpenseHit: Sendable, Hashable {
    public let expense: Expense
    public let distanceMeters: Double
    public init(expense: Expense, distanceMeters: Double) {
        self.expense = expense
        self.distanceMeters = distanceMeters
    }
}

/// A store found by a nearest-store query, with its geodesic distance from the centre.
public struct StoreHit: Sendable, Hashable {
    public let store: Store
    public let distanceMeters: Double
    public init(store: Store, distanceMeters: Double) {
        self.store = store
        self.distanceMeters = distanceMeters
    }
}

public struct StoreCounts: Sendable, Hashable {
    public var users: Int
    public var expenses: Int
    public var geotaggedExpenses: Int
    public var stores: Int
    public init(users: Int, expenses: Int, geotaggedExpenses: Int, stores: Int) {
        self.users = users
        self.expenses = expenses
        self.geotaggedExpenses = geotaggedExpenses
        self.stores = stores
    }
}
