import GeoSpend
import PostgresNIO

/// Budgets on PostgreSQL (migration v3), with the file's rules and orders
/// (Sources/GeoSpendSpatiaLite/BudgetStorage.swift). The overlap rule is the core's
/// (`BudgetRules.deactivated(by:among:)`), applied in the save's transaction.
extension PostGISStore: BudgetStore {
    public func saveBudget(_ budget: Budget) async throws -> (budget: Budget, deactivated: [Int64])? {
        try await editing { r in
            var saved = budget
            if budget.id != 0 {
                guard let old = try Self.fetchBudgets(r, userID: budget.userID, number: budget.id, activeOnly: false).first else { return nil }
                saved.createdAt = old.createdAt
            } else {
                saved.createdAt = try r.rows("SELECT \(unescaped: Self.nowSecondsSQL)")[0].decode(String.self)
            }
            let active = try Self.fetchBudgets(r, userID: budget.userID, number: nil, activeOnly: true)
            let deactivated = BudgetRules.deactivated(by: saved, among: active)
            var zoneLat: Double?, zoneLon: Double?, radius: Double?, geoJSON: String?
            switch saved.zone {
            case .circle(let c, let m)?: (zoneLat, zoneLon, radius) = (c.latitude, c.longitude, m.meters)
            case .polygon(let text)?: geoJSON = text
            case nil: break
            }
            let thresholds = BudgetThresholds.text(saved.thresholds)
            let pk: Int64
            if saved.id == 0 {
                saved.id = try Self.nextNumber(r, counter: "budget_numbers", user: saved.userID)
                pk = try r.rows("""
                    INSERT INTO budgets (user_id, number, name, amount_minor, currency, from_date, to_date, category, every,
                        zone_lat, zone_lon, zone_radius_m, zone_geojson, is_active, created_at, thresholds)
                    VALUES (\(saved.userID), \(saved.id), \(saved.name), \(saved.amount.minorUnits), \(saved.amount.currency.code),
                        \("\(saved.from)"), \("\(saved.to)"), \(saved.category), \(saved.every?.rawValue),
                        \(zoneLat), \(zoneLon), \(radius), \(geoJSON), \(saved.isActive), \(saved.createdAt), \(thresholds))
                    RETURNING pk
                    """)[0].decode(Int64.self)
            } else {
                pk = try r.rows("""
                    UPDATE budgets SET name = \(saved.name), amount_minor = \(saved.amount.minorUnits),
                        currency = \(saved.amount.currency.code), from_date = \("\(saved.from)"), to_date = \("\(saved.to)"),
                        category = \(saved.category), every = \(saved.every?.rawValue), zone_lat = \(zoneLat), zone_lon = \(zoneLon),
                        zone_radius_m = \(radius), zone_geojson = \(geoJSON), is_active = \(saved.isActive), created_at = \(saved.createdAt),
                        thresholds = \(thresholds)
                    WHERE user_id = \(saved.userID) AND number = \(saved.id)
                    RETURNING pk
                    """)[0].decode(Int64.self)
                _ = try r.rows("DELETE FROM budget_category_limits WHERE user_id = \(saved.userID) AND budget_id = \(pk)")
            }
            if !saved.categoryLimits.isEmpty {
                _ = try r.rows("""
                    INSERT INTO budget_category_limits (budget_id, user_id, category, amount_minor)
                    SELECT \(pk), \(saved.userID), l.c, l.a
                    FROM unnest(\(saved.categoryLimits.map(\.category))::text[], \(saved.categoryLimits.map(\.amount.minorUnits))::bigint[]) AS l(c, a)
                    """)
            }
            if !deactivated.isEmpty {
                _ = try r.rows("UPDATE budgets SET is_active = false WHERE user_id = \(saved.userID) AND number = ANY(\(deactivated))")
            }
            return (saved, deactivated)
        }
    }

    public func deleteBudget(id: Int64, userID: String) async throws -> Bool {
        try await editing { r in
            // Its category limits go with it (ON DELETE CASCADE).
            !(try r.rows("DELETE FROM budgets WHERE user_id = \(userID) AND number = \(id) RETURNING 1")).isEmpty
        }
    }

