/// Adding and editing one expense from the fields a person gave, checked as
/// `geospend expenses add|edit` check them: the CLI and the service (`POST`/`PATCH
/// /api/v1/expenses`) both call these, so both accept and refuse the same and say it in the same
/// words (the CLI's option names: `--amount`, `--at`, `--lat`).
///
/// Fields are keyed by import column (`amount`, `occurred_at`, `store_id`, …); an empty value
/// unsets an optional field.
public enum ExpenseChanges {
    /// What adding and editing need of a store.
    public typealias Store = ExpenseEditing & CategoryEditing & ExpenseStore & PositionStore & PeriodStore

    /// The option a field comes from, for messages.
    public static func option(_ field: String) -> String {
        switch field {
        case "occurred_at": return "--at"
        case "store_id": return "--store"
        case "accuracy_m": return "--lat/--lon (the accuracy kept from before)"
        default: return "--" + field.replacing("_", with: "-")
        }
    }

    /// Parses `fields` as import does; a refused field is a usage error naming its option.
    public static func expense(_ fields: [String: String]) throws -> Expense {
        do { return try ExpenseFields.parse(fields) } catch { throw UsageError("\(option(error.field)): \(error.reason)") }
    }

    /// A reminder is an instant: a bare date would leave its time and zone to guess.
    public static func reminder(_ text: String?) throws -> Timestamp? {
        guard let text, !text.isEmpty else { return nil }
        let t: Timestamp
        do { t = try Timestamp(parsing: text) } catch { throw UsageError("--remind-at: \(error)") }
        guard !t.isDateOnly else {
            throw UsageError("--remind-at: \"\(text)\" is a date; give a time and offset: \(text)T09:00:00+01:00")
        }
        return t
    }

    /// The new expense `fields` describe (its id still to be drawn) and its reminder, before
    /// anything is read: `amount`, `currency` and `occurred_at` are required.
    public static func new(_ fields: [String: String], user: String, remindAt: String?) throws -> (Expense, Timestamp?) {
        for field in ["amount", "currency", "occurred_at"] where fields[field]?.isEmpty ?? true {
            throw UsageError("\(option(field)) is required to add an expense")
        }
        var f = fields
        f["user"] = user
        f["id"] = "x"  // checked as an import id would be; replaced when stored
        return (try expense(f), try reminder(remindAt))
    }

    /// Stores `expense` under a generated id. A new user is created, as import does; `note` then
    /// names an existing user whose id is close ("Alice" for "alice"), likely a typo.
    public static func add(_ expense: Expense, remindAt: Timestamp?, store: some Store) async throws -> (stored: StoredExpense, note: String?) {
        var expense = expense
        let user = expense.userID
        let isNew = try await !store.read { try $0.hasUser(user) }
        if let name = expense.category, !isNew {
            try await checkCategoryKind(name, kind: expense.kind, given: true, user: expense.userID, in: store)
            try await NameChecks.categories([name], userID: expense.userID, in: store)  // a typo gets a suggestion
        }
        // The period is checked before anything is written (a new user has none).
        var period: Period?
        if let reference = expense.period {
            switch PeriodReference.resolve(reference, among: isNew ? [] : try await store.periods(userID: user), user: user) {
            case .success(let p): period = p
            case .failure(let error): throw UsageError("--period: \(error)")
            }
        }
        for attempt in 1...3 {
            expense.id = GeneratedID.expense()
            let stored: StoredExpense
            do {
                stored = try await store.addExpense(expense, remindAt: remindAt)
            } catch EditError.invalid(field: "id", _) where attempt < 3 {
                continue  // a generated id taken: draw again
            } catch let error as EditError {
                throw named(error, user: expense.userID)
            }
            if let period {
                // Deleted since it was read (another session): the expense goes too, so the
                // command fails whole instead of leaving it without the period asked for.
                guard case .done = try await store.assign(userID: user, period: period.id, expenseIDs: [expense.id]) else {
                    _ = try await store.deleteExpense(id: expense.id, userID: user, rewrite: .skipped)
                    throw UsageError("--period: period \(period.id) of user \"\(OutputEscaping.visible(Identity.normalized(user)))\" was deleted meanwhile; nothing was added")
                }
            }
            let placed = try await placedAtStore(stored, storeGiven: expense.storeID != nil, store: store)
            var note: String?
            if isNew, let near = NameChecks.suggestion(for: user, among: try await store.read { try $0.userIDs() }.filter { $0 != user }) {
                note = "new user \"\(OutputEscaping.visible(expense.userID))\" (did you mean \"\(OutputEscaping.visible(near))\"?); "
                    + "`geospend users delete \(OutputEscaping.visible(expense.userID)) --yes` removes it"
            }
            return (placed, note)
        }
        fatalError("the third attempt returns or throws")
    }

