/// Income, expenses and balance per currency over a window; transfers counted apart.
public struct SpendingSummary: Sendable {
    public struct Line: Sendable, Hashable {
        public let currency: Currency
        public let income: MoneyTotal
        public let expenses: MoneyTotal
        public let transfers: MoneyTotal
        /// income − expenses (transfers move money between a user's own accounts).
        public var balance: Money {
            Money(minorUnits: income.totalMinor - expenses.totalMinor, currency: currency)
        }
    }

    public let userID: String
    public let from: Timestamp?
    public let to: Timestamp?
    /// One line per currency, by code.
    public let lines: [Line]

    /// - Complexity: O(n) for the user's n expenses in the window.
    public static func compute(userID: String, from: Timestamp?, to: Timestamp?, store: some ExpenseStore) throws -> SpendingSummary {
        var byCurrency: [Currency: (income: MoneyTotal, expenses: MoneyTotal, transfers: MoneyTotal)] = [:]
        for p in try store.spendingPoints(ExpenseFilter(userID: userID, from: from, to: to)) {
            var entry = byCurrency[p.currency] ?? (MoneyTotal(currency: p.currency), MoneyTotal(currency: p.currency), MoneyTotal(currency: p.currency))
            switch p.kind {
            case .income: entry.income.add(p.amountMinor)
            case .expense: entry.expenses.add(p.amountMinor)
            case .transfer: entry.transfers.add(p.amountMinor)
            }
            byCurrency[p.currency] = entry
        }
        let lines = byCurrency.sorted { $0.key < $1.key }.map {
            Line(currency: $0.key, income: $0.value.income, expenses: $0.value.expenses, transfers: $0.value.transfers)
        }
        return SpendingSummary(userID: userID, from: from, to: to, lines: lines)
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
