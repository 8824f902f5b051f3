/// The writes of one write scope (`ExpenseStore.write`): rows go in batches, and each row gets
/// its own outcome, so a store across a network pays one round trip per batch, not per row.
public protocol ExpenseWriter {
    /// Inserts stores, or recognises identical ones already there; one outcome per store, in order.
    func insert(_ stores: [HashedRow<Store>]) throws -> [RowOutcome]

    /// Inserts expenses (creating each new user with the default categories, and each new
    /// category, on first sight), or recognises identical ones already there; one outcome per
    /// expense, in order. A rejected row changes nothing; the others are written. `policy` says
    /// what becomes of a stored id with other content and of a transaction stored under
    /// another id.
    func insert(_ expenses: [HashedRow<Expense>], policy: InsertPolicy) throws -> [RowOutcome]

    /// Links expenses to stores; for each link, whether the expense changed (false when it
    /// already had a store).
    func assignStores(_ links: [StoreLink]) throws -> [Bool]

    /// The user's periods as this scope sees them (an import's `period` column resolves
    /// against them with `PeriodReference`).
    func periods(ofUser userID: String) throws -> [Period]

    /// Assigns stored expenses to periods of their users (`PeriodLink.period`: the user's
    /// period id, which the caller has checked in this scope), replacing any period they had.
    func assignPeriods(_ links: [PeriodLink]) throws
}

/// One expense to assign to one of its user's periods inside a write scope.
public struct PeriodLink: Sendable, Hashable {
    public let userID: String
    public let expenseID: String
    /// The period's id as the user sees it (`Period.id`).
    public let period: Int64
    public init(userID: String, expenseID: String, period: Int64) {
        self.userID = userID
        self.expenseID = expenseID
        self.period = period
    }
}

extension ExpenseWriter {
    /// Inserts one store (see `insert(_:)`): `RowRejection` is thrown.
    public func insert(_ store: Store) throws -> InsertOutcome {
        try insert([HashedRow(store, contentHash: store.contentHash)])[0].get()
    }

    /// Inserts one expense (see `insert(_:policy:)`, refusing changed content, keeping twins):
    /// `RowRejection` is thrown.
    public func insert(_ expense: Expense) throws -> InsertOutcome {
        try insert([HashedRow(expense, contentHash: expense.contentHash)])[0].get()
    }

    /// `insert(_:policy:)` refusing changed content and keeping twins.
    public func insert(_ expenses: [HashedRow<Expense>]) throws -> [RowOutcome] {
        try insert(expenses, policy: InsertPolicy())
    }
}

/// What an expense insert does beyond inserting new ids (`import expenses --update`, and
/// without `--allow-duplicates`).
public struct InsertPolicy {
    /// A stored id whose content differs is rewritten with the row's fields (`.updated`) instead
    /// of refused. What GeoSpend added to the stored row stays: its reminder and creation time,
    /// and a position or store the row does not give (geotagging's, a link, one set by hand).
    public var updatesChanged: Bool
    /// Recognises a new id's row as a transaction stored under another id (`.duplicate`), which
    /// is then not written; nil writes it.
    public var duplicates: DuplicateCheck?

    public init(updatesChanged: Bool = false, duplicates: DuplicateCheck? = nil) {
        self.updatesChanged = updatesChanged
        self.duplicates = duplicates
    }
}

/// A record with its content hash (`Store.contentHash`, `Expense.contentHash`), computed by the
/// caller — the importer does it while parsing — so that a re-import recognises rows already
/// there by hash instead of comparing every column.
public struct HashedRow<Record: Sendable>: Sendable {
    public let record: Record
    public let contentHash: Int64
    public init(_ record: Record, contentHash: Int64) {
        self.record = record
        self.contentHash = contentHash
    }
}

public enum InsertOutcome: Sendable, Equatable {
    case inserted
    /// The same id with the same content was already stored: nothing changed.
    case unchanged
    /// The id was stored with other content, rewritten (`InsertPolicy.updatesChanged`).
    case updated
    /// The same transaction is stored under this other id (`InsertPolicy.duplicates`): not written.
    case duplicate(of: String)
}

/// What became of one row of a batch.
public enum RowOutcome: Sendable, Equatable {
    case inserted
    case unchanged
    case updated
    case duplicate(of: String)
    /// Refused (the id exists with other content, an unknown `store_id` …); nothing of it written.
    case rejected(RowRejection)

    /// The outcome, or the rejection thrown.
    public func get() throws(RowRejection) -> InsertOutcome {
        switch self {
        case .inserted: return .inserted
        case .unchanged: return .unchanged
        case .updated: return .updated
        case .duplicate(let id): return .duplicate(of: id)
        case .rejected(let r): throw r
        }
    }
}

/// An expense to link to a store (snapping).
public struct StoreLink: Sendable, Hashable {
    /// The expense's user: ids are unique per user, so the id alone does not name one expense.
    public let userID: String
    public let expenseID: String
    public let storeID: String
    public init(userID: String, expenseID: String, storeID: String) {
        self.userID = userID
        self.expenseID = expenseID
        self.storeID = storeID
    }
}

/// A row the store refuses, with the column at fault; the importer adds file and line.
public struct RowRejection: Error, Sendable, Equatable {
    public let column: String
    public let reason: String
    public init(column: String, reason: String) {
        self.column = column
        self.reason = reason
    }

    /// An amount that would take its currency's total of all stored amounts past `Int64`, so
    /// that no total GeoSpend computes could be exact (every writer's rule, inserts and updates).
    public static func totalOverflow(currency code: String) -> RowRejection {
        RowRejection(
            column: "amount",
            reason: "would bring the total of all \(code) amounts in the database beyond \(Int64.max) minor units, more than GeoSpend can add up exactly")
    }

    /// A stored id with other content, refused without `InsertPolicy.updatesChanged`.
    public static func changedContent(id: String) -> RowRejection {
        RowRejection(
            column: "id",
            reason: "\"\(id)\" is already stored with different content; to replace the stored row import with --update "
                + "(update=true over HTTP), or give changed rows new ids")
    }
}
