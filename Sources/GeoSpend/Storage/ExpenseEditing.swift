import Foundation

/// What a store offers for one expense's life after import (`geospend expenses …`,
/// `reminders due`): add, read, edit, delete, page through and search one user's expenses.
/// Separate from `ExpenseStore` (the analytics seam) because only these commands need it.
/// Every call is scoped to one user: another user's expense is "not found", never "not yours".
public protocol ExpenseEditing: Sendable {
    /// Stores a new expense (its id given by the caller, `GeneratedID`), creating the user with
    /// the default categories on first sight, as an import does.
    /// - Throws: `EditError` (unknown store, id taken, category unknown or inactive).
    func addExpense(_ expense: Expense, remindAt: Timestamp?) async throws -> StoredExpense

    /// The user's expense with this id, or nil.
    func expense(id: String, userID: String) async throws -> StoredExpense?

    /// Replaces every field of the user's expense `expense.id`.
    /// - Returns: the stored expense, or nil when the user has no expense with this id.
    func updateExpense(_ expense: Expense, remindAt: Timestamp?) async throws -> StoredExpense?

    /// Deletes the user's expense with the same no-trace guarantee as deleting a user (secure
    /// delete, spatial index scrubbed, the write-ahead log emptied, and the file rewritten `rewrite`).
    /// - Returns: nil when the user has no expense with this id; else the notes on what may
    ///   remain (empty when nothing does; with `.batched` the caller's rewrite is not noted).
    func deleteExpense(id: String, userID: String, rewrite: DeletionRewrite) async throws -> [String]?

    /// The rewrite that deletions made with `.batched` or `.skipped` still owe, once for all of
    /// them (the file's `VACUUM`; PostgreSQL's `VACUUM expenses`); nothing when none is owed.
    /// - Returns: the notes on what may remain (empty when nothing does).
    func rewriteAfterDeletions() async throws -> [String]

    /// Whether a deletion still owes the rewrite (the file's flag `doctor` reports; PostgreSQL's
    /// autovacuum keeps no debt: false).
    func rewriteOwed() async throws -> Bool

    /// The user's expenses matching `filter`, newest first (ties: by id, descending), at most
    /// `limit`, starting after `cursor`; the page's `next` is nil on the last page.
    func expensePage(_ filter: ExpenseFilter, after cursor: ExpenseCursor?, limit: Int) async throws -> ExpensePage

    /// The user's expenses whose title, merchant, notes or category contain `text` (ASCII
    /// letters compared without case), newest first, at most `limit`.
    func searchExpenses(userID: String, text: String, limit: Int) async throws -> [StoredExpense]

    /// The user's expenses with a reminder at or before `asOf`, earliest reminder first.
    func dueReminders(userID: String, asOf: Timestamp) async throws -> [StoredExpense]
}

/// The expense reads of a read scope (`ExpenseStore.read`) that `ExpenseEditing` declares.
public protocol StoredExpenseReader {
    /// `ExpenseEditing.expense(id:userID:)`, in the scope's snapshot.
    func expense(id: String, userID: String) throws -> StoredExpense?
    /// `ExpenseEditing.expensePage(_:after:limit:)`, in the scope's snapshot.
    func expensePage(_ filter: ExpenseFilter, after cursor: ExpenseCursor?, limit: Int) throws -> ExpensePage
    /// `ExpenseEditing.searchExpenses(userID:text:limit:)`, in the scope's snapshot.
    func searchExpenses(userID: String, text: String, limit: Int) throws -> [StoredExpense]
    /// `ExpenseEditing.dueReminders(userID:asOf:)`, in the scope's snapshot.
    func dueReminders(userID: String, asOf: Timestamp) throws -> [StoredExpense]
}

/// A backend's expense reads are its read scope's (written once, in its reader).
extension ExpenseEditing where Self: ExpenseStore {
    public func expense(id: String, userID: String) async throws -> StoredExpense? {
        try await read { try $0.expense(id: id, userID: userID) }
    }

    public func expensePage(_ filter: ExpenseFilter, after cursor: ExpenseCursor?, limit: Int) async throws -> ExpensePage {
        try await read { try $0.expensePage(filter, after: cursor, limit: limit) }
    }

