import GeoSpend
import GRDB

/// Budgets in the `budgets` and `budget_category_limits` tables (migration v7), keyed by user.
/// A zone is kept as its centre and radius, or as GeoJSON text: budgets test a handful of
/// zones against a user's expenses in Swift (`BudgetZone.Matcher`), so no SpatiaLite geometry
/// column or spatial index is needed, and nothing of a zone lives outside these rows.
/// A budget's `id` is its `number`, the user's own count (`UserNumbers`); `pk` stays inside.
extension SpatiaLiteStore: BudgetStore {
    public func saveBudget(_ budget: Budget) async throws -> (budget: Budget, deactivated: [Int64])? {
        try await writeTransaction { db in
            var saved = budget
            if budget.id != 0 {
                guard let old = try Self.fetchBudgets(db, where: "b.user_id = ? AND b.number = ?", [budget.userID, budget.id]).first else { return nil }
                saved.createdAt = old.createdAt
            } else {
                saved.createdAt = try String.fetchOne(db, sql: "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', 'now')") ?? ""
            }
            let active = try Self.fetchBudgets(db, where: "b.user_id = ? AND b.is_active = 1", [budget.userID])
            let deactivated = BudgetRules.deactivated(by: saved, among: active)
            var zoneLat: Double?, zoneLon: Double?, radius: Double?, geoJSON: String?
            switch saved.zone {
            case .circle(let c, let r)?: (zoneLat, zoneLon, radius) = (c.latitude, c.longitude, r.meters)
            case .polygon(let text)?: geoJSON = text
            case nil: break
            }
            let values: [(any DatabaseValueConvertible)?] = [
                saved.userID, saved.name, saved.amount.minorUnits, saved.amount.currency.code, "\(saved.from)", "\(saved.to)",
                saved.category, saved.every?.rawValue, zoneLat, zoneLon, radius, geoJSON, saved.isActive, saved.createdAt,
                BudgetThresholds.text(saved.thresholds),
            ]
            let pk: Int64
            if saved.id == 0 {
                saved.id = try UserNumbers.next(db, counter: "budget_numbers", user: saved.userID)
                try db.execute(sql: """
                    INSERT INTO budgets (user_id, name, amount_minor, currency, from_date, to_date, category, every,
                        zone_lat, zone_lon, zone_radius_m, zone_geojson, is_active, created_at, thresholds, number)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: StatementArguments(values + [saved.id]))
                pk = db.lastInsertedRowID
            } else {
                try db.execute(sql: """
                    UPDATE budgets SET user_id = ?, name = ?, amount_minor = ?, currency = ?, from_date = ?, to_date = ?,
                        category = ?, every = ?, zone_lat = ?, zone_lon = ?, zone_radius_m = ?, zone_geojson = ?,
                        is_active = ?, created_at = ?, thresholds = ?
                    WHERE user_id = ? AND number = ?
                    """, arguments: StatementArguments(values + [saved.userID, saved.id]))
                pk = try Int64.fetchOne(db, sql: "SELECT pk FROM budgets WHERE user_id = ? AND number = ?", arguments: [saved.userID, saved.id])!
                try db.execute(sql: "DELETE FROM budget_category_limits WHERE budget_id = ?", arguments: [pk])
            }
            for limit in saved.categoryLimits {
                try db.execute(
                    sql: "INSERT INTO budget_category_limits (budget_id, user_id, category, amount_minor) VALUES (?, ?, ?, ?)",
                    arguments: [pk, saved.userID, limit.category, limit.amount.minorUnits])
            }
            for id in deactivated {
                try db.execute(sql: "UPDATE budgets SET is_active = 0 WHERE number = ? AND user_id = ?", arguments: [id, saved.userID])
            }
            return (saved, deactivated)
        }
    }

    public func deleteBudget(id: Int64, userID: String) async throws -> Bool {
        try await writeTransaction { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            guard let pk = try Int64.fetchOne(db, sql: "SELECT pk FROM budgets WHERE user_id = ? AND number = ?", arguments: [userID, id])
            else { return false }
            try db.execute(sql: "DELETE FROM budget_category_limits WHERE budget_id = ?", arguments: [pk])
            try db.execute(sql: "DELETE FROM budgets WHERE pk = ?", arguments: [pk])
            return true
        }
    }

    /// The user's expenses of kind `expense` on local days `from…to`, in the caller's transaction.
    static func budgetExpenses(_ db: Database, path: String, userID: String, from: LocalDay, to: LocalDay) throws -> [BudgetExpense] {
            // expenses_user_time narrows to the user; local_date (the day at the recorded offset) decides.
            try Row.fetchAll(db, sql: """
                SELECT e.amount_minor, e.currency, e.local_date, c.name, e.lat, e.lon, e.id
                FROM expenses AS e LEFT JOIN categories AS c ON c.id = e.category_id
                WHERE e.user_id = ? AND e.kind = 'expense' AND e.local_date BETWEEN ? AND ?
                ORDER BY e.id
                """, arguments: [userID, "\(from)", "\(to)"]).map { r in
                // A day that does not parse (BETWEEN compares text) is damage, not an expense to skip:
                // a summary without it would be wrong without saying so.
                let text: String = r[2]
                guard let day = try? LocalDay(parsing: text) else {
                    let id: String = r[6]
                    throw StoreError.damaged(
                        path: path, reason: "expense \"\(OutputEscaping.visible(id))\" has local_date \"\(OutputEscaping.visible(text))\", not a day YYYY-MM-DD")
                }
                let lat: Double? = r[4], lon: Double? = r[5]
                return BudgetExpense(
                    amountMinor: r[0], currency: r[1], day: day, category: r[3],
                    coordinate: lat.flatMap { la in lon.map { Coordinate(uncheckedLatitude: la, longitude: $0) } })
            }
    }

    /// Budgets matching `condition` (on alias `b`), active first, newest `from` first, then newest id.
    static func fetchBudgets(_ db: Database, where condition: String, _ arguments: [any DatabaseValueConvertible]) throws -> [Budget] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT b.number, b.user_id, b.name, b.amount_minor, b.currency, b.from_date, b.to_date, b.category, b.every,
                b.zone_lat, b.zone_lon, b.zone_radius_m, b.zone_geojson, b.is_active, b.created_at, b.pk, b.thresholds
            FROM budgets AS b WHERE \(condition)
            ORDER BY b.is_active DESC, b.from_date DESC, b.number DESC
            """, arguments: StatementArguments(arguments))
        return try rows.map { r in
            let currency = try Currency(code: r[4])
            let id: Int64 = r[0], pk: Int64 = r[15]
            let limits = try Row.fetchAll(
                db, sql: "SELECT category, amount_minor FROM budget_category_limits WHERE budget_id = ? ORDER BY category", arguments: [pk]
            ).map { Budget.CategoryLimit(category: $0[0], amount: Money(minorUnits: $0[1], currency: currency)) }
            var zone: BudgetZone?
            if let lat: Double = r[9], let lon: Double = r[10], let radius: Double = r[11] {
                zone = .circle(center: Coordinate(uncheckedLatitude: lat, longitude: lon), radius: .meters(radius))
            } else if let text: String = r[12] {
                zone = .polygon(geoJSON: text)
            }
            let thresholdText: String = r[16]
            guard let thresholds = BudgetThresholds.stored(thresholdText) else {
                throw StoreError.damaged(
                    path: mainFile(db), reason: "budget \(id) has thresholds \"\(OutputEscaping.visible(thresholdText))\", not a list like 80,100")
            }
            return Budget(
                id: id, userID: r[1], name: r[2], amount: Money(minorUnits: r[3], currency: currency),
                from: try LocalDay(parsing: r[5]), to: try LocalDay(parsing: r[6]), category: r[7],
                every: (r[8] as String?).flatMap(Budget.Recurrence.init(rawValue:)), categoryLimits: limits, zone: zone,
                isActive: r[13], createdAt: r[14], thresholds: thresholds)
        }
    }

    /// The path of the connection's file, for a damage report from inside a scope.
    static func mainFile(_ db: Database) -> String {
        (try? String.fetchOne(db, sql: "SELECT file FROM pragma_database_list WHERE name = 'main'")) ?? "the database"
    }

    /// A category rename (`categories edit OLD --name NEW`, kind expense) carried to the user's
    /// budgets and category limits that name OLD (letters compared without case, as budgets
    /// match categories), in the rename's transaction: they keep counting the same expenses.
    static func renameBudgetCategory(_ db: Database, userID: String, from old: String, to new: String) throws {
        try db.execute(sql: "UPDATE budgets SET category = ? WHERE user_id = ? AND category = ? COLLATE NOCASE", arguments: [new, userID, old])
        try db.execute(
            sql: "UPDATE budget_category_limits SET category = ? WHERE user_id = ? AND category = ? COLLATE NOCASE", arguments: [new, userID, old])
    }

    /// A deleted category (kind expense) leaves its budgets counting nothing: they are
    /// deactivated, in the deletion's transaction, and stay for `budgets list --all`.
    /// Category limits naming it stay as they are (they count nothing either).
    static func deactivateBudgets(_ db: Database, userID: String, category: String) throws {
        try db.execute(
            sql: "UPDATE budgets SET is_active = 0 WHERE user_id = ? AND category = ? COLLATE NOCASE", arguments: [userID, category])
    }
}

extension SpatiaLiteReader: BudgetReader {
    public func budget(id: Int64, userID: String) throws -> Budget? {
        try SpatiaLiteStore.fetchBudgets(db, where: "b.user_id = ? AND b.number = ?", [userID, id]).first
    }

    public func budgets(userID: String, includeInactive: Bool) throws -> [Budget] {
        try SpatiaLiteStore.fetchBudgets(db, where: includeInactive ? "b.user_id = ?" : "b.user_id = ? AND b.is_active = 1", [userID])
    }

    public func budgetExpenses(userID: String, from: LocalDay, to: LocalDay) throws -> [BudgetExpense] {
        try SpatiaLiteStore.budgetExpenses(db, path: SpatiaLiteStore.mainFile(db), userID: userID, from: from, to: to)
    }
}
