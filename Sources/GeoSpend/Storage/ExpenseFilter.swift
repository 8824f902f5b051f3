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