    public func searchExpenses(userID: String, text: String, limit: Int) async throws -> [StoredExpense] {
        try await read { try $0.searchExpenses(userID: userID, text: text, limit: limit) }
    }

    public func dueReminders(userID: String, asOf: Timestamp) async throws -> [StoredExpense] {
        try await read { try $0.dueReminders(userID: userID, asOf: asOf) }
    }
}

/// When a deleted expense's last copies leave the file. Deleting zeroes the row where SQLite
/// frees it (`secure_delete`), but a B-tree page rebuilt by an earlier insert or edit can keep a
/// stale copy of the row in its unused space, which only a rewrite (`VACUUM`) removes: about one
/// deletion in two hundred (docs/RELIABILITY.md § 9.8).
public enum DeletionRewrite: Sendable, Hashable {
    /// Rewrite at once: the call returns when no byte of the row is left (`expenses delete`).
    case now
    /// The caller runs `rewriteAfterDeletions()` soon, once for the deletions made meanwhile
    /// (the service: a full rewrite per deletion would block every writer for seconds).
    case batched
    /// Not now: noted, and owed until `doctor --repair` (`--no-vacuum`).
    case skipped
}

/// An expense with what its life adds to it: a reminder and when it was stored and changed.
public struct StoredExpense: Sendable, Hashable {
    public var expense: Expense
    public var remindAt: Timestamp?
    /// `YYYY-MM-DDTHH:MM:SS.sssZ`; nil for rows imported (or stored before schema v5).
    public var createdAt: String?
    public var updatedAt: String?
    /// Where the position came from; nil when there is none. A position imported with the
    /// expense is `device`.
    public var positionSource: PositionSource?
    /// How sure geotagging was of an inferred position (0…1); nil for the others.
    public var positionConfidence: Double?

    public init(
        expense: Expense, remindAt: Timestamp?, createdAt: String?, updatedAt: String?,
        positionSource: PositionSource? = nil, positionConfidence: Double? = nil
    ) {
        self.expense = expense
        self.remindAt = remindAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.positionSource = expense.location == nil ? nil : positionSource ?? .device
        self.positionConfidence = positionConfidence
    }
}

/// Where a page of `expensePage` ended: the last row's instant, id and user, as opaque text
/// (`--after`). Not the row key: that counts every user's rows, so it would tell one user how
/// many others were stored in between (IsolationTests caught it). Ids are unique per user, so
/// (instant, id) alone does not order a page of several users' rows: the user breaks the tie.
public struct ExpenseCursor: Sendable, Hashable {
    public let occurredMilliseconds: Int64
    public let id: String
    /// The last row's user; empty in a cursor written before ids were per user, which then
    /// skips every row of that instant and id, as it did.
    public let userID: String

    public init(occurredMilliseconds: Int64, id: String, userID: String) {
        self.occurredMilliseconds = occurredMilliseconds
        self.id = id
        self.userID = userID
    }

    /// The instant in base 36, a dot, the id in base64url, a dot, the user in base64url:
    /// nothing a user is meant to compose.
    public var text: String {
        String(occurredMilliseconds, radix: 36) + "." + Self.encode(id) + "." + Self.encode(userID)
    }

    public init?(text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let ms = Int64(parts[0], radix: 36),
            let id = Self.decode(parts[1]), !id.isEmpty
        else { return nil }
        var userID = ""
        if parts.count == 3 {
            guard let user = Self.decode(parts[2]), !user.isEmpty else { return nil }
            userID = user
        }
        self.init(occurredMilliseconds: ms, id: id, userID: userID)
    }

    private static func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    private static func decode(_ part: Substring) -> String? {
        var b64 = part.replacing("-", with: "+").replacing("_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        guard let data = Data(base64Encoded: String(b64)) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}

/// One page of `expensePage`.
public struct ExpensePage: Sendable, Hashable {
    public let expenses: [StoredExpense]
    /// Where the next page starts; nil when this is the last one.
    public let next: ExpenseCursor?

    public init(expenses: [StoredExpense], next: ExpenseCursor?) {
        self.expenses = expenses
        self.next = next
    }
}
