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
            try Self.restoreBudgets(r, data.budgets, user: user)
            try Self.restoreRecurring(r, data.recurring, user: user)
            try Self.restorePantry(r, data.pantry, user: user)
            try Self.restoreStoreChoices(r, data.storeChoices, user: user)  // before the price records that name them
            try Self.restoreShared(r, data, user: user)  // products … community: PostGISUserRestore+Shared.swift
        }
    }

    /// Refuses a user with a row in any table keyed by user (`userKeyedTables`) but API tokens
    /// and untouched default categories (as on the file).
    static func requireEmpty(_ r: PostGISReader, user: String) throws {
        var rows: Int64 = 0
        for table in try userKeyedTables(r) where !UserRestore.credentialTables.contains(table) {
            let more = table == "categories" ? " AND NOT (\(UserRestore.untouchedDefaultCategory))" : ""
            var query = PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table) WHERE user_id = $1\(more)")
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

    /// The exported categories replace the defaults a new user was given.
    static func restoreCategories(_ r: PostGISReader, _ categories: [RestoredCategory], user: String) throws {
        _ = try r.rows("DELETE FROM categories WHERE user_id = \(user)")
        for c in categories {
            _ = try r.rows("""
                INSERT INTO categories (user_id, kind, name, icon, color, is_default, is_active, created_at, updated_at)
                VALUES (\(user), \(c.category.kind.rawValue), \(c.category.name), \(c.icon), \(c.color), \(c.isDefault), \(c.isActive),
                    \(c.createdAt), \(c.updatedAt))
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
                INSERT INTO periods (user_id, number, name, start_date, end_date, created_at, updated_at)
                VALUES (\(user), \(p.number), \(p.name), \(p.start), \(p.end), \(p.createdAt), \(p.updatedAt))
                RETURNING pk
                """)[0].decode(Int64.self)
            _ = try r.rows("UPDATE expenses SET period_id = \(pk) WHERE user_id = \(user) AND id = ANY(\(p.expenseIDs)::text[])")
        }
        try restoreCounter(r, "period_numbers", periods.map(\.number), user: user)
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

    /// Sets a per-user counter to the largest restored id, so the next is new.
    static func restoreCounter(_ r: PostGISReader, _ counter: String, _ numbers: [Int64], user: String) throws {
        guard let last = numbers.max() else { return }
        _ = try r.rows("INSERT INTO \(unescaped: counter) (user_id, last) VALUES (\(user), \(last))")
    }

    static func restoreBudgets(_ r: PostGISReader, _ budgets: [Budget], user: String) throws {
        for b in budgets {
            var zoneLat: Double?, zoneLon: Double?, radius: Double?, geoJSON: String?
            switch b.zone {
            case .circle(let c, let m)?: (zoneLat, zoneLon, radius) = (c.latitude, c.longitude, m.meters)
            case .polygon(let text)?: geoJSON = text
            case nil: break
            }
            let pk = try r.rows("""
                INSERT INTO budgets (user_id, number, name, amount_minor, currency, from_date, to_date, category, every,
                    zone_lat, zone_lon, zone_radius_m, zone_geojson, is_active, created_at, thresholds)
                VALUES (\(user), \(b.id), \(b.name), \(b.amount.minorUnits), \(b.amount.currency.code), \("\(b.from)"), \("\(b.to)"),
                    \(b.category), \(b.every?.rawValue), \(zoneLat), \(zoneLon), \(radius), \(geoJSON), \(b.isActive), \(b.createdAt),
                    \(BudgetThresholds.text(b.thresholds)))
                RETURNING pk
                """)[0].decode(Int64.self)
            if !b.categoryLimits.isEmpty {
                _ = try r.rows("""
                    INSERT INTO budget_category_limits (budget_id, user_id, category, amount_minor)
                    SELECT \(pk), \(user), l.c, l.a
                    FROM unnest(\(b.categoryLimits.map(\.category))::text[], \(b.categoryLimits.map(\.amount.minorUnits))::bigint[]) AS l(c, a)
                    """)
            }
        }
        try restoreCounter(r, "budget_numbers", budgets.map(\.id), user: user)
    }

    static func restoreRecurring(_ r: PostGISReader, _ rules: [RestoredRecurringRule], user: String) throws {
        for x in rules {
            _ = try r.rows("""
                INSERT INTO recurring_rules (user_id, number, kind, amount_minor, currency, title, category, merchant, store_id, notes,
                    every, anchor_date, until_date, next_due, created_at, updated_at)
                VALUES (\(user), \(x.number), \(x.kind.rawValue), \(x.amount.minorUnits), \(x.amount.currency.code), \(x.title), \(x.category),
                    \(x.merchant), \(x.storeID), \(x.notes), \(x.every), \(x.from), \(x.until), \(x.nextDue), \(x.createdAt), \(x.updatedAt))
                """)
        }
        try restoreCounter(r, "recurring_numbers", rules.map(\.number), user: user)
    }

    static func restorePantry(_ r: PostGISReader, _ items: [RestoredPantryItem], user: String) throws {
        for i in items {
            _ = try r.rows("""
                INSERT INTO pantry_items (user_id, number, name, quantity, expires, status, created_at, closed_at, source, purchase_id)
                VALUES (\(user), \(i.number), \(i.name), \(i.quantity), \(i.expires), \(i.status), \(i.createdAt), \(i.closedAt), \(i.source),
                    \(i.purchase))
                """)
        }
        try restoreCounter(r, "pantry_numbers", items.map(\.number), user: user)
    }

    /// Added stores with their numbers and times, then the favourite and default ids as chosen.
    static func restoreStoreChoices(_ r: PostGISReader, _ c: StoreChoiceRecord, user: String) throws {
        for e in c.added {
            _ = try r.rows("""
                INSERT INTO user_stores (user_id, number, name, kind, region, lat, lon, created_at)
                VALUES (\(user), \(AddedStoreID.number(e.id)), \(e.store.name), \(e.store.kind), \(e.region), \(e.store.coordinate.latitude),
                        \(e.store.coordinate.longitude), \(e.createdAt))
                """)
        }
        try restoreCounter(r, "user_store_numbers", c.added.compactMap { AddedStoreID.number($0.id) }, user: user)
        for id in c.favouriteIDs {
            _ = try r.rows("INSERT INTO store_favourites (user_id, store_id) VALUES (\(user), \(id))")
        }
        if let id = c.defaultID {
            _ = try r.rows("INSERT INTO default_stores (user_id, store_id) VALUES (\(user), \(id))")
        }
    }
}
