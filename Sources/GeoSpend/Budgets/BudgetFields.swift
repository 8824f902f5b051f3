import Foundation

/// A budget's fields as a person gives them (`geospend budgets add|edit`, the service's
/// `/api/v1/budgets`), checked with the CLI's words: days, currency, the user's categories and
/// category limits. Also the figures both show: a budget's summary on a day, the saved budget.
public enum BudgetFields {
    public static func day(_ text: String, _ option: String) throws -> LocalDay {
        do { return try LocalDay(parsing: text) } catch { throw UsageError("\(option): \(error)") }
    }

    /// `--as-of` when given, else today in the user's time zone (`users settings --timezone`),
    /// else in `fallback` (the CLI: the machine's zone; the service: UTC), read from the shared
    /// clock that honours `SOURCE_DATE_EPOCH` (`LocalDay.today(in:)`), as `recurring run` does.
    public static func asOf(
        _ text: String?, _ option: String, user: String, store: some UserSettingsStore, else fallback: TimeZone
    ) async throws -> LocalDay {
        if let text { return try day(text, option) }
        return LocalDay.today(in: try await store.timeZone(of: user, else: fallback))
    }

    public static func noBudget(_ id: Int64, _ user: String) -> UsageError {
        UsageError("no budget \(id) of user \"\(OutputEscaping.visible(user))\"; `geospend budgets list --user \(user) --all` lists them")
    }

    /// `--currency`: an ISO 4217 code; lower case gets the upper-case code suggested.
    public static func currency(_ text: String) throws -> Currency {
        do { return try Currency(code: text) } catch {
            let upper = text.uppercased()
            if upper != text, (try? Currency(code: upper)) != nil {
                throw UsageError("--currency \(OutputEscaping.visible(text)): currency codes are in capitals; did you mean \"\(upper)\"?")
            }
            throw error
        }
    }

    /// The user's expense category `typed` names (ASCII letters compared without case, as budgets
    /// match categories), by its stored name: a budget shows and keeps the category as it is named.
    public static func category(_ typed: String, option: String, user: String, store: some CategoryEditing) async throws -> String {
        let names = try await store.categoryDetails(userID: user, includeInactive: true).filter { $0.category.kind == .expense }.map(\.category.name)
        let folded = Identity.asciiLowercased(Identity.normalized(typed))
        if let name = names.first(where: { ExactText(Identity.asciiLowercased($0)) == ExactText(folded) }) { return name }
        let hint = NameChecks.suggestion(for: typed, among: names).map { " (did you mean \"\(OutputEscaping.visible($0))\"?)" } ?? ""
        throw UsageError(
            "\(option) \(OutputEscaping.visible(typed)): no expense category of user \"\(OutputEscaping.visible(user))\"\(hint); "
                + "`geospend categories --user \(user)` lists them")
    }

    /// `Food=200.00` → a limit; categories must be the user's, once each, and inside the budget's category.
    public static func limits(
        _ texts: [String], currency: Currency, category: String?, user: String, store: some CategoryEditing
    ) async throws -> [Budget.CategoryLimit] {
        var seen = Set<String>()
        var limits: [Budget.CategoryLimit] = []
        for text in texts {
            guard let eq = text.lastIndex(of: "="), eq != text.startIndex else {
                throw UsageError("--category-limit \(text): write CATEGORY=AMOUNT, e.g. Food=200.00")
            }
            let name = try await Self.category(String(text[..<eq]), option: "--category-limit", user: user, store: store)
            if let category, Identity.asciiLowercased(category) != Identity.asciiLowercased(name) {
                throw UsageError("--category-limit \(text): the budget counts only category \(category); limit that one or drop --category")
            }
            guard seen.insert(Identity.asciiLowercased(name)).inserted else {
                throw UsageError("--category-limit \(text): \(name) has a limit already; give each category once")
            }
            do { limits.append(Budget.CategoryLimit(category: name, amount: try Money(parsing: String(text[text.index(after: eq)...]), currency: currency))) } catch {
                throw UsageError("--category-limit \(text): \(error)")
            }
        }
        return limits
    }

