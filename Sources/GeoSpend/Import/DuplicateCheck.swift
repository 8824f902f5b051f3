/// Recognises a transaction already stored under another id: the same statement imported again
/// in another format (OFX and QIF of one account, a bank's CSV and its camt.053) names each
/// transaction its own way (FITID, a reference, a content hash), so ids cannot tell.
///
/// Two expenses are the same transaction when they are one user's, on one local day, of one
/// amount in one currency, of kinds that agree (the same, or one a transfer: Revolut calls a
/// salary a transfer, a statement an income; an expense never meets an income), and their
/// merchant texts (`merchant`, else `title`) agree once folded (`MerchantDescriptor.matchKey`):
/// equal, or one the start of the other (at a word break, or anywhere from 10 characters), as
/// formats cut names (OFX's NAME holds 32 characters). A row with no such text is never
/// matched. Each stored expense stands for one new row at most, so two equal coffees in the
/// new file meet two stored ones, and a stored expense whose own id the file also holds is that
/// row's, not a twin (`claim`; `ExpenseInsertions.settle` gives back a twin taken too early).
///
/// Only rows stored before this import are candidates: a writer hands in a day's stored rows
/// (`needs`, `add`) before it inserts any row of that day.
///
/// ```swift
/// let check = DuplicateCheck()
/// check.add(day, stored: [.init(id: "ofx-1", kind: .expense, amount: coffee, text: "CAFE REGATTA HELSINKI")])
/// check.take(qifRow)   // "ofx-1": skip the QIF row
/// ```
public final class DuplicateCheck {
    /// One user's local day, the unit a writer loads stored rows by.
    public struct Day: Hashable, Sendable {
        public let userID: String
        public let localDate: String

        public init(userID: String, localDate: String) {
            self.userID = userID
            self.localDate = localDate
        }

        public init(_ expense: Expense) { self.init(userID: expense.userID, localDate: expense.occurredAt.localDate) }

        /// The UTC milliseconds an expense of this local day can have (offsets are within ±24 h):
        /// for an index on the time, with `local_date` compared after.
        public var utcMilliseconds: ClosedRange<Int64> {
            let start = Timestamp.days(of: localDate) * 86_400_000
            return (start - 86_400_000)...(start + 2 * 86_400_000)
        }
    }

    /// A stored expense as far as matching needs it.
    public struct Stored: Sendable {
        public let id: String
        public let kind: ExpenseKind
        public let amount: Money
        /// The merchant, else the title.
        public let text: String?

        public init(id: String, kind: ExpenseKind, amount: Money, text: String?) {
            self.id = id
            self.kind = kind
            self.amount = amount
            self.text = text
        }
    }

    private struct Candidate {
        let id: String
        let kind: ExpenseKind
        let amount: Money
        /// As stored; folded only when a new row of the same amount asks (folding is most of the
        /// check's cost, and few stored rows share a new row's day and amount).
        let text: String
    }

    private struct Claim: Hashable {
        let day: Day
        let id: String
    }

    /// Per day handed in, the stored rows not yet matched, with their folded text.
    private var candidates: [Day: [Candidate]] = [:]
    /// Stored rows that arrived under their own id (`claim`): never a twin.
    private var claimed = Set<Claim>()

    public init() {}

    /// Whether the writer must hand in this day's stored rows before asking about its rows.
    public func needs(_ day: Day) -> Bool { candidates[day] == nil }

    /// The days of `expenses` not handed in yet, each once, in order.
    public func missingDays(_ expenses: some Sequence<Expense>) -> [Day] {
        var seen = Set<Day>()
        return expenses.map(Day.init).filter { candidates[$0] == nil && seen.insert($0).inserted }
    }

    /// Hands in every row stored on `day`.
    public func add(_ day: Day, stored: [Stored]) {
        guard candidates[day] == nil else { return }
        candidates[day] = stored.compactMap { s in
            guard !claimed.contains(Claim(day: day, id: s.id)), let text = s.text, !text.isEmpty else { return nil }
            return Candidate(id: s.id, kind: s.kind, amount: s.amount, text: text)
        }
    }

    /// The id of a stored expense that is the same transaction as `expense`, now taken (no later
    /// row matches it), or nil. The writer has handed in the expense's day.
    public func take(_ expense: Expense) -> String? {
        let day = Day(expense)
        guard let list = candidates[day], list.contains(where: { $0.amount == expense.amount }),
            let text = Self.text(expense.merchant ?? expense.title),
            let i = list.firstIndex(where: {
                $0.amount == expense.amount && Self.agree($0.kind, expense.kind) && Self.text($0.text).map { Self.agree($0, text) } == true
            })
        else { return nil }
        candidates[day]!.remove(at: i)
        return list[i].id
    }

    /// A stored expense arrived under its own id (`expense` is the file's row): no other row may
    /// take it. (A row whose stored day differs, an update, is not seen here; `Importer` gives a
    /// twin it took back.)
    public func claim(_ expense: Expense) {
        let day = Day(expense)
        claimed.insert(Claim(day: day, id: expense.id))
        candidates[day]?.removeAll { $0.id == expense.id }
    }

    static func agree(_ a: ExpenseKind, _ b: ExpenseKind) -> Bool { a == b || a == .transfer || b == .transfer }

    /// Folded merchant text; nil when there is none to compare.
    static func text(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let key = MerchantDescriptor(parsing: raw).matchKey
        return key.isEmpty ? nil : key
    }

    /// Equal, or one is the other's start: at a word break when at least 4 characters long, or
    /// anywhere when at least 10 (a name cut mid-word).
    static func agree(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        let (short, long) = a.count < b.count ? (a, b) : (b, a)
        guard short.count >= 4, long.hasPrefix(short) else { return false }
        return short.count >= 10 || long[long.index(long.startIndex, offsetBy: short.count)] == " "
    }
}
