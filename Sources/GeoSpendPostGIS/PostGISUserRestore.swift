import GeoSpend
import PostgresNIO

/// `geospend users import` on PostgreSQL: one transaction under the writers' lock (`editing`),
/// the file's rules (Sources/GeoSpendSpatiaLite/UserRestoreStorage.swift); a failure anywhere
/// rolls every table back. One small function per table.
extension PostGISStore {
    public func restore(_ data: UserRestoreData, as user: String) async throws {
        let data = data.retargeted(to: user)
        try await editing { r in
            try Self.requireEmpty(r, user: user)
            try Self.requireStores(r, data.storeIDs)
            try Self.restoreUser(r, data)
            try Self.restoreSettings(r, data.settings, user: user)
            try Self.restoreNotificationSettings(r, data.notificationSettings, user: user)
            try Self.restoreCategories(r, data.categories, user: user)
            try Self.restoreExpenses(r, data.expenses)
            try Self.restoreExpenseTimes(r, data.expenseTimes, user: user)
            try Self.restorePeriods(r, data.periods, user: user)
            try Self.restorePositions(r, data.positions, user: user)
            try Self.restoreVisits(r, data.visits, user: user)
        }
    }

    /// Refuses a user with a row in any table keyed by user (`userKeyedTables`) but API tokens.
    static func requireEmpty(_ r: PostGISReader, user: String) throws {
        var rows: Int64 = 0
        for table in try userKeyedTables(r) where !UserRestore.credentialTables.contains(table) {
            var query = PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table) WHERE user_id = $1")
            query.binds.append(user)
            rows += try r.rows(query)[0].decode(Int64.self)
        }
        if rows > 0 { throw UserRestoreError.notEmpty(user: user, rows: Int(rows)) }
    }

    static func requireStores(_ r: PostGISReader, _ ids: [String]) throws {
        guard !ids.isEmpty else { return }
        let found = try r.rows("SELECT id FROM stores WHERE id = ANY(\(ids)::text[])").map { try $0.decode(String.self) }
        if let missing = ids.first(where: { !found.contains($0) }) { throw UserRestoreError.unknownStore(id: missing) }
    }

    static func restoreUser(_ r: PostGISReader, _ data: UserRestoreData) throws {
        _ = try r.rows("""
            INSERT INTO users (id, display_name, email, created_at) VALUES (\(data.userID), \(data.displayName), \(data.email), \(data.createdAt))
            ON CONFLICT (id) DO UPDATE SET display_name = EXCLUDED.display_name, email = EXCLUDED.email, created_at = EXCLUDED.created_at
            """)
    }

    static func restoreSettings(_ r: PostGISReader, _ s: UserSettings, user: String) throws {
        guard !s.isDefault else { return }
        let days = s.positionRetentionDays.map(Int64.init)
        _ = try r.rows("INSERT INTO user_settings (user_id, time_zone, position_retention_days) VALUES (\(user), \(s.timeZone), \(days))")
    }

    static func restoreNotificationSettings(_ r: PostGISReader, _ s: NotificationSettings, user: String) throws {
        guard !s.isDefault else { return }
        let start = s.quietHours.map { Int64($0.startMinute) }, end = s.quietHours.map { Int64($0.endMinute) }
        _ = try r.rows("""
            INSERT INTO notification_settings (user_id, events, quiet_start, quiet_end, reminder_lead_minutes)
            VALUES (\(user), \(s.events.joined(separator: ",")), \(start), \(end), \(Int64(s.reminderLeadMinutes)))
            """)
    }

    static func restoreCategories(_ r: PostGISReader, _ categories: [RestoredCategory], user: String) throws {
        for c in categories {
            _ = try r.rows("""
                INSERT INTO categories (user_id, kind, name, icon, color, is_default, is_active)
                VALUES (\(user), \(c.category.kind.rawValue), \(c.category.name), \(c.icon), \(c.color), \(c.isDefault), \(c.isActive))
                """)
        }
    }

    /// Through the import's writer: the same checks, hash, geometry and rollups as an import's.
    static func restoreExpenses(_ r: PostGISReader, _ expenses: [Expense]) throws {
        guard !expenses.isEmpty else { return }
        let writer = PostGISWriter(connection: r.connection, logger: r.logger)
        let outcomes = try writer.insert(expenses.map { HashedRow($0, contentHash: $0.contentHash) })
        try writer.finish()
        for (n, outcome) in outcomes.enumerated() {
            if case .rejected(let rejection) = outcome {
                throw UserRestoreError.invalid(path: "expenses[\(n)].\(rejection.column)", reason: rejection.reason)
            }
        }
    }

    static func restoreExpenseTimes(_ r: PostGISReader, _ times: [ExpenseTimes], user: String) throws {
        for t in times {
            let remind = try t.remindAt.map { try Timestamp(parsing: $0).epochMilliseconds }
            _ = try r.rows("""
                UPDATE expenses SET remind_at = \(t.remindAt), remind_ms = \(remind), created_at = \(t.createdAt), updated_at = \(t.updatedAt),
                    position_source = \(t.positionSource?.rawValue), position_confidence = \(t.positionConfidence), store_inferred = \(t.storeInferred)
                WHERE user_id = \(user) AND id = \(t.id)
                """)
        }
    }

    /// Periods keep their exported ids; the counter resumes after the largest.
    static func restorePeriods(_ r: PostGISReader, _ periods: [RestoredPeriod], user: String) throws {
        for p in periods {
            let pk = try r.rows("""
                INSERT INTO periods (user_id, number, name, start_date, end_date) VALUES (\(user), \(p.number), \(p.name), \(p.start), \(p.end))
                RETURNING pk
                """)[0].decode(Int64.self)
            _ = try r.rows("UPDATE expenses SET period_id = \(pk) WHERE user_id = \(user) AND id = ANY(\(p.expenseIDs)::text[])")
        }
        if let last = periods.map(\.number).max() {
            _ = try r.rows("INSERT INTO period_numbers (user_id, last) VALUES (\(user), \(last))")
        }
    }

    static func restorePositions(_ r: PostGISReader, _ positions: [Position], user: String) throws {
        _ = try add(
            positions, to: "positions", user: user, r, span: ("t_ms", span(positions.map(\.epochMilliseconds))),
            columns: [("t_ms", "bigint"), ("lat", "double precision"), ("lon", "double precision"), ("source", "text"), ("accuracy_m", "double precision")],
            sameKey: { _, _ in false }
        ) { text, p in
            text.integer(p.epochMilliseconds); text.double(p.coordinate.latitude); text.double(p.coordinate.longitude)
            text.text(p.source.rawValue); text.double(p.accuracyMeters)
        }
    }

    static func restoreVisits(_ r: PostGISReader, _ visits: [Visit], user: String) throws {
        _ = try add(
            visits, to: "visits", user: user, r, span: ("start_ms", span(visits.map(\.startEpochMilliseconds))),
            columns: [
                ("start_ms", "bigint"), ("end_ms", "bigint"), ("lat", "double precision"), ("lon", "double precision"), ("source", "text"),
                ("radius_m", "double precision"), ("place_name", "text"), ("place_id", "text"), ("probability", "double precision"),
            ],
            sameKey: { _, _ in false }
        ) { text, v in
            text.integer(v.startEpochMilliseconds); text.integer(v.endEpochMilliseconds); text.double(v.centre.latitude)
            text.double(v.centre.longitude); text.text(v.source?.rawValue); text.double(v.radiusMeters); text.text(v.placeName)
            text.text(v.placeID); text.double(v.probability)
        }
    }
}
