/// Periods (the Iteration 3 plan): named spans of a user's life — a trip, a term, a renovation —
/// that expenses are *assigned* to, one period per expense at most. A period's dates describe
/// it; they do not select expenses: a flight booked in January belongs to the March trip when
/// the user assigns it there. `--period ID` selects the assigned expenses (`ExpenseFilter.period`).
///
/// Ids are numbered per user (1, 2, 3 …, never reused after a deletion), so one user's ids say
/// nothing about other users' periods.
public protocol PeriodStore: Sendable {
    /// Adds a period to an existing user and returns it with its new id.
    func addPeriod(userID: String, _ fields: PeriodFields) async throws -> Period

    /// The user's periods, by id.
    func periods(userID: String) async throws -> [Period]

    /// One of the user's periods; nil when the user has none with this id (another user's period
    /// is "none" too).
    func period(userID: String, id: Int64) async throws -> Period?

    /// Replaces the period's fields; nil when the user has no such period.
    func updatePeriod(userID: String, id: Int64, _ fields: PeriodFields) async throws -> Period?

    /// Deletes the period; its expenses stay, with no period.
    /// - Returns: how many expenses were unlinked, or nil when the user has no such period.
    func deletePeriod(userID: String, id: Int64) async throws -> Int?

    /// Assigns the user's expenses to one of their periods (`period` nil: unassigns them), all or
    /// nothing: when an id is not one of the user's expenses, nothing changes.
    func assign(userID: String, period: Int64?, expenseIDs: [String]) async throws -> PeriodAssignment
}

/// Periods as a read scope hands them out (every `ExpenseReader` is one): a query that names a
/// period checks it in the snapshot it answers from (`near?period=`). A store that keeps no
/// periods finds none.
public protocol PeriodReader {
    /// `PeriodStore.period(userID:id:)`, in the scope's snapshot.
    func period(userID: String, id: Int64) throws -> Period?
    /// `PeriodStore.periods(userID:)`, in the scope's snapshot.
    func periods(userID: String) throws -> [Period]
}

/// A backend's period reads are its read scope's (written once, in its reader).
extension PeriodStore where Self: ExpenseStore {
    public func periods(userID: String) async throws -> [Period] { try await read { try $0.periods(userID: userID) } }
    public func period(userID: String, id: Int64) async throws -> Period? { try await read { try $0.period(userID: userID, id: id) } }
}

/// What a user gives for a period, checked (`init` throws on a rule broken).
public struct PeriodFields: Sendable, Hashable {
    public static let maxNameLength = DisplayName.maxLength

    /// Trimmed of surrounding white space, NFC, 1–100 characters (grapheme clusters): `DisplayName`.
    public let name: String
    /// First local day, inclusive (a bare date).
    public let start: Timestamp
    /// Last local day, inclusive; nil for an ongoing period. After `start` (issue 17: "the end
    /// is after the start"), as a budget's `to` is after its `from`.
    public let end: Timestamp?

    /// - Throws: `ValueError` naming the option at fault and how to fix it.
    public init(name: String, start: Timestamp, end: Timestamp?) throws(ValueError) {
        let trimmed = try DisplayName.checked(name, of: "period", example: "Lisbon trip")
        guard start.isDateOnly else {
            throw .invalidDate(start.text, reason: "is not a bare date: a period's --from is a local day, YYYY-MM-DD")
        }
        if let end {
            guard end.isDateOnly else {
                throw .invalidDate(end.text, reason: "is not a bare date: a period's --to is a local day, YYYY-MM-DD")
            }
            // Issue 17: "when given, the end is after the start" — as for budgets, a same-day end is refused.
            guard end.localDate > start.localDate else {
                let fix = end.localDate == start.localDate
                    ? "give a later --to (or none: ongoing)" : "swap them"
                throw .invalidDate(
                    end.text, reason: "(--to) is not after --from \(start.text): a period's last day comes after its first; \(fix)")
            }
        }
        self.name = trimmed
        self.start = start
        self.end = end
    }
}

/// A stored period.
public struct Period: Sendable, Hashable {
    public let id: Int64
    public let userID: String
    public let name: String
    /// `YYYY-MM-DD`.
    public let start: String
    /// `YYYY-MM-DD`; nil while ongoing.
    public let end: String?
    /// How many expenses are assigned to it.
    public let expenses: Int
    /// When the store added and last changed it (UTC, the store's clock); nil for a period made
    /// before migration v27 (SpatiaLite) / v18 (PostgreSQL).
    public var createdAt: String?
    public var updatedAt: String?

    public init(
        id: Int64, userID: String, name: String, start: String, end: String?, expenses: Int, createdAt: String? = nil, updatedAt: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.start = start
        self.end = end
        self.expenses = expenses
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What `PeriodStore.assign` did, or the ids it refused.
public enum PeriodAssignment: Sendable, Hashable {
    /// `changed` expenses now have the period (or none); `moved` of them had another period before.
    case done(changed: Int, moved: Int)
    /// The user has no such period: nothing changed.
    case noSuchPeriod
    /// These ids are not the user's expenses (in the order given): nothing changed.
    case unknownExpenses([String])
}

extension PeriodAssignment {
    /// How many expenses changed and how many of them moved from another period; a period or an
    /// expense the user does not have is a usage error (`periods assign|unassign`'s words).
    public func outcome(period: Int64?, user: String) throws -> (changed: Int, moved: Int) {
        switch self {
        case .done(let changed, let moved): return (changed, moved)
        case .noSuchPeriod: throw NameChecks.noPeriod(period ?? 0, user: user)
        case .unknownExpenses(let ids):
            let shown = ids.prefix(5).map { "\"\(OutputEscaping.visible($0))\"" }.joined(separator: ", ")
            let more = ids.count > 5 ? " and \(ids.count - 5) more" : ""
            throw UsageError(
                "no expense \(shown)\(more) of user \"\(OutputEscaping.visible(Identity.normalized(user)))\"; nothing was changed. "
                    + "`geospend expenses list --user \(OutputEscaping.visible(Identity.normalized(user)))` lists the user's expense ids")
        }
    }
}
