import GeoSpend
import GRDB

/// `geospend users import` on the file: one `BEGIN IMMEDIATE` transaction (the bulk writer's,
/// so expenses reach the spatial index and map rollups as an import's do); a failure anywhere
/// rolls every table back. One small function per table: a new per-user table adds its own
/// and a line in `restore` (docs/ARCHITECTURE.md).
extension SpatiaLiteStore {
    public func restore(_ data: UserRestoreData, as user: String) async throws {
        let data = data.retargeted(to: user)
        try await restore(data)
    }

    /// `restore(_:as:)` for `data.userID`.
    public func restore(_ data: UserRestoreData) async throws {
        _ = try await bulkWrite { writer, db in
            let user = data.userID
            try Self.requireEmpty(db, user: user)
            try Self.requireStores(db, data.storeIDs)
            try Self.restoreUser(db, data)
            try Self.restoreSettings(db, data.settings, user: user)
            try Self.restoreNotificationSettings(db, data.notificationSettings, user: user)
            try Self.restoreCategories(db, data.categories, user: user)
            try Self.restoreExpenses(writer, data.expenses)
            try Self.restoreExpenseTimes(db, data.expenseTimes, user: user)
            try Self.restorePeriods(db, data.periods, user: user)
            try Self.restorePositions(db, data.positions, user: user)
            try Self.restoreVisits(db, data.visits, user: user)
            try Self.restoreBudgets(db, data.budgets, user: user)
            try Self.restoreRecurring(db, data.recurring, user: user)
            try Self.restorePantry(db, data.pantry, user: user)
            try Self.restoreStoreChoices(db, data.storeChoices, user: user)  // before the price records that name them
            try Self.restoreShared(db, data, user: user)  // products … community: UserRestoreStorage+Shared.swift
            // Restored history is not news: no budget events (PostgreSQL raises none either).
            writer.touched = TouchedDays()
            return true
        }
    }