    /// An expense given a store but no position goes on the map at the store
    /// (`PositionSource.store`): a link alone left it out of `near` and the maps. Only when
    /// this change gave the store, so clearing a position by hand keeps it cleared.
    static func placedAtStore(_ stored: StoredExpense, storeGiven: Bool, store: some Store) async throws -> StoredExpense {
        let e = stored.expense
        guard storeGiven, e.location == nil, let storeID = e.storeID,
            let found = try await store.read({ try $0.stores(withIDs: [storeID]) })[storeID]
        else { return stored }
        let placement = ExpensePlacement(
            expenseID: e.id, location: ExpenseLocation(coordinate: found.coordinate), storeID: storeID, source: .store, confidence: nil)
        guard try await store.place([placement], userID: e.userID)[0] else { return stored }
        return try await store.expense(id: e.id, userID: e.userID) ?? stored
    }

    /// Changes the `fields` given of the user's expense `id` (`remindAt`: nil keeps the reminder,
    /// "" removes it). Another user's expense is "no expense", like a missing one.
    public static func edit(id: String, user: String, fields given: [String: String], remindAt: String?, store: some Store) async throws -> StoredExpense {
        guard let old = try await store.expense(id: id, userID: user) else { throw noExpense(id, user) }
        for field in ["amount", "currency", "occurred_at"] where given[field]?.isEmpty == true {
            throw UsageError("\(option(field)) cannot be unset: every expense has one")
        }
        // One of the two would move the point along a meridian or parallel, keeping half of the old place.
        guard (given["lat"] == nil) == (given["lon"] == nil) else {
            throw UsageError(
                "\(given["lat"] == nil ? "--lon" : "--lat") alone: give --lat and --lon together for a new place, "
                    + "or --lat \"\" --lon \"\" for no place")
        }
        var f = ExpenseFields.fields(of: old.expense)
        if given["lat"] != nil || given["lon"] != nil { f["accuracy_m"] = nil }
        // A new currency without a new amount re-reads the amount in it (JPY has no cents).
        f.merge(given) { _, new in new }
        let expense = try expense(f)
        if let name = expense.category {
            try await checkCategoryKind(name, kind: expense.kind, given: given["category"] != nil, user: user, in: store)
        }
        if let name = given["category"], !name.isEmpty { try await NameChecks.categories([name], userID: user, in: store) }
        // --period ID|NAME moves the expense to that period, --period "" takes it out of its
        // period: checked before anything is written.
        var period: Int64??
        if let reference = given["period"] {
            if reference.trimmingSpaces().isEmpty {
                period = .some(nil)
            } else {
                switch PeriodReference.resolve(reference, among: try await store.periods(userID: user), user: user) {
                case .success(let p): period = p.id
                case .failure(let error): throw UsageError("--period: \(error)")
                }
            }
        }
        let remind = remindAt == nil ? old.remindAt : try reminder(remindAt)
        let updated: StoredExpense?
        do { updated = try await store.updateExpense(expense, remindAt: remind) } catch let error as EditError { throw named(error, user: user) }
        guard let stored = updated else { throw noExpense(id, user) }
        if let period {
            _ = try await store.assign(userID: user, period: period, expenseIDs: [old.expense.id]).outcome(period: period, user: user)
        }
        return try await placedAtStore(stored, storeGiven: given["store_id"].map { !$0.isEmpty } ?? false, store: store)
    }

    /// Another user's expense reads exactly like a missing one.
    public static func noExpense(_ id: String, _ user: String) -> UsageError {
        UsageError("no expense \(OutputEscaping.visible(id)) for user \(OutputEscaping.visible(user)); "
            + "`geospend expenses list --user \(OutputEscaping.visible(user))` lists them")
    }

    /// A category of the other kind (Salary on an expense, Food on income) is named as such:
    /// "no expense category Salary" would send the user looking for a typo. `given`: the name
    /// came from --category (else it is the expense's own, kept while --kind changes).
    static func checkCategoryKind(_ name: String, kind: ExpenseKind, given: Bool, user: String, in store: some CategoryEditing) async throws {
        let wanted = Category.kind(for: kind)
        let same = try await store.categoryDetails(userID: user, includeInactive: true)
            .filter { Identity.asciiLowercased($0.category.name) == Identity.asciiLowercased(Identity.normalized(name)) }
        guard !same.isEmpty, !same.contains(where: { $0.category.kind == wanted }), let other = same.first else { return }
        let u = OutputEscaping.visible(Identity.normalized(user))
        let n = OutputEscaping.visible(other.category.name)
        let list = "`geospend categories --user \(u)` lists them"
        func a(_ k: Category.Kind) -> String { (k == .transfer ? "a " : "an ") + k.rawValue }
        if given {
            throw UsageError(
                "--category \(n): \"\(n)\" is \(a(other.category.kind)) category, not \(a(wanted)) one; "
                    + "give \(a(wanted)) category (\(list)) or --kind \(other.category.kind.rawValue)")
        }
        throw UsageError(
            "--kind \(kind.rawValue): the expense's category \"\(n)\" is \(a(other.category.kind)) category; "
                + "add --category with \(a(wanted)) category (\(list)), or --category \"\" to clear it")
    }

    /// The store's category messages say `--user U`: here the user is known.
    static func named(_ error: EditError, user: String) -> UsageError {
        UsageError(String(describing: error).replacing("--user U", with: "--user \(OutputEscaping.visible(Identity.normalized(user)))"))
    }
}
