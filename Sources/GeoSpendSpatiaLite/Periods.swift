import GeoSpend
import GRDB

/// The tables behind `PeriodStore` (migration v6).
enum PeriodSchema {
    /// - `periods`: one row per period; `number` is the id users see, unique per user.
    /// - `period_numbers`: the last number issued per user, so a deleted period's id is never
    ///   given to a new one (a script holding "period 3" must not reach another period).
    /// - `expenses.period_id`: the link; one period per expense, `ON DELETE SET NULL` so deleting
    ///   a period unlinks its expenses. `BIGINT`: GDAL reads a declared `INTEGER` as 32-bit
    ///   (`Integer64Columns`). Added with `ALTER TABLE … ADD COLUMN`: existing rows read NULL,
    ///   no period, without being rewritten.
    /// User keys cascade on update too: `doctor --repair` renames a user id to NFC.
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE periods (
                pk INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                number BIGINT NOT NULL CHECK (number > 0),
                name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
                start_date TEXT NOT NULL,
                end_date TEXT CHECK (end_date IS NULL OR end_date >= start_date),
                UNIQUE (user_id, number)
            );
            CREATE TABLE period_numbers (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                last BIGINT NOT NULL
            );
            ALTER TABLE expenses ADD COLUMN period_id BIGINT REFERENCES periods(pk) ON DELETE SET NULL;
            CREATE INDEX expenses_period ON expenses(period_id) WHERE period_id IS NOT NULL;
            """)
    }
}

extension SpatiaLiteStore: PeriodStore {
    public func addPeriod(userID: String, _ fields: PeriodFields) async throws -> Period {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            let number = try UserNumbers.next(db, counter: "period_numbers", user: user)
            try db.execute(
                sql: "INSERT INTO periods (user_id, number, name, start_date, end_date) VALUES (?, ?, ?, ?, ?)",
                arguments: [user, number, fields.name, fields.start.localDate, fields.end?.localDate])
            return try Self.fetchPeriods(db, user: user, number: number)[0]
        }
    }

    public func updatePeriod(userID: String, id: Int64, _ fields: PeriodFields) async throws -> Period? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            try db.execute(
                sql: "UPDATE periods SET name = ?, start_date = ?, end_date = ? WHERE user_id = ? AND number = ?",
                arguments: [fields.name, fields.start.localDate, fields.end?.localDate, user, id])
            guard db.changesCount > 0 else { return nil }
            return try Self.fetchPeriods(db, user: user, number: id).first
        }
    }

    public func deletePeriod(userID: String, id: Int64) async throws -> Int? {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            guard let pk = try Int64.fetchOne(db, sql: "SELECT pk FROM periods WHERE user_id = ? AND number = ?", arguments: [user, id])
            else { return nil }
            let linked = try Int.fetchOne(db, sql: "SELECT count(*) FROM expenses WHERE period_id = ?", arguments: [pk]) ?? 0
            try db.execute(sql: "DELETE FROM periods WHERE pk = ?", arguments: [pk])  // ON DELETE SET NULL unlinks
            return linked
        }
    }

    public func assign(userID: String, period: Int64?, expenseIDs: [String]) async throws -> PeriodAssignment {
        let user = Identity.normalized(userID)
        let ids = expenseIDs.map(Identity.normalized)
        return try await writeTransaction { db in
            var pk: Int64?
            if let period {
                pk = try Int64.fetchOne(db, sql: "SELECT pk FROM periods WHERE user_id = ? AND number = ?", arguments: [user, period])
                guard pk != nil else { return .noSuchPeriod }
            }
            // Another user's expense is reported exactly like one that does not exist.
            let unknown = try String.fetchAll(db, sql: """
                SELECT j.value FROM json_each(?1) AS j
                WHERE NOT EXISTS (SELECT 1 FROM expenses AS e WHERE e.id = j.value AND e.user_id = ?2)
                ORDER BY j.key
                """, arguments: [StoredRows.jsonArray(ids), user])
            guard unknown.isEmpty else { return .unknownExpenses(unknown) }
            var changed = 0, moved = 0
            for id in Set(ids) {
                let before = try Row.fetchOne(db, sql: "SELECT period_id FROM expenses WHERE id = ? AND user_id = ?", arguments: [id, user])
                let old: Int64? = before?[0]
                guard old != pk else { continue }
                try db.execute(sql: "UPDATE expenses SET period_id = ? WHERE id = ? AND user_id = ?", arguments: [pk, id, user])
                changed += 1
                if old != nil && pk != nil { moved += 1 }
            }
            return .done(changed: changed, moved: moved)
        }
    }

    /// The user's periods (or the one numbered `number`), by id, each with its expense count.
    static func fetchPeriods(_ db: Database, user: String, number: Int64?) throws -> [Period] {
        try Row.fetchAll(db, sql: """
            SELECT p.number, p.user_id, p.name, p.start_date, p.end_date,
                (SELECT count(*) FROM expenses AS e WHERE e.period_id = p.pk), p.created_at, p.updated_at
            FROM periods AS p WHERE p.user_id = ?1 AND (?2 IS NULL OR p.number = ?2) ORDER BY p.number
            """, arguments: [user, number]
        ).map { Period(id: $0[0], userID: $0[1], name: $0[2], start: $0[3], end: $0[4], expenses: $0[5], createdAt: $0[6], updatedAt: $0[7]) }
    }
}

extension SpatiaLiteReader: PeriodReader {
    public func period(userID: String, id: Int64) throws -> Period? {
        try SpatiaLiteStore.fetchPeriods(db, user: Identity.normalized(userID), number: id).first
    }

    public func periods(userID: String) throws -> [Period] {
        try SpatiaLiteStore.fetchPeriods(db, user: Identity.normalized(userID), number: nil)
    }
}