    /// Refuses a user who has a row in any table keyed by user (`userKeyedTables`, the ones
    /// `users delete` empties) but API tokens (`UserRestore.credentialTables`) and untouched
    /// default categories (`UserRestore.untouchedDefaultCategory`): what a new user holds.
    static func requireEmpty(_ db: Database, user: String) throws {
        var rows = 0
        for (table, column) in try userKeyedTables(db) where !UserRestore.credentialTables.contains(table) {
            let more = table == "categories" ? " AND NOT (\(UserRestore.untouchedDefaultCategory))" : ""
            rows += try Int.fetchOne(
                db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier) WHERE \(column.quotedDatabaseIdentifier) = ?\(more)",
                arguments: [user]) ?? 0
        }
        if rows > 0 { throw UserRestoreError.notEmpty(user: user, rows: rows) }
    }

    /// Stores are shared: the export's must be here already.
    static func requireStores(_ db: Database, _ ids: [String]) throws {
        for id in ids where try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM stores WHERE id = ?)", arguments: [id]) != true {
            throw UserRestoreError.unknownStore(id: id)
        }
    }

    static func restoreUser(_ db: Database, _ data: UserRestoreData) throws {
        try db.execute(
            sql: """
                INSERT INTO users (id, display_name, email, created_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (id) DO UPDATE SET display_name = ?2, email = ?3, created_at = ?4
                """,
            arguments: [data.userID, data.displayName, data.email, data.createdAt])
    }

    static func restoreSettings(_ db: Database, _ s: UserSettings, user: String) throws {
        guard !s.isDefault else { return }
        try db.execute(
            sql: "INSERT INTO user_settings (user_id, time_zone, position_retention_days) VALUES (?, ?, ?)",
            arguments: [user, s.timeZone, s.positionRetentionDays])
    }

    static func restoreNotificationSettings(_ db: Database, _ s: NotificationSettings, user: String) throws {
        guard !s.isDefault else { return }
        try db.execute(
            sql: "INSERT INTO notification_settings (user_id, events, quiet_start, quiet_end, reminder_lead_minutes) VALUES (?, ?, ?, ?, ?)",
            arguments: [user, s.events.joined(separator: ","), s.quietHours?.startMinute, s.quietHours?.endMinute, s.reminderLeadMinutes])
    }

    /// The exported categories replace the defaults a new user was given.
    static func restoreCategories(_ db: Database, _ categories: [RestoredCategory], user: String) throws {
        try db.execute(sql: "DELETE FROM categories WHERE user_id = ?", arguments: [user])
        for c in categories {
            try db.execute(
                sql: """
                    INSERT INTO categories (user_id, kind, name, icon, color, is_default, is_active, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [user, c.category.kind.rawValue, c.category.name, c.icon, c.color, c.isDefault, c.isActive, c.createdAt, c.updatedAt])
        }
    }

    /// Through the import's writer: derived columns, spatial index and map rollups as an import's.
    static func restoreExpenses(_ writer: SpatiaLiteBulkWriter, _ expenses: [Expense]) throws {
        for (n, e) in expenses.enumerated() {
            do { _ = try writer.insert(e) } catch let rejection as RowRejection {
                throw UserRestoreError.invalid(path: "expenses[\(n)].\(rejection.column)", reason: rejection.reason)
            }
        }
    }

    static func restoreExpenseTimes(_ db: Database, _ times: [ExpenseTimes], user: String) throws {
        for t in times {
            let remind = try t.remindAt.map { try Timestamp(parsing: $0) }
            try db.execute(
                sql: """
                    UPDATE expenses SET remind_at = ?, remind_ms = ?, created_at = ?, updated_at = ?, position_source = ?,
                        position_confidence = ?, store_inferred = ?
                    WHERE user_id = ? AND id = ?
                    """,
                arguments: [
                    t.remindAt, remind?.epochMilliseconds, t.createdAt, t.updatedAt, t.positionSource?.rawValue, t.positionConfidence,
                    t.storeInferred, user, t.id,
                ])
        }
    }

    /// Periods keep their exported ids; the counter resumes after the largest.
    static func restorePeriods(_ db: Database, _ periods: [RestoredPeriod], user: String) throws {
        for p in periods {
            try db.execute(
                sql: "INSERT INTO periods (user_id, number, name, start_date, end_date, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [user, p.number, p.name, p.start, p.end, p.createdAt, p.updatedAt])
            let pk = db.lastInsertedRowID
            for id in p.expenseIDs {
                try db.execute(sql: "UPDATE expenses SET period_id = ? WHERE user_id = ? AND id = ?", arguments: [pk, user, id])
            }
        }
        try restoreCounter(db, "period_numbers", periods.map(\.number), user: user)
    }

    static func restorePositions(_ db: Database, _ positions: [Position], user: String) throws {
        let s = try db.cachedStatement(sql: "INSERT INTO positions (user_id, t_ms, lat, lon, source, accuracy_m) VALUES (?, ?, ?, ?, ?, ?)")
        for p in positions {
            try s.execute(arguments: [user, p.epochMilliseconds, p.coordinate.latitude, p.coordinate.longitude, p.source.rawValue, p.accuracyMeters])
        }
    }

    static func restoreVisits(_ db: Database, _ visits: [Visit], user: String) throws {
        for v in visits {
            try db.execute(
                sql: """
                    INSERT INTO visits (user_id, start_ms, end_ms, lat, lon, source, radius_m, place_name, place_id, probability)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    user, v.startEpochMilliseconds, v.endEpochMilliseconds, v.centre.latitude, v.centre.longitude, v.source?.rawValue,
                    v.radiusMeters, v.placeName, v.placeID, v.probability,
                ])
        }
    }

    /// Sets a per-user counter (`UserNumbers`) to the largest restored id, so the next is new.
    /// (A deleted id above it is not in the export: it may be given again.)
    static func restoreCounter(_ db: Database, _ counter: String, _ numbers: [Int64], user: String) throws {
        guard let last = numbers.max() else { return }
        try db.execute(sql: "INSERT INTO \(counter) (user_id, last) VALUES (?, ?)", arguments: [user, last])
    }

    static func restoreBudgets(_ db: Database, _ budgets: [Budget], user: String) throws {
        for b in budgets {
            var zoneLat: Double?, zoneLon: Double?, radius: Double?, geoJSON: String?
            switch b.zone {
            case .circle(let c, let r)?: (zoneLat, zoneLon, radius) = (c.latitude, c.longitude, r.meters)
            case .polygon(let text)?: geoJSON = text
            case nil: break
            }
            try db.execute(
                sql: """
                    INSERT INTO budgets (user_id, number, name, amount_minor, currency, from_date, to_date, category, every,
                        zone_lat, zone_lon, zone_radius_m, zone_geojson, is_active, created_at, thresholds)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    user, b.id, b.name, b.amount.minorUnits, b.amount.currency.code, "\(b.from)", "\(b.to)", b.category, b.every?.rawValue,
                    zoneLat, zoneLon, radius, geoJSON, b.isActive, b.createdAt, BudgetThresholds.text(b.thresholds),
                ])
            let pk = db.lastInsertedRowID
            for limit in b.categoryLimits {
                try db.execute(
                    sql: "INSERT INTO budget_category_limits (budget_id, user_id, category, amount_minor) VALUES (?, ?, ?, ?)",
                    arguments: [pk, user, limit.category, limit.amount.minorUnits])
            }
        }
        try restoreCounter(db, "budget_numbers", budgets.map(\.id), user: user)
    }

    static func restoreRecurring(_ db: Database, _ rules: [RestoredRecurringRule], user: String) throws {
        for r in rules {
            try db.execute(
                sql: """
                    INSERT INTO recurring_rules (user_id, number, kind, amount_minor, currency, title, category, merchant, store_id, notes,
                        every, anchor_date, until_date, next_due, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    user, r.number, r.kind.rawValue, r.amount.minorUnits, r.amount.currency.code, r.title, r.category, r.merchant, r.storeID,
                    r.notes, r.every, r.from, r.until, r.nextDue, r.createdAt, r.updatedAt,
                ])
        }
        try restoreCounter(db, "recurring_numbers", rules.map(\.number), user: user)
    }

    static func restorePantry(_ db: Database, _ items: [RestoredPantryItem], user: String) throws {
        for i in items {
            try db.execute(
                sql: """
                    INSERT INTO pantry_items (user_id, number, name, quantity, expires, status, created_at, closed_at, source, purchase_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [user, i.number, i.name, i.quantity, i.expires, i.status, i.createdAt, i.closedAt, i.source, i.purchase])
        }
        try restoreCounter(db, "pantry_numbers", items.map(\.number), user: user)
    }

    /// Added stores with their numbers and times, then the favourite and default ids as chosen.
    static func restoreStoreChoices(_ db: Database, _ c: StoreChoiceRecord, user: String) throws {
        for e in c.added {
            try db.execute(
                sql: "INSERT INTO user_stores (user_id, number, name, kind, region, lat, lon, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    user, AddedStoreID.number(e.id), e.store.name, e.store.kind, e.region, e.store.coordinate.latitude,
                    e.store.coordinate.longitude, e.createdAt,
                ])
        }
        try restoreCounter(db, "user_store_numbers", c.added.compactMap { AddedStoreID.number($0.id) }, user: user)
        for id in c.favouriteIDs {
            try db.execute(sql: "INSERT INTO store_favourites (user_id, store_id) VALUES (?, ?)", arguments: [user, id])
        }
        if let id = c.defaultID {
            try db.execute(sql: "INSERT INTO default_stores (user_id, store_id) VALUES (?, ?)", arguments: [user, id])
        }
    }
}
