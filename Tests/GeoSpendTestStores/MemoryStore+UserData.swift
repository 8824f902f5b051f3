import GeoSpend

/// A user's name and email (`users edit`).
extension MemoryStore: UserProfileStore {
    public func setUserProfile(userID: String, name: String?, email: String?) async throws -> UserRecord? {
        try await edit { state in
            guard state.users.contains(ExactText(userID)) else { return nil }
            state.profiles[ExactText(userID)] = MemoryState.Profile(name: name, email: email)
            return MemoryReader(state: state).record(userID)
        }
    }
}

/// A user's own data: list, export, delete and restore (`geospend users …`), with the file's
/// rules (Sources/GeoSpendSpatiaLite/UserData.swift, UserRestoreStorage.swift): every
/// aggregate's rows of the user go, and come back as exported.
extension MemoryStore: UserDataStore {
    /// Nothing of a deleted user remains in memory: no leftovers to note.
    public func deleteUser(_ userID: String, rewriteFile: Bool) async throws -> UserDeletion? {
        try await edit { state in
            let user = ExactText(userID)
            guard state.users.contains(user) else { return nil }
            var rows: [UserDeletion.TableRows] = []
            let mine = { (e: Expense) in ExactText(e.userID) == user }
            rows.append(.init(table: "expenses", rows: state.expenses.count { mine($0.expense) }))
            for row in state.expenses where mine(row.expense) {
                state.currencyTotals[row.expense.amount.currency.code, default: 0] -= row.expense.amount.minorUnits
            }
            state.expenses.removeAll { mine($0.expense) }
            state.reindex()
            state.recomputeBox()
            rows.append(.init(table: "api_tokens", rows: state.tokens.count { ExactText($0.record.userID) == user }))
            state.tokens.removeAll { ExactText($0.record.userID) == user }
            rows.append(.init(table: "budgets", rows: state.budgets.removeValue(forKey: user)?.count ?? 0))
            let categories = state.categories.values.filter { $0.user == user }
            for c in categories {
                state.categories[c.id] = nil
                state.categoryIDs[c.key] = nil
            }
            rows.append(.init(table: "categories", rows: categories.count))
            let choices = state.storeChoices.removeValue(forKey: user) ?? MemoryStoreChoices()
            rows.append(.init(table: "default_stores", rows: choices.defaultID == nil ? 0 : 1))
            rows += state.notifications.removeUser(user)
            rows.append(.init(table: "pantry_items", rows: state.pantry.removeValue(forKey: user)?.count ?? 0))
            rows.append(.init(table: "recurring_rules", rows: state.recurring.removeValue(forKey: user)?.count ?? 0))
            let records = state.priceRecords.filter { $0.user == user }
            rows.append(.init(table: "price_records", rows: records.count))
            state.priceRecords.removeAll { $0.user == user }
            rows.append(.init(table: "receipts", rows: state.receipts.count { ExactText($0.userID) == user }))
            state.receipts.removeAll { ExactText($0.userID) == user }
            rows += state.community.removeUser(user)
            let marks = state.productMarks.removeValue(forKey: user) ?? MemoryProductMarks()
            rows.append(.init(table: "product_marks", rows: marks.flags.count))
            rows.append(.init(table: "product_tag_links", rows: marks.tags.map(\.products.count).reduce(0, +)))
            rows.append(.init(table: "product_tags", rows: marks.tags.count))
            let lists = state.lists.removeValue(forKey: user) ?? []
            rows.append(.init(table: "shopping_list_items", rows: lists.map(\.list.items.count).reduce(0, +)))
            rows.append(.init(table: "shopping_list_numbers", rows: state.lastNumbers[MemoryState.NumberKey(counter: .shoppingList, user: user)] == nil ? 0 : 1))
            rows.append(.init(table: "shopping_lists", rows: lists.count))
            rows.append(.init(table: "periods", rows: state.periods.removeValue(forKey: user)?.count ?? 0))
            rows.append(.init(table: "positions", rows: state.positions.removeValue(forKey: user)?.count ?? 0))
            rows.append(.init(table: "store_favourites", rows: choices.favouriteIDs.count))
            rows.append(.init(table: "user_stores", rows: choices.added.count))
            rows.append(.init(table: "user_settings", rows: state.settings.removeValue(forKey: user) == nil ? 0 : 1))
            rows.append(.init(table: "visits", rows: state.visits.removeValue(forKey: user)?.count ?? 0))
            state.lastNumbers = state.lastNumbers.filter { $0.key.user != user }
            state.users.remove(user)
            state.userCreated[user] = nil
            state.profiles[user] = nil
            rows.append(.init(table: "users", rows: 1))
            // The products only this user's records named could say what they bought.
            let before = state.products.count
            state.dropUnnamedProducts(Set(records.map(\.productID)))
            rows.append(.init(table: "products", rows: before - state.products.count))
            return UserDeletion(userID: userID, rowsByTable: rows, leftovers: [])
        }
    }

