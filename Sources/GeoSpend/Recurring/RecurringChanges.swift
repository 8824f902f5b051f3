import Foundation

/// Adding and editing a recurring rule from the fields a person gave (`geospend recurring
/// add|edit`, `POST`/`PATCH /api/v1/recurring`), checked as `expenses add` checks an expense and
/// refused in the same words (the CLI's option names). Fields are keyed as the expense import's
/// columns (`amount`, `store_id` …) plus `every`, `from` and `until`; an empty value unsets an
/// optional one.
public enum RecurringChanges {
    public typealias Store = RecurringStore & CategoryEditing & ExpenseStore

    /// The keys a body or the options may give.
    public static let keys: Set<String> = [
        "amount", "currency", "kind", "title", "category", "merchant", "store_id", "notes", "every", "from", "until",
    ]

    /// Adds the rule `given` describes; `every`, `from`, `amount` and `currency` are required.
    public static func add(_ given: [String: String], user: String, store: some Store) async throws -> RecurringRule {
        for field in ["amount", "currency", "every", "from"] where given[field]?.isEmpty ?? true {
            throw UsageError("\(option(field)) is required to add a recurring rule")
        }
        let user = Identity.normalized(user)
        let fields = try parse(given, user: user)
        try await check(fields, given: given, user: user, store: store)
        guard let rule = try await store.addRecurring(userID: user, fields) else { throw noUser(user) }
        return rule
    }

    /// Changes what `given` names of rule `id`. The days already created stay; the rule goes on
    /// from the first day of its new schedule that is not before the day it had reached (a rule
    /// moved to a later `from` starts there).
    public static func edit(id: Int64, _ given: [String: String], user: String, store: some Store) async throws -> RecurringRule {
        let user = Identity.normalized(user)
        guard let old = try await store.recurringRule(userID: user, id: id) else { throw noRule(id, user: user) }
        for field in ["amount", "currency", "every", "from"] where given[field]?.isEmpty == true {
            throw UsageError("\(option(field)) cannot be unset: every recurring rule has one")
        }
        var merged = Self.given(of: old.fields)
        merged.merge(given) { _, new in new }
        let fields = try parse(merged, user: user)
        try await check(fields, given: given, user: user, store: store)
        // Where the old rule had got to: its next day, or past its last one.
        let reached = old.nextDue ?? old.fields.until.map { $0.adding(days: 1) } ?? old.fields.schedule.anchor
        let next = fields.firstDue(onOrAfter: max(reached, fields.schedule.anchor))
        guard let rule = try await store.updateRecurring(userID: user, id: id, fields, nextDue: next) else { throw noRule(id, user: user) }
        return rule
    }

    /// The fields of a stored rule, as `parse` reads them back.
    public static func given(of f: RecurringFields) -> [String: String] {
        var g: [String: String] = [
            "amount": f.amount.decimalString, "currency": f.amount.currency.code, "kind": f.kind.rawValue,
            "every": f.schedule.every.description, "from": f.schedule.anchor.description,
        ]
        g["title"] = f.title; g["category"] = f.category; g["merchant"] = f.merchant; g["store_id"] = f.storeID
        g["notes"] = f.notes; g["until"] = f.until?.description
        return g
    }

    /// The option a field comes from, for messages.
    public static func option(_ field: String) -> String {
        switch field {
        case "store_id": return "--store"
        case "from", "until", "every": return "--" + field
        default: return ExpenseChanges.option(field)
        }
    }

    static func parse(_ given: [String: String], user: String) throws -> RecurringFields {
        let every: RecurringSchedule.Every
        do { every = try .init(parsing: given["every"] ?? "") } catch { throw UsageError("--every: \(error)") }
        let from = try day(given["from"], option: "--from")!
        let until = try day(given["until"], option: "--until")
        // The expense's own fields are checked as `expenses add` checks them, on the first day.
        var f = given.filter { !["every", "from", "until"].contains($0.key) && !$0.value.isEmpty }
        f["user"] = user
        f["id"] = "x"
        f["occurred_at"] = from.description
        let e = try ExpenseChanges.expense(f)
        do {
            return try RecurringFields(
                kind: e.kind, amount: e.amount, title: e.title, category: e.category, merchant: e.merchant, storeID: e.storeID,
                notes: e.notes, schedule: RecurringSchedule(every: every, anchor: from), until: until)
        } catch { throw UsageError("\(error)") }
    }

    static func day(_ text: String?, option: String) throws -> LocalDay? {
        guard let text, !text.isEmpty else { return nil }
        do {
            let t = try Timestamp(parsing: text)
            guard t.isDateOnly else { throw ValueError.invalidDate(text, reason: "is a date-time; a recurring rule's days are dates like 2025-03-01") }
            return LocalDay(dayNumber: Timestamp.days(of: t.localDate))
        } catch { throw UsageError("\(option): \(error)") }
    }

    /// The category must be the user's, active and of the rule's kind; the store must exist.
    static func check(_ fields: RecurringFields, given: [String: String], user: String, store: some Store) async throws {
        guard try await store.read({ try $0.hasUser(user) }) else { throw noUser(user) }
        if let name = fields.category {
            try await ExpenseChanges.checkCategoryKind(name, kind: fields.kind, given: given["category"] != nil, user: user, in: store)
            try await NameChecks.categories([name], userID: user, in: store)
        }
        if let id = fields.storeID, try await store.read({ try $0.stores(withIDs: [id]) })[id] == nil {
            throw UsageError("--store \(OutputEscaping.visible(id)): no such store; find its id with `geospend nearest-stores --lat … --lon …`")
        }
    }

    public static func noRule(_ id: Int64, user: String) -> UsageError {
        let u = OutputEscaping.visible(user)
        return UsageError("no recurring rule \(id) of user \"\(u)\"; `geospend recurring list --user \(u)` lists them")
    }

    static func noUser(_ user: String) -> UsageError {
        let u = OutputEscaping.visible(user)
        return UsageError("no user \"\(u)\"; add an expense or import for them first (`geospend users list` lists users)")
    }
}
