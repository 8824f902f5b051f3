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