    /// The user's expenses of kind `expense` on local days `from…to`, in the caller's transaction.
    static func budgetExpenses(_ r: PostGISReader, userID: String, from: LocalDay, to: LocalDay) throws -> [BudgetExpense] {
        // local_date (the day at the recorded offset) decides, compared by bytes as on the file.
        try r.rows(#"""
            SELECT e.amount_minor, e.currency, e.local_date, c.name, e.lat, e.lon, e.id
            FROM expenses AS e LEFT JOIN categories AS c ON c.id = e.category_id
            WHERE e.user_id = \#(userID) AND e.kind = 'expense'
                AND e.local_date COLLATE "C" BETWEEN \#("\(from)") AND \#("\(to)")
            ORDER BY e.id
            """#).map { row in
            let (amount, currency, day, category, lat, lon, _) = try row.decode((Int64, String, String, String?, Double?, Double?, String).self)
            return BudgetExpense(
                amountMinor: amount, currency: currency, day: try LocalDay(parsing: day), category: category,
                coordinate: lat.flatMap { la in lon.map { Coordinate(uncheckedLatitude: la, longitude: $0) } })
        }
    }

    /// The user's budgets (or the one numbered `number`): active first, newest `from` first,
    /// then newest id; each with its category limits in byte order.
    static func fetchBudgets(_ r: PostGISReader, userID: String, number: Int64?, activeOnly: Bool) throws -> [Budget] {
        var w = PostGISFilter()
        w.add("b.user_id = \(w.bind(userID))")
        if let number { w.add("b.number = \(w.bind(number))") }
        if activeOnly { w.add("b.is_active") }
        let rows = try r.rows(w.query("""
            SELECT b.number, b.user_id, b.name, b.amount_minor, b.currency, b.from_date, b.to_date, b.category, b.every,
                b.zone_lat, b.zone_lon, b.zone_radius_m, b.zone_geojson, b.is_active, b.created_at, b.pk, b.thresholds
            FROM budgets AS b
            """, suffix: "ORDER BY b.is_active DESC, b.from_date DESC, b.number DESC"))
        return try rows.map { row in
            let x = row.makeRandomAccess()
            let currency = try Currency(code: try x[4].decode(String.self))
            let pk = try x[15].decode(Int64.self)
            let limits = try r.rows("""
                SELECT category, amount_minor FROM budget_category_limits WHERE user_id = \(userID) AND budget_id = \(pk) ORDER BY category
                """).map { l in
                let (category, minor) = try l.decode((String, Int64).self)
                return Budget.CategoryLimit(category: category, amount: Money(minorUnits: minor, currency: currency))
            }
            var zone: BudgetZone?
            if let lat = try x[9].decode(Double?.self), let lon = try x[10].decode(Double?.self), let radius = try x[11].decode(Double?.self) {
                zone = .circle(center: Coordinate(uncheckedLatitude: lat, longitude: lon), radius: .meters(radius))
            } else if let text = try x[12].decode(String?.self) {
                zone = .polygon(geoJSON: text)
            }
            let thresholdText = try x[16].decode(String.self)
            guard let thresholds = BudgetThresholds.stored(thresholdText) else {
                // Only a change made outside GeoSpend gets past the writers' check.
                throw ValueError.invalidValue(thresholdText, reason: "(budget \(try x[0].decode(Int64.self))'s stored thresholds) is not a list like 80,100")
            }
            return Budget(
                id: try x[0].decode(Int64.self), userID: try x[1].decode(String.self), name: try x[2].decode(String.self),
                amount: Money(minorUnits: try x[3].decode(Int64.self), currency: currency),
                from: try LocalDay(parsing: try x[5].decode(String.self)), to: try LocalDay(parsing: try x[6].decode(String.self)),
                category: try x[7].decode(String?.self), every: try x[8].decode(String?.self).flatMap(Budget.Recurrence.init(rawValue:)),
                categoryLimits: limits, zone: zone, isActive: try x[13].decode(Bool.self), createdAt: try x[14].decode(String.self),
                thresholds: thresholds)
        }
    }
}

extension PostGISReader: BudgetReader {
    func budget(id: Int64, userID: String) throws -> Budget? {
        try PostGISStore.fetchBudgets(self, userID: userID, number: id, activeOnly: false).first
    }

    func budgets(userID: String, includeInactive: Bool) throws -> [Budget] {
        try PostGISStore.fetchBudgets(self, userID: userID, number: nil, activeOnly: !includeInactive)
    }

    func budgetExpenses(userID: String, from: LocalDay, to: LocalDay) throws -> [BudgetExpense] {
        try PostGISStore.budgetExpenses(self, userID: userID, from: from, to: to)
    }
}
