import GeoSpend
import PostgresNIO

/// Periods on PostgreSQL (migration v2), with the file's rules (Sources/GeoSpendSpatiaLite/Periods.swift):
/// ids numbered per user and never reused, another user's period is "none".
extension PostGISStore: PeriodStore {
    public func addPeriod(userID: String, _ fields: PeriodFields) async throws -> Period {
        let user = Identity.normalized(userID)
        return try await editing { r in
            let number = try Self.nextNumber(r, counter: "period_numbers", user: user)
            _ = try r.rows("""
                INSERT INTO periods (user_id, number, name, start_date, end_date)
                VALUES (\(user), \(number), \(fields.name), \(fields.start.localDate), \(fields.end?.localDate))
                """)
            return try Self.fetchPeriods(r, user: user, number: number)[0]
        }
    }

    public func updatePeriod(userID: String, id: Int64, _ fields: PeriodFields) async throws -> Period? {
        let user = Identity.normalized(userID)
        return try await editing { r in
            let changed = try r.rows("""
                UPDATE periods SET name = \(fields.name), start_date = \(fields.start.localDate), end_date = \(fields.end?.localDate)
                WHERE user_id = \(user) AND number = \(id) RETURNING 1
                """)
            guard !changed.isEmpty else { return nil }
            return try Self.fetchPeriods(r, user: user, number: id).first
        }
    }

    public func deletePeriod(userID: String, id: Int64) async throws -> Int? {
        let user = Identity.normalized(userID)
        return try await editing { r in
            guard let pk = try r.rows("SELECT pk FROM periods WHERE user_id = \(user) AND number = \(id)").first?.decode(Int64.self)
            else { return nil }
            let linked = try r.rows("SELECT count(*) FROM expenses WHERE user_id = \(user) AND period_id = \(pk)")[0].decode(Int64.self)
            _ = try r.rows("DELETE FROM periods WHERE pk = \(pk)")  // ON DELETE SET NULL (period_id) unlinks
            return Int(linked)
        }
    }

    public func assign(userID: String, period: Int64?, expenseIDs: [String]) async throws -> PeriodAssignment {
        let user = Identity.normalized(userID)
        let ids = expenseIDs.map(Identity.normalized)
        return try await editing { r in
            var pk: Int64?
            if let period {
                pk = try r.rows("SELECT pk FROM periods WHERE user_id = \(user) AND number = \(period)").first?.decode(Int64.self)
                guard pk != nil else { return .noSuchPeriod }
            }
            // Another user's expense is reported exactly like one that does not exist.
            let unknown = try r.rows("""
                SELECT j.v FROM unnest(\(ids)::text[]) WITH ORDINALITY AS j(v, n)
                WHERE NOT EXISTS (SELECT 1 FROM expenses AS e WHERE e.id = j.v AND e.user_id = \(user))
                ORDER BY j.n
                """).map { try $0.decode(String.self) }
            guard unknown.isEmpty else { return .unknownExpenses(unknown) }
            var changed = 0, moved = 0
            for id in Set(ids.map(ExactText.init)) {
                let old = try r.rows("SELECT period_id FROM expenses WHERE id = \(id.text) AND user_id = \(user)")[0].decode(Int64?.self)
                guard old != pk else { continue }
                _ = try r.rows("UPDATE expenses SET period_id = \(pk) WHERE id = \(id.text) AND user_id = \(user)")
                changed += 1
                if old != nil && pk != nil { moved += 1 }
            }
            return .done(changed: changed, moved: moved)
        }
    }

    /// The user's periods (or the one numbered `number`), by id, each with its expense count.
    static func fetchPeriods(_ r: PostGISReader, user: String, number: Int64?) throws -> [Period] {
        try r.rows("""
            SELECT p.number, p.user_id, p.name, p.start_date, p.end_date,
                (SELECT count(*) FROM expenses AS e WHERE e.user_id = p.user_id AND e.period_id = p.pk), p.created_at, p.updated_at
            FROM periods AS p WHERE p.user_id = \(user) AND (\(number)::bigint IS NULL OR p.number = \(number)) ORDER BY p.number
            """).map { row in
            let (id, userID, name, start, end, n, created, updated) = try row.decode((Int64, String, String, String, String?, Int64, String?, String?).self)
            return Period(id: id, userID: userID, name: name, start: start, end: end, expenses: Int(n), createdAt: created, updatedAt: updated)
        }
    }
}

extension PostGISReader: PeriodReader {
    func period(userID: String, id: Int64) throws -> Period? {
        try PostGISStore.fetchPeriods(self, user: Identity.normalized(userID), number: id).first
    }

    func periods(userID: String) throws -> [Period] {
        try PostGISStore.fetchPeriods(self, user: Identity.normalized(userID), number: nil)
    }
}
