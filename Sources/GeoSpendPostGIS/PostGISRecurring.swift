import GeoSpend
import PostgresNIO

/// Recurring rules on PostgreSQL (migration v14), with the file's rules
/// (Sources/GeoSpendSpatiaLite/RecurringStorage.swift): ids numbered per user and never reused,
/// another user's rule is "none", a run's expenses and the rule's move in one transaction.
extension PostGISStore: RecurringStore {
    public func addRecurring(userID: String, _ fields: RecurringFields) async throws -> RecurringRule? {
        let user = Identity.normalized(userID)
        return try await editing { r -> RecurringRule? in
            guard !(try r.rows("SELECT 1 FROM users WHERE id = \(user)")).isEmpty else { return nil }
            let number = try Self.nextNumber(r, counter: "recurring_numbers", user: user)
            let f = fields
            _ = try r.rows("""
                INSERT INTO recurring_rules (user_id, number, kind, amount_minor, currency, title, category, merchant, store_id, notes,
                    every, anchor_date, until_date, next_due, created_at, updated_at)
                VALUES (\(user), \(number), \(f.kind.rawValue), \(f.amount.minorUnits), \(f.amount.currency.code), \(f.title), \(f.category),
                    \(f.merchant), \(f.storeID), \(f.notes), \(f.schedule.every.description), \(f.schedule.anchor.description),
                    \(f.until?.description), \(f.firstDue(onOrAfter: f.schedule.anchor)?.description),
                    \(unescaped: Self.nowSQL), \(unescaped: Self.nowSQL))
                """)
            return try Self.recurringRules(r, user: user, number: number).first
        }
    }

    public func updateRecurring(userID: String, id: Int64, _ fields: RecurringFields, nextDue: LocalDay?) async throws -> RecurringRule? {
        let user = Identity.normalized(userID)
        let f = fields
        return try await editing { r -> RecurringRule? in
            let changed = try r.rows("""
                UPDATE recurring_rules SET kind = \(f.kind.rawValue), amount_minor = \(f.amount.minorUnits), currency = \(f.amount.currency.code),
                    title = \(f.title), category = \(f.category), merchant = \(f.merchant), store_id = \(f.storeID), notes = \(f.notes),
                    every = \(f.schedule.every.description), anchor_date = \(f.schedule.anchor.description), until_date = \(f.until?.description),
                    next_due = \(nextDue?.description), updated_at = \(unescaped: Self.nowSQL)
                WHERE user_id = \(user) AND number = \(id) RETURNING 1
                """)
            guard !changed.isEmpty else { return nil }
            return try Self.recurringRules(r, user: user, number: id).first
        }
    }

    public func deleteRecurring(userID: String, id: Int64) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await editing { r in
            !(try r.rows("DELETE FROM recurring_rules WHERE user_id = \(user) AND number = \(id) RETURNING 1")).isEmpty
        }
    }

    public func createOccurrences(
        userID: String, rule id: Int64, expectedNextDue: LocalDay, expenses: [Expense], nextDue: LocalDay?
    ) async throws -> [RowOutcome]? {
        let user = Identity.normalized(userID)
        return try await editing { r -> [RowOutcome]? in
            let moved = try r.rows("""
                UPDATE recurring_rules SET next_due = \(nextDue?.description)
                WHERE user_id = \(user) AND number = \(id) AND next_due = \(expectedNextDue.description) RETURNING 1
                """)
            guard moved.count == 1 else { return nil }
            // The import's own writer, as `addExpense` uses it: the same checks, rollups and budget events.
            let writer = PostGISWriter(connection: r.connection, logger: r.logger)
            let outcomes = try writer.insert(expenses.map { HashedRow($0, contentHash: $0.contentHash) }, policy: InsertPolicy())
            for (e, outcome) in zip(expenses, outcomes) where !RecurringRun.accepts(outcome, id: e.id) {
                if case .rejected(let rejection) = outcome { throw rejection }
            }
            try writer.finish()
            try Self.raiseBudgetEvents(r, touched: writer.touched)
            return outcomes
        }
    }

    static func recurringRules(_ r: PostGISReader, user: String, number: Int64?) throws -> [RecurringRule] {
        try r.rows("""
            SELECT number, user_id, kind, amount_minor, currency, title, category, merchant, store_id, notes, every, anchor_date,
                until_date, next_due, created_at, updated_at
            FROM recurring_rules WHERE user_id = \(user) AND (\(number)::bigint IS NULL OR number = \(number)) ORDER BY number
            """).map { row in
            let x = row.makeRandomAccess()
            func text(_ i: Int) throws -> String? { try x[i].decode(String?.self) }
            return try RecurringRows.rule(
                number: try x[0].decode(Int64.self), user: try x[1].decode(String.self), kind: try x[2].decode(String.self),
                amountMinor: try x[3].decode(Int64.self), currency: try x[4].decode(String.self), title: try text(5), category: try text(6),
                merchant: try text(7), storeID: try text(8), notes: try text(9), every: try x[10].decode(String.self),
                anchor: try x[11].decode(String.self), until: try text(12), nextDue: try text(13), createdAt: try x[14].decode(String.self),
                updatedAt: try x[15].decode(String.self))
        }
    }
}

/// The rule reads of a read scope, on its connection and snapshot.
extension PostGISReader: RecurringReader {
    public func recurringRules(userID: String) throws -> [RecurringRule] {
        try PostGISStore.recurringRules(self, user: Identity.normalized(userID), number: nil)
    }

    public func usersWithRecurringDue(onOrBefore day: LocalDay) throws -> [String] {
        try rows("SELECT DISTINCT user_id FROM recurring_rules WHERE next_due <= \(day.description) ORDER BY user_id").map { try $0.decode(String.self) }
    }
}
