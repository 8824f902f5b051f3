/// The JSON shapes of budgets, their summaries and alerts (documented in README "Budgets").
public enum BudgetJSON {
    /// `{"id":1,"user":…,"name":…,"amount":"500.00","currency":"EUR","from":…,"to":…,"category":…,
    /// "every":…,"category_limits":[{"category":"Food","amount":"200.00"}],"zone":…,"active":true,
    /// "thresholds":[80,100],"created_at":…}`; `zone` is null, `{"type":"circle","lat":…,"lon":…,"radius_m":…}` or
    /// `{"type":"polygon","geometry":{"type":"MultiPolygon","coordinates":…}}`.
    public static func budget(_ b: Budget) -> JSONOutput {
        .object([
            ("id", .integer(b.id)), ("user", .string(b.userID)), ("name", .string(b.name)),
            ("amount", .string(b.amount.decimalString)), ("currency", .string(b.amount.currency.code)),
            ("from", .string("\(b.from)")), ("to", .string("\(b.to)")), ("category", .text(b.category)),
            ("every", .text(b.every?.rawValue)),
            ("category_limits", .array(b.categoryLimits.map { .object([("category", .string($0.category)), ("amount", .string($0.amount.decimalString))]) })),
            ("zone", zone(b.zone)), ("active", .bool(b.isActive)), ("thresholds", .array(b.thresholds.map { .integer($0) })),
            ("created_at", .string(b.createdAt)),
        ])
    }

    /// Coordinates to 10 decimals (≈ 0.01 mm): the digits a zone is given with.
    public static func zone(_ z: BudgetZone?) -> JSONOutput {
        switch z {
        case nil: return .null
        case .circle(let c, let r)?:
            return .object([("type", .string("circle")), ("lat", .number(c.latitude, decimals: 10)), ("lon", .number(c.longitude, decimals: 10)), ("radius_m", .meters(r.meters))])
        case .polygon?:
            let coordinates = JSONOutput.array(z!.polygons.map { p in
                .array(p.map { r in .array(r.map { .array([.number($0.lon, decimals: 10), .number($0.lat, decimals: 10)]) }) })
            })
            return .object([("type", .string("polygon")), ("geometry", .object([("type", .string("MultiPolygon")), ("coordinates", coordinates)]))])
        }
    }

    /// Hundredths as a JSON number with two decimals at most (85.5 is 85.50).
    public static func percentage(_ hundredths: Int64) -> JSONOutput { .number(Double(hundredths) / 100, decimals: 2) }

    static func money(_ minor: Int64, _ c: Currency) -> JSONOutput { .string(Money.decimalString(minor, digits: c.minorDigits)) }

    public static func summary(_ s: BudgetSummary) -> JSONOutput {
        let c = s.budget.amount.currency
        return .object([
            ("budget_id", .integer(s.budget.id)), ("name", .string(s.budget.name)), ("currency", .string(c.code)),
            ("amount", .string(s.budget.amount.decimalString)), ("as_of", .string("\(s.asOf)")),
            ("window_from", .string("\(s.window.lowerBound)")), ("window_to", .string("\(s.window.upperBound)")),
            ("spent", money(s.spentMinor, c)), ("remaining", money(s.remainingMinor, c)),
            ("percentage_used", percentage(s.percentageHundredths)), ("expenses", .integer(Int64(s.count))),
            ("by_category", .array(s.byCategory.map { line in
                .object([
                    ("category", .text(line.category)), ("spent", money(line.spentMinor, c)),
                    ("limit", line.limit.map { .string($0.decimalString) } ?? .null),
                    ("percentage_used", line.percentageHundredths.map(percentage) ?? .null),
                ])
            })),
            ("days_passed", .integer(s.daysPassed)), ("total_days", .integer(s.totalDays)), ("days_remaining", .integer(s.daysRemaining)),
            ("daily_average", money(s.dailyAverageMinor, c)), ("projected_total", money(s.projectedTotalMinor, c)),
            ("on_track", .bool(s.onTrack)),
            ("not_counted", .array(s.notCounted.map { t in
                .object([("currency", .string(t.currency.code)), ("expenses", .integer(Int64(t.count))), ("total", .string(t.total.decimalString))])
            })),
            ("zone", zone(s.budget.zone)),
        ])
    }

    public static func alert(_ a: BudgetAlert) -> JSONOutput {
        .object([
            ("budget_id", .integer(a.summary.budget.id)), ("name", .string(a.summary.budget.name)),
            ("percentage_used", percentage(a.summary.percentageHundredths)), ("level", .string(a.level.rawValue)),
            ("message", .string(a.message)),
        ])
    }
}
