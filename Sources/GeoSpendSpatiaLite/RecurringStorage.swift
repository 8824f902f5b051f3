import GeoSpend
import GRDB

/// The tables behind `RecurringStore` (migration v23).
/// - `recurring_rules`: one row per rule; `number` is the id users see, unique per user; the
///   expense each day creates as its columns (money in minor units); the schedule as
///   `every` (`RecurringSchedule.Every`'s text) and `anchor_date`; `next_due` the first day not
///   yet created (NULL: ended).
/// - `recurring_numbers`: the last number issued per user (`UserNumbers`).
enum RecurringSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE recurring_rules (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                number BIGINT NOT NULL CHECK (number > 0),
                kind TEXT NOT NULL CHECK (kind IN ('expense', 'income', 'transfer')),
                amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
                currency TEXT NOT NULL,
                title TEXT, category TEXT, merchant TEXT, store_id TEXT, notes TEXT,
                every TEXT NOT NULL,
                anchor_date TEXT NOT NULL,
                until_date TEXT CHECK (until_date IS NULL OR until_date >= anchor_date),
                next_due TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                UNIQUE (user_id, number)
            );
            CREATE TABLE recurring_numbers (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                last BIGINT NOT NULL
            );
            """)
    }

    static let columns = """
        number, user_id, kind, amount_minor, currency, title, category, merchant, store_id, notes, every, anchor_date, until_date, \
        next_due, created_at, updated_at
        """

    /// The user's rules (or the one numbered `number`), by id.
    static func rules(_ db: Database, user: String, number: Int64? = nil) throws -> [RecurringRule] {
        try Row.fetchAll(db, sql: """
            SELECT \(columns) FROM recurring_rules WHERE user_id = ?1 AND (?2 IS NULL OR number = ?2) ORDER BY number
            """, arguments: [user, number]
        ).map { row in
            try RecurringRows.rule(
                number: row[0], user: row[1], kind: row[2], amountMinor: row[3], currency: row[4], title: row[5], category: row[6],
                merchant: row[7], storeID: row[8], notes: row[9], every: row[10], anchor: row[11], until: row[12], nextDue: row[13],
                createdAt: row[14], updatedAt: row[15])
        }
    }

    static func values(_ f: RecurringFields) -> StatementArguments {
        [f.kind.rawValue, f.amount.minorUnits, f.amount.currency.code, f.title, f.category, f.merchant, f.storeID, f.notes,
         f.schedule.every.description, f.schedule.anchor.description, f.until?.description]
    }
}

extension SpatiaLiteStore: RecurringStore {
    public func addRecurring(userID: String, _ fields: RecurringFields) async throws -> RecurringRule? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> RecurringRule? in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [user]) == true else { return nil }
            let number = try UserNumbers.next(db, counter: "recurring_numbers", user: user)
            try db.execute(sql: """
                INSERT INTO recurring_rules (user_id, number, kind, amount_minor, currency, title, category, merchant, store_id, notes,
                    every, anchor_date, until_date, next_due, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \(Self.nowSQL), \(Self.nowSQL))
                """, arguments: [user, number] + RecurringSchema.values(fields) + [fields.firstDue(onOrAfter: fields.schedule.anchor)?.description])
            return try RecurringSchema.rules(db, user: user, number: number).first
        }
    }

    public func updateRecurring(userID: String, id: Int64, _ fields: RecurringFields, nextDue: LocalDay?) async throws -> RecurringRule? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db -> RecurringRule? in
            try db.execute(sql: """
                UPDATE recurring_rules SET kind = ?, amount_minor = ?, currency = ?, title = ?, category = ?, merchant = ?, store_id = ?,
                    notes = ?, every = ?, anchor_date = ?, until_date = ?, next_due = ?, updated_at = \(Self.nowSQL)
                WHERE user_id = ? AND number = ?
                """, arguments: RecurringSchema.values(fields) + [nextDue?.description, user, id])
            guard db.changesCount > 0 else { return nil }
            return try RecurringSchema.rules(db, user: user, number: id).first
        }
    }

    public func deleteRecurring(userID: String, id: Int64) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            try db.execute(sql: "DELETE FROM recurring_rules WHERE user_id = ? AND number = ?", arguments: [user, id])
            return db.changesCount > 0
        }
    }

    public func createOccurrences(
        userID: String, rule id: Int64, expectedNextDue: LocalDay, expenses: [Expense], nextDue: LocalDay?
    ) async throws -> [RowOutcome]? {
        let user = Identity.normalized(userID)
        // The import's own writer: rollups, the spatial index and budget events as for any
        // imported row, in the transaction that moves the rule.
        return try await bulkWrite { writer, db -> [RowOutcome]? in
            try db.execute(
                sql: "UPDATE recurring_rules SET next_due = ? WHERE user_id = ? AND number = ? AND next_due = ?",
                arguments: [nextDue?.description, user, id, expectedNextDue.description])
            guard db.changesCount == 1 else { return nil }
            let outcomes = try writer.insert(expenses.map { HashedRow($0, contentHash: $0.contentHash) }, policy: InsertPolicy())
            for (e, outcome) in zip(expenses, outcomes) where !RecurringRun.accepts(outcome, id: e.id) {
                if case .rejected(let r) = outcome { throw r }
            }
            return outcomes
        }
    }
}

/// The rule reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: RecurringReader {
    public func recurringRules(userID: String) throws -> [RecurringRule] {
        try RecurringSchema.rules(db, user: Identity.normalized(userID))
    }

    public func usersWithRecurringDue(onOrBefore day: LocalDay) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT DISTINCT user_id FROM recurring_rules WHERE next_due <= ? ORDER BY user_id", arguments: [day.description])
    }
}