    /// A new budget of `user` from the fields given, checked as `budgets add` checks them.
    public static func new(
        user: String, name: String, amount: String, currency: String, from: String, to: String, category typed: String?,
        every: Budget.Recurrence?, limits texts: [String], zone: () throws -> BudgetZone?, thresholds: [Int64]? = nil,
        store: some CategoryEditing
    ) async throws -> Budget {
        let c = try Self.currency(currency)
        var category: String?
        if let typed { category = try await Self.category(typed, option: "--category", user: user, store: store) }
        return try BudgetRules.validated(Budget(
            userID: user, name: name, amount: try Money(parsing: amount, currency: c),
            from: try day(from, "--from"), to: try day(to, "--to"), category: category, every: every,
            categoryLimits: try await limits(texts, currency: c, category: category, user: user, store: store),
            zone: try zone(), thresholds: thresholds ?? BudgetThresholds.default))
    }

    /// `--zone-around LAT,LON --zone-radius R`: a circle zone (the service's `zone-around` and
    /// `zone-radius` too), checked with the CLI's words.
    public static func circleZone(around: String, radius: String) throws -> BudgetZone {
        let parts = around.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let lat = Double(parts[0].trimmingCharacters(in: .whitespaces)),
            let lon = Double(parts[1].trimmingCharacters(in: .whitespaces))
        else { throw UsageError("--zone-around \(around): give LAT,LON in degrees, e.g. 60.1699,24.9384") }
        let center: Coordinate
        do { center = try Coordinate(latitude: lat, longitude: lon) } catch { throw UsageError("--zone-around: \(error)") }
        let r: Distance
        do { r = try Distance(parsing: radius) } catch { throw UsageError("--zone-radius: \(error)") }
        guard r.meters > 0 else { throw UsageError("--zone-radius must be more than 0 m") }
        return .circle(center: center, radius: r)
    }

    /// What `budgets edit` may change; nil leaves a field as it is. Currency, category and zone
    /// are the budget's scope and are not here.
    public struct Changes: Sendable {
        public var name: String?
        public var amount: String?
        public var from: String?
        public var to: String?
        public var every: Budget.Recurrence?
        /// Make the budget one period again (`--once`).
        public var once = false
        /// Replaces every category limit when not empty.
        public var categoryLimits: [String] = []
        public var noCategoryLimits = false
        /// Replaces the thresholds (checked: `BudgetThresholds`).
        public var thresholds: [Int64]?

        public init() {}
    }

    /// Budget `id` of `user` with `changes` applied, checked as `budgets edit` checks them (not
    /// saved yet): contradictory changes, a missing budget and bad values are usage errors.
    public static func edited(id: Int64, user: String, _ changes: Changes, store: some BudgetStore & CategoryEditing) async throws -> Budget {
        if changes.every != nil && changes.once { throw UsageError("--every and --once contradict each other: give one of them") }
        if !changes.categoryLimits.isEmpty && changes.noCategoryLimits {
            throw UsageError("--category-limit and --no-category-limits contradict each other: give one of them")
        }
        guard var b = try await store.budget(id: id, userID: user) else { throw noBudget(id, user) }
        let c = b.amount.currency
        if let name = changes.name { b.name = name }
        if let amount = changes.amount { b.amount = try Money(parsing: amount, currency: c) }
        if let from = changes.from { b.from = try day(from, "--from") }
        if let to = changes.to { b.to = try day(to, "--to") }
        if let every = changes.every { b.every = every }
        if changes.once { b.every = nil }
        if let thresholds = changes.thresholds { b.thresholds = thresholds }
        if changes.noCategoryLimits { b.categoryLimits = [] }
        if !changes.categoryLimits.isEmpty {
            b.categoryLimits = try await limits(changes.categoryLimits, currency: c, category: b.category, user: user, store: store)
        }
        return try BudgetRules.validated(b)
    }

    /// The budget's figures on `asOf`.
    public static func summary(_ b: Budget, asOf: LocalDay, store: some BudgetStore) async throws -> BudgetSummary {
        let w = b.window(asOf: asOf)
        return BudgetSummary(budget: b, asOf: asOf, expenses: try await store.budgetExpenses(userID: b.userID, from: w.lowerBound, to: w.upperBound))
    }

    /// A saved budget as `budgets add|edit --format json` prints it: the budget and the ids of
    /// the budgets it deactivated.
    public static func savedJSON(_ saved: (budget: Budget, deactivated: [Int64])) -> JSONOutput {
        guard case .object(var members) = BudgetJSON.budget(saved.budget) else { return BudgetJSON.budget(saved.budget) }
        members.append(("deactivated", .array(saved.deactivated.map { .integer($0) })))
        return .object(members)
    }
}