    public func restore(_ data: UserRestoreData, as user: String) async throws {
        let data = data.retargeted(to: user)
        try await edit { state in try state.restore(data) }
    }
}

extension MemoryState {
    /// `UserDataStore.restore` for `data.userID`, on the edit's copy: a throw drops it all.
    mutating func restore(_ data: UserRestoreData) throws {
        let user = data.userID
        let key = ExactText(user)
        // What a new user holds does not count: API tokens and the untouched defaults.
        let untouched = { (c: MemoryCategory) in
            c.isDefault && c.isActive && Category.defaultLooks[Category(name: c.name, kind: c.kind)].map { $0.icon == c.icon && $0.color == c.color } == true
        }
        // An array of counts, not one long sum: the sum took 1.6 s to type-check.
        let counts: [Int] = [
            expenses.count { ExactText($0.expense.userID) == key }, categories.values.count { $0.user == key && !untouched($0) },
            periods[key]?.count ?? 0, budgets[key]?.count ?? 0, positions[key]?.count ?? 0, visits[key]?.count ?? 0,
            settings[key] == nil ? 0 : 1, storeChoices[key]?.rows ?? 0,
            notifications.rows(of: key), pantry[key]?.count ?? 0, priceRecords.count { $0.user == key },
            recurring[key]?.count ?? 0, receipts.count { ExactText($0.userID) == key }, lists[key]?.count ?? 0,
            productMarks[key]?.rows ?? 0, community.rows(of: key),
        ]
        let held = counts.reduce(0, +)
        if held > 0 { throw UserRestoreError.notEmpty(user: user, rows: held) }
        for id in data.storeIDs where stores[ExactText(id)] == nil { throw UserRestoreError.unknownStore(id: id) }

        ensureUser(user)
        userCreated[key] = data.createdAt
        profiles[key] = Profile(name: data.displayName, email: data.email)
        settings[key] = data.settings.isDefault ? nil : data.settings
        notifications.settings[key] = data.notificationSettings.isDefault ? nil : data.notificationSettings
        try restorePantry(data.pantry, user: user)
        try restoreRecurring(data.recurring, user: user)
        // The exported categories replace the defaults a new user was given.
        for c in categories.values where c.user == key {
            categories[c.id] = nil
            categoryIDs[c.key] = nil
        }
        for c in data.categories {
            var row = addCategory(c.category, user: user, icon: c.icon, color: c.color, isDefault: c.isDefault)
            row.isActive = c.isActive
            row.createdAt = c.createdAt ?? row.createdAt
            row.updatedAt = c.updatedAt ?? row.updatedAt
            categories[row.id] = row
        }
        // Through the import's writer, as an import's rows.
        let writer = MemoryWriter(state: self)
        for (n, e) in data.expenses.enumerated() {
            if case .rejected(let rejection) = try writer.insert([HashedRow(e, contentHash: e.contentHash)], policy: InsertPolicy())[0] {
                throw UserRestoreError.invalid(path: "expenses[\(n)].\(rejection.column)", reason: rejection.reason)
            }
        }
        self = writer.state
        for t in data.expenseTimes {
            guard let at = expenseIndex[ExpenseKey(user, t.id)] else { continue }
            expenses[at].remindAt = try t.remindAt.map { try Timestamp(parsing: $0) }
            expenses[at].createdAt = t.createdAt
            expenses[at].updatedAt = t.updatedAt
            expenses[at].positionSource = t.positionSource
            expenses[at].positionConfidence = t.positionConfidence
            expenses[at].storeInferred = t.storeInferred
        }
        // Periods and budgets keep their exported ids; the counters resume after the largest.
        for p in data.periods {
            let now = MemoryClock.now()
            periods[key, default: []].append(
                MemoryPeriod(id: p.number, name: p.name, start: p.start, end: p.end, createdAt: p.createdAt ?? now, updatedAt: p.updatedAt ?? now))
            for id in p.expenseIDs { if let at = expenseIndex[ExpenseKey(user, id)] { expenses[at].period = p.number } }
        }
        if let last = data.periods.map(\.number).max() { lastNumbers[NumberKey(counter: .period, user: key)] = last }
        for (n, p) in data.positions.enumerated() {
            // The file's key: a fix twice is refused, not merged.
            guard positions[key, default: [:]].updateValue(p, forKey: MemoryPositionKey(p)) == nil else {
                throw UserRestoreError.invalid(path: "positions[\(n)]", reason: "the same fix twice")
            }
        }
        for v in data.visits { if let source = v.source { visits[key, default: [:]][MemoryVisitKey(v, source: source)] = v } }
        budgets[key] = data.budgets.isEmpty ? nil : data.budgets
        if let last = data.budgets.map(\.id).max() { lastNumbers[NumberKey(counter: .budget, user: key)] = last }
        // Added stores keep their numbers and times; favourites and the default their ids as chosen.
        var choices = MemoryStoreChoices()
        for e in data.storeChoices.added {
            guard let n = AddedStoreID.number(e.id) else { throw UserRestoreError.invalid(path: "user_stores.added", reason: "\"\(e.id)\" is not an added store's id") }
            choices.added[n] = StoreEntry(store: e.store, region: e.region, addedBy: user, createdAt: e.createdAt)
        }
        choices.favouriteIDs = Set(data.storeChoices.favouriteIDs.map(ExactText.init))
        choices.defaultID = data.storeChoices.defaultID
        storeChoices[key] = choices.isEmpty ? nil : choices
        if let last = choices.added.keys.max() { lastNumbers[NumberKey(counter: .addedStore, user: key)] = last }
        // Products found or added, then the records, which may name those stores; tags and
        // flags; lists; receipts and feed entries, which follow their products.
        let products = restorePrices(data, user: user)
        restoreProductMarks(data, productIDs: products.ids, user: user)
        restoreLists(data.shoppingLists, user: user)
        restoreReceipts(data.receipts, products: products.exported, user: user)
        try restoreCommunity(data.community, products: products.exported, user: user)
    }
}

