/// The expenses matching a filter as columns, row `i` in each: what per-place analytics read of
/// a heavy user's rows, with no string, allocation or retain per row. Values that repeat
/// (currency, store, category) are numbered in order of first sight.
///
/// For a heavy user (100k expenses) reading `SpendingPoint`s, each with its strings, then
/// numbering their currencies, stores and categories, took more than half of insights' time.
///
/// ```swift
/// let rows = try await store.read { try $0.spendingColumns(ExpenseFilter(userID: "user1", kinds: [.expense])) }
/// var totals = [Int64](repeating: 0, count: rows.currencies.count)
/// for i in 0..<rows.count { totals[Int(rows.currencyNumber[i])] += rows.amountMinor[i] }
/// ```
public struct SpendingColumns: Sendable {
    public let amountMinor: [Int64]
    /// The instant, milliseconds since 1970 UTC.
    public let occurredMilliseconds: [Int64]
    /// The recorded UTC offset in minutes; nil for a bare date.
    public let utcOffsetMinutes: [Int32?]
    /// Degrees (WGS84); NaN for an expense without a position.
    public let latitude: [Double], longitude: [Double]
    /// Index into `currencies`.
    public let currencyNumber: [Int32]
    /// Index into `storeIDs`; -1 without a store.
    public let storeNumber: [Int32]
    /// Index into `categories`; -1 without a category.
    public let categoryNumber: [Int32]
    public let currencies: [Currency]
    public let storeIDs: [String]
    /// Category names: one number per name (compared by UTF-8 bytes, as store ids are),
    /// whatever the store keys categories by.
    public let categories: [String]
    /// The expense ids' UTF-8 bytes back to back; row `i`'s end at `idEnd[i]`.
    private let idBytes: [UInt8]
    private let idEnd: [Int]
    /// Each row's stored timestamp text then its local date, UTF-8 back to back, when the store
    /// read them with the rows (`timestamp(_:)`); empty otherwise.
    private let timestampBytes: [UInt8]
    private let timestampEnd: [(text: Int, localDate: Int)]
    /// What insights show of each store (display name, position), by store number, when the
    /// store read them with the rows; nil when it did not (`ExpenseReader.storeLabels` then).
    public let storeLabels: [(name: String, coordinate: Coordinate)?]?

    /// Columns a store has read: all of one length, numbers indexing the lists given; ids as
    /// their UTF-8 bytes back to back, row `i`'s ending at `idEnd[i]`. `timestamps`: each row's
    /// stored timestamp text and local date the same way (text then date, back to back), so
    /// first and last visits need no lookup; nil when the store did not read them. `storeLabels`:
    /// one per store id, nil when the store did not read them.
    public init(
        idBytes: [UInt8], idEnd: [Int], amountMinor: [Int64], occurredMilliseconds: [Int64], utcOffsetMinutes: [Int32?],
        latitude: [Double], longitude: [Double], currencyNumber: [Int32], storeNumber: [Int32], categoryNumber: [Int32],
        currencies: [Currency], storeIDs: [String], categories: [String],
        timestamps: (bytes: [UInt8], end: [(text: Int, localDate: Int)])? = nil,
        storeLabels: [(name: String, coordinate: Coordinate)?]? = nil
    ) {
        let n = amountMinor.count
        precondition(
            [idEnd.count, occurredMilliseconds.count, utcOffsetMinutes.count, latitude.count, longitude.count, currencyNumber.count,
                storeNumber.count, categoryNumber.count].allSatisfy { $0 == n } && (idEnd.last ?? 0) == idBytes.count)
        precondition(timestamps.map { $0.end.count == n && ($0.end.last?.localDate ?? 0) == $0.bytes.count } ?? true)
        precondition(storeLabels.map { $0.count == storeIDs.count } ?? true)
        self.storeLabels = storeLabels
        self.idBytes = idBytes
        self.idEnd = idEnd
        timestampBytes = timestamps?.bytes ?? []
        timestampEnd = timestamps?.end ?? []
        self.amountMinor = amountMinor
        self.occurredMilliseconds = occurredMilliseconds
        self.utcOffsetMinutes = utcOffsetMinutes
        self.latitude = latitude
        self.longitude = longitude
        self.currencyNumber = currencyNumber
        self.storeNumber = storeNumber
        self.categoryNumber = categoryNumber
        self.currencies = currencies
        self.storeIDs = storeIDs
        self.categories = categories
    }

    /// The columns of these points, in their order (stores whose reader has no faster way).
    public init(_ points: some Collection<SpendingPoint>) {
        var rows = Builder()
        for p in points {
            rows.append(
                id: p.id, storeID: p.storeID, latitude: p.coordinate?.latitude, longitude: p.coordinate?.longitude,
                amountMinor: p.amountMinor, currencyCode: p.currency.code, occurredMilliseconds: p.occurredMilliseconds,
                utcOffsetMinutes: p.utcOffsetMinutes.map { Int32($0) }, category: p.category) { p.currency }
        }
        self = rows.columns()
    }

    public var count: Int { amountMinor.count }

    /// The id of row `i`.
    public func id(_ i: Int) -> String {
        idBytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[idStart(i)..<idEnd[i]]), as: UTF8.self) }
    }

    private func idStart(_ i: Int) -> Int { i == 0 ? 0 : idEnd[i - 1] }

    /// The position of row `i`, if it has one.
    public func coordinate(_ i: Int) -> Coordinate? {
        latitude[i].isNaN ? nil : Coordinate(uncheckedLatitude: latitude[i], longitude: longitude[i])
    }

    /// The local calendar day of row `i` as days since 1970-01-01 (`SpendingPoint.localDayNumber`).
    public func localDayNumber(_ i: Int) -> Int64 {
        Timestamp.localDayNumber(epochMilliseconds: occurredMilliseconds[i], utcOffsetMinutes: utcOffsetMinutes[i].map { Int($0) })
    }

    /// Whether the store read each row's timestamp with it (then `timestamp(_:)` answers).
    public var hasTimestamps: Bool { timestampEnd.count == count && count > 0 }

    /// The stored timestamp of row `i` (text, instant, offset and local date as recorded), if
    /// the store read it with the rows.
    public func timestamp(_ i: Int) -> Timestamp? {
        guard hasTimestamps else { return nil }
        let start = i == 0 ? 0 : timestampEnd[i - 1].localDate, (textEnd, dateEnd) = timestampEnd[i]
        return timestampBytes.withUnsafeBufferPointer { b in
            Timestamp(
                text: String(decoding: UnsafeBufferPointer(rebasing: b[start..<textEnd]), as: UTF8.self),
                epochMilliseconds: occurredMilliseconds[i], utcOffsetMinutes: utcOffsetMinutes[i].map { Int($0) },
                localDate: String(decoding: UnsafeBufferPointer(rebasing: b[textEnd..<dateEnd]), as: UTF8.self))
        }
    }

    /// Whether row `a` comes before row `b` by instant, ties by id (`SpendingPoint.chronological`).
    public func isEarlier(_ a: Int, than b: Int) -> Bool {
        let (x, y) = (occurredMilliseconds[a], occurredMilliseconds[b])
        return x != y ? x < y : id(a) < id(b)
    }
}
