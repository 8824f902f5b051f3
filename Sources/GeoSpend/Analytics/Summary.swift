/// Income, expenses and balance per currency over a window; transfers counted apart.
public struct SpendingSummary: Sendable {
    public struct Line: Sendable, Hashable {
        public let currency: Currency
        public let income: MoneyTotal
        public let expenses: MoneyTotal
        public let transfers: MoneyTotal
        /// The local days (`YYYY-MM-DD`) of the earliest and latest entry of this currency, any kind.
        public let firstDay: String
        public let lastDay: String
        /// income − expenses (transfers move money between a user's own accounts).
        public var balance: Money {
            Money(minorUnits: income.totalMinor - expenses.totalMinor, currency: currency)
        }
    }

    public let userID: String
    public let from: Timestamp?
    public let to: Timestamp?
    /// The period whose assigned expenses were summed (`--period`), if any.
    public let period: Period?
    /// One line per currency, by code.
    public let lines: [Line]

    /// `compute(…reader:)` in one read scope of `store`.
    public static func compute(
        userID: String, from: Timestamp?, to: Timestamp?, period: Period? = nil, store: some ExpenseStore
    ) async throws -> SpendingSummary {
        try await store.read { try compute(userID: userID, from: from, to: to, period: period, reader: $0) }
    }

    /// - Parameter period: only the expenses assigned to it (within the window, when one is given).
    /// - Complexity: O(n) for the user's n expenses in the window.
    public static func compute(
        userID: String, from: Timestamp?, to: Timestamp?, period: Period? = nil, reader: some ExpenseReader
    ) throws -> SpendingSummary {
        typealias Entry = (income: MoneyTotal, expenses: MoneyTotal, transfers: MoneyTotal, first: Int64, last: Int64)
        var byCurrency: [Currency: Entry] = [:]
        for p in try reader.spendingPoints(ExpenseFilter(userID: userID, from: from, to: to, period: period?.id)) {
            var entry = byCurrency[p.currency]
                ?? (MoneyTotal(currency: p.currency), MoneyTotal(currency: p.currency), MoneyTotal(currency: p.currency), .max, .min)
            switch p.kind {
            case .income: entry.income.add(p.amountMinor)
            case .expense: entry.expenses.add(p.amountMinor)
            case .transfer: entry.transfers.add(p.amountMinor)
            }
            let day = p.localDayNumber
            entry.first = min(entry.first, day)
            entry.last = max(entry.last, day)
            byCurrency[p.currency] = entry
        }
        let lines = byCurrency.sorted { $0.key < $1.key }.map {
            Line(
                currency: $0.key, income: $0.value.income, expenses: $0.value.expenses, transfers: $0.value.transfers,
                firstDay: Timestamp(localDay: $0.value.first).localDate, lastDay: Timestamp(localDay: $0.value.last).localDate)
        }
        return SpendingSummary(userID: userID, from: from, to: to, period: period, lines: lines)
    }

    /// The first and last local day of a month given as `YYYY-MM`.
    /// - Throws: `ValueError.invalidDate`.
    public static func month(_ text: String) throws(ValueError) -> (from: Timestamp, to: Timestamp) {
        // Checked as a month before it becomes a date: "2025-13" was reported as "2025-13-01".
        let b = Array(text.utf8)
        guard b.count == 7, b[4] == UInt8(ascii: "-"), b.enumerated().allSatisfy({ $0.offset == 4 || (48...57).contains($0.element) }),
            let y = Int(text.prefix(4)), let m = Int(text.suffix(2))
        else { throw .invalidDate(text, reason: "is not a month like 2026-03 (YYYY-MM)") }
        guard (1...12).contains(m) else { throw .invalidDate(text, reason: "has month \(text.suffix(2)); months are 01–12") }
        let first = try Timestamp(parsing: text + "-01")
        let last = try Timestamp(parsing: text + "-" + Timestamp.pad(Timestamp.daysIn(month: m, year: y), 2))
        return (first, last)
    }
}