/// One user's data in a read scope's snapshot (what `users export` writes).
struct MemoryUserSnapshot: UserDataSnapshot {
    let state: MemoryState
    let user: UserRecord

    private var key: ExactText { ExactText(user.id) }
    private var rows: [MemoryState.Row] {
        state.expenses.filter { ExactText($0.expense.userID) == key }.sorted { byBytes($0.expense.id, $1.expense.id) }
    }

    func categories() throws -> [Category] { try categoryDetails().map(\.category) }

    func forEachExpense(_ body: (Expense) throws -> Void) throws { try rows.forEach { try body($0.expense) } }

    func stores(withIDs ids: Set<String>) throws -> [Store] {
        ids.compactMap { state.stores[ExactText($0)]?.store }.sorted { byBytes($0.id, $1.id) }
    }

    func categoryDetails() throws -> [CategoryDetail] { try MemoryReader(state: state).categoryDetails(userID: user.id, includeInactive: true) }

    func forEachExpenseTimes(_ body: (ExpenseTimes) throws -> Void) throws {
        for r in rows where r.remindAt != nil || r.createdAt != nil || r.updatedAt != nil || r.positionSource != nil {
            try body(ExpenseTimes(
                id: r.expense.id, remindAt: r.remindAt?.text, createdAt: r.createdAt, updatedAt: r.updatedAt, positionSource: r.positionSource,
                positionConfidence: r.positionConfidence, storeInferred: r.storeInferred))
        }
    }

    func budgets() throws -> [Budget] { MemoryState.listed(state.budgets[key] ?? []) }

    func periods() throws -> [(period: Period, expenseIDs: [String])] {
        state.periods(of: user.id).map { p in
            (p, rows.filter { $0.period == p.id }.map(\.expense.id))
        }
    }

    func priceRecords() throws -> [PriceRecord] { state.records(matching: PriceQuery(userID: user.id)).map(state.record) }
    func shoppingLists() throws -> [ShoppingList] { (state.lists[key] ?? []).map(\.list) }
    func receipts() throws -> [Receipt] { state.receipts.filter { ExactText($0.userID) == key } }

    func priceRecordReceipts() throws -> [Int64: String] {
        Dictionary(uniqueKeysWithValues: state.priceRecords.compactMap { r in r.user == key ? r.receiptID.map { (r.id, $0) } : nil })
    }
    func apiTokens() throws -> [TokenRecord] { try MemoryReader(state: state).tokens(userID: user.id) }

    func forEachPosition(_ body: (Position) throws -> Void) throws {
        try state.history(user: user.id, from: nil, to: nil).positions.forEach(body)
    }

    func visits() throws -> [Visit] { state.history(user: user.id, from: nil, to: nil).visits }
    func settings() throws -> UserSettings { state.settings[key] ?? UserSettings() }
    func recurringRules() throws -> [RecurringRule] { state.recurring[key] ?? [] }
    func pantryItems() throws -> [PantryItem] { state.pantry[key] ?? [] }
    /// By id.
    func communityActivity() throws -> CommunityActivity {
        let reader = MemoryReader(state: state)
        return CommunityActivity(
            member: state.community.members[key], posts: state.community.posts.filter { $0.user == key }.compactMap(reader.post),
            comments: reader.comments { $0.user == key })
    }
    func productTags() throws -> [ProductTag] { try MemoryReader(state: state).productTags(userID: user.id) }

    /// By product id.
    func productMarks() throws -> [(product: Product, marks: ProductMarks)] {
        try MemoryReader(state: state).productMarks(userID: user.id).sorted { $0.key < $1.key }
            .compactMap { id, marks in state.products[id].map { (product: $0, marks: marks) } }
    }
    func webhooks() throws -> [Webhook] { try MemoryReader(state: state).webhooks(userID: user.id) }
    func notificationSettings() throws -> NotificationSettings { state.notifications.settings[key] ?? NotificationSettings() }
    func storeChoiceRecord() throws -> StoreChoiceRecord { (state.storeChoices[key] ?? MemoryStoreChoices()).record }
}

extension MemoryReader {
    /// Every user with their row counts, by id (bytes).
    func users() throws -> [UserRecord] {
        state.users.map(\.text).sorted(by: byBytes).compactMap(record)
    }

    func userData(_ userID: String) throws -> (any UserDataSnapshot)? {
        record(userID).map { MemoryUserSnapshot(state: state, user: $0) }
    }

    func record(_ userID: String) -> UserRecord? {
        let user = ExactText(userID)
        guard state.users.contains(user) else { return nil }
        let mine = state.expenses.filter { ExactText($0.expense.userID) == user }
        return UserRecord(
            id: userID, displayName: state.profiles[user]?.name, email: state.profiles[user]?.email, createdAt: state.userCreated[user] ?? "",
            expenses: mine.count,
            geotaggedExpenses: mine.count { $0.expense.location != nil }, categories: state.categories.values.count { $0.user == user })
    }
}
