import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// The stores every contract suite of an aggregate runs on: the file, the memory store and,
/// where `$GEOSPEND_TEST_POSTGRES` names a server, PostgreSQL (the storage seam's own suite has
/// `StoreKind`). `PositionStoreContractTests.Kind` is the file and PostgreSQL alone, for what
/// concerns those two only.
enum EditingStoreKind: String, CaseIterable, CustomTestStringConvertible {
    case spatiaLite, memory, postGIS


    static var allCases: [EditingStoreKind] { PostGISTestServer.address == nil ? [.spatiaLite, .memory] : [.spatiaLite, .memory, .postGIS] }

    /// A fresh, empty store of this kind: a whole `Backend`, each suite taking the protocols it tests.
    func make(in scratch: Scratch) async throws -> any Backend {
        switch self {
        case .spatiaLite: try scratch.store()
        case .memory: MemoryStore()
        case .postGIS: try await PostGISTestServer.freshStore()
        }
    }

    var testDescription: String { rawValue }
}

/// The editing protocols' promises, checked the same way on each store through the protocols
/// alone: the errors (`EditError`), the orders, per-user numbering, isolation between users,
/// and the content hash kept in step with edits (a re-import after an edit is a no-op).
/// The CLI's byte-for-byte comparison of the two stores is PostGISEditingCLITests.
@Suite struct EditingContractTests {
    static let stores = [Store(id: "s1", name: "Kiosk", kind: "shop:kiosk", coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))]

    static func expense(_ id: String, user: String = "ann", day: Int, amount: Int64 = 450, title: String? = nil, category: String? = nil) throws -> Expense {
        Expense(
            id: id, userID: user, amount: Money(minorUnits: amount, currency: try Currency(code: "EUR")),
            occurredAt: try Timestamp(parsing: String(format: "2025-03-%02dT10:00:00+02:00", day)), title: title, category: category,
            location: ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94), accuracyMeters: nil))
    }

    /// A store with the kiosk, ann's expenses a1…a7 (a4 and a5 on the same instant) and bob's b1.
    static func loaded(_ kind: EditingStoreKind, _ scratch: Scratch) async throws -> any Backend {
        let store = try await kind.make(in: scratch)
        let expenses = [
            try Self.expense("a1", day: 1, title: "Coffee", category: "Food"), try Self.expense("a2", day: 2, title: "50% off", category: "Shopping"),
            try Self.expense("a3", day: 3, title: "Bus"), try Self.expense("a4", day: 4, title: "coffee beans", category: "food"),
            try Self.expense("a5", day: 4, title: "Tea"), try Self.expense("a6", day: 6), try Self.expense("a7", day: 7, title: "COFFEE"),
            try Self.expense("b1", user: "bob", day: 5, title: "coffee", category: "Food"),
        ]
        let outcomes = try await store.write { w in
            try w.insert(stores.map { HashedRow($0, contentHash: $0.contentHash) }) + w.insert(expenses.map { HashedRow($0, contentHash: $0.contentHash) })
        }
        #expect(outcomes.allSatisfy { $0 == .inserted })
        return store
    }

    static func error(_ body: () async throws -> Void) async -> EditError? {
        do { try await body() } catch let e as EditError { return e } catch { return .invalid(field: "?", reason: "\(error)") }
        return nil
    }

    @Test(arguments: EditingStoreKind.allCases)
    func anExpensesLife(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        // Paging: newest first, same instant by id descending, every row once.
        var seen: [String] = [], cursor: ExpenseCursor?
        repeat {
            let page = try await store.expensePage(ExpenseFilter(userID: "ann"), after: cursor, limit: 3)
            seen += page.expenses.map(\.expense.id)
            cursor = page.next
        } while cursor != nil
        #expect(seen == ["a7", "a6", "a5", "a4", "a3", "a2", "a1"])
        // Search: A–Z without case, % as typed, another user's never.
        #expect(try await store.searchExpenses(userID: "ann", text: "coffee", limit: 10).map(\.expense.id) == ["a7", "a4", "a1"])
        #expect(try await store.searchExpenses(userID: "ann", text: "50%", limit: 10).map(\.expense.id) == ["a2"])
        #expect(try await store.searchExpenses(userID: "ann", text: "FOOD", limit: 10).map(\.expense.id) == ["a4", "a1"])
        // Another user's expense is not found, not changed, not deleted.
        #expect(try await store.expense(id: "b1", userID: "ann") == nil)
        var stolen = try Self.expense("b1", user: "ann", day: 5, amount: 1)
        #expect(try await store.updateExpense(stolen, remindAt: nil) == nil)
        #expect(try await store.deleteExpense(id: "b1", userID: "ann", rewrite: .skipped) == nil)
        #expect(try await store.expense(id: "b1", userID: "bob")?.expense.amount.minorUnits == 450)
        // Adding: an id the user holds (another user's is free: PerUserIDTests), an unknown
        // store, an inactive or unknown category.
        #expect(await Self.error { _ = try await store.addExpense(try Self.expense("a1", day: 9), remindAt: nil) } == .invalid(field: "id", reason: "a1 is taken"))
        var atNowhere = try Self.expense("n1", day: 9)
        atNowhere.storeID = "nowhere"
        #expect(await Self.error { _ = try await store.addExpense(atNowhere, remindAt: nil) } == .unknownStore("nowhere"))
        _ = try await store.editCategory(name: "Health", kind: .expense, userID: "ann", change: CategoryChange(isActive: false))
        #expect(await Self.error { _ = try await store.addExpense(try Self.expense("n2", day: 9, category: "health"), remindAt: nil) }
            == .inactiveCategory(name: "Health", kind: .expense))
        #expect(await Self.error { _ = try await store.addExpense(try Self.expense("n3", day: 9, category: "Shoping"), remindAt: nil) }
            == .unknownCategory(name: "Shoping", kind: .expense, suggestion: "Shopping"))
        // A new user gets the default categories, as an import gives them.
        let reminder = try Timestamp(parsing: "2025-04-01T09:00:00+02:00")
        let added = try await store.addExpense(try Self.expense("c1", user: "cat", day: 9, category: "others"), remindAt: reminder)
        #expect(added.expense.category == "Others" && added.remindAt == reminder && added.createdAt != nil && added.createdAt == added.updatedAt)
        #expect(try await store.categoryDetails(userID: "cat", includeInactive: true).count == Category.defaults.count)
        // Editing keeps the hash in step: the edited row re-imported is "unchanged".
        stolen = try Self.expense("a3", day: 3, amount: 999, title: "Tram", category: "Transport")
        let edited = try #require(try await store.updateExpense(stolen, remindAt: reminder))
        #expect(edited.expense == stolen && edited.remindAt == reminder)
        let again = try await store.write { [stolen] in try $0.insert([HashedRow(stolen, contentHash: stolen.contentHash)]) }
        #expect(again == [.unchanged])
        #expect(try await store.dueReminders(userID: "ann", asOf: try Timestamp(parsing: "2025-04-02T00:00:00Z")).map(\.expense.id) == ["a3"])
        #expect(try await store.dueReminders(userID: "ann", asOf: try Timestamp(parsing: "2025-03-31T00:00:00Z")).isEmpty)
        // Deleting: gone for good, the other rows untouched.
        #expect(try await store.deleteExpense(id: "a3", userID: "ann", rewrite: .now) != nil)
        #expect(try await store.expense(id: "a3", userID: "ann") == nil)
        #expect(try await store.expensePage(ExpenseFilter(userID: "ann"), after: nil, limit: 100).expenses.count == 6)
    }

    /// An edit may not bring its currency's total over every stored expense (every user's) beyond
    /// Int64, the import's rule (`ExpenseUpdateRules.checkTotal`): refused before anything is
    /// written, one minor unit past the limit.
    @Test(arguments: EditingStoreKind.allCases)
    func anEditKeepsEveryTotalAddable(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let others = Int64(450 * 7)  // the other seven EUR expenses, bob's included
        let edited = try Self.expense("a1", day: 1, amount: Int64.max - others + 1, title: "Coffee", category: "Food")
        let refused = await Self.error { _ = try await store.updateExpense(edited, remindAt: nil) }
        guard case .invalid(let field, let reason)? = refused else {
            Issue.record("not refused as invalid: \(String(describing: refused))")
            return
        }
        #expect(field == "--amount" && reason.contains("total of all EUR amounts"), "\(reason)")
        #expect(try await store.expense(id: "a1", userID: "ann")?.expense.amount.minorUnits == 450)
    }

    @Test(arguments: EditingStoreKind.allCases)
    func categories(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        _ = try await store.addCategory(Category(name: "Kava", kind: .expense), userID: "ann", icon: "cup", color: "#6F4E37")
        #expect(await Self.error { _ = try await store.addCategory(Category(name: "KAVA", kind: .expense), userID: "ann", icon: nil, color: nil) }
            == .categoryExists(name: "KAVA", kind: .expense))
        #expect(await Self.error { _ = try await store.editCategory(name: "Others", kind: nil, userID: "ann", change: CategoryChange(name: "X")) }
            == .ambiguousCategory(name: "Others"))
        #expect(await Self.error { _ = try await store.deleteCategory(name: "food", kind: nil, userID: "ann") } == .defaultCategory(name: "Food", kind: .expense))
        // Bob's Kava is his own: same name, no clash.
        _ = try await store.addCategory(Category(name: "Kava", kind: .expense), userID: "bob", icon: nil, color: nil)
        // A rename stays on the expenses and re-hashes them: their re-import is a no-op.
        let renamed = try await store.editCategory(name: "Shopping", kind: .expense, userID: "ann", change: CategoryChange(name: "Shops", color: ""))
        #expect(renamed.category.name == "Shops" && renamed.expenses == 1 && renamed.color == nil)
        let a2 = try #require(try await store.expense(id: "a2", userID: "ann")).expense
        #expect(a2.category == "Shops")
        #expect(try await store.write { try $0.insert([HashedRow(a2, contentHash: a2.contentHash)]) } == [.unchanged])
        _ = try await store.addCategory(Category(name: "Gone", kind: .expense), userID: "ann", icon: nil, color: nil)
        var a6 = try #require(try await store.expense(id: "a6", userID: "ann")).expense
        a6.category = "gone"
        _ = try await store.updateExpense(a6, remindAt: nil)
        #expect(try await store.deleteCategory(name: "GONE", kind: nil, userID: "ann") == 1)
        a6 = try #require(try await store.expense(id: "a6", userID: "ann")).expense
        #expect(a6.category == nil)
        let cleared = a6
        let reimported = try await store.write { try $0.insert([HashedRow(cleared, contentHash: cleared.contentHash)]) }
        #expect(reimported == [.unchanged])
        // Listed by kind, then name in byte order; deactivated only with includeInactive.
        _ = try await store.editCategory(name: "Bills", kind: nil, userID: "ann", change: CategoryChange(isActive: false))
        let names = try await store.categoryDetails(userID: "ann", includeInactive: false).map { "\($0.category.kind.rawValue):\($0.category.name)" }
        #expect(names == [
            "expense:Education", "expense:Entertainment", "expense:Food", "expense:Health", "expense:Kava", "expense:Others", "expense:Shops",
            "expense:Transport", "income:Business", "income:Freelance", "income:Investment", "income:Others", "income:Salary",
        ])
        #expect(try await store.categoryDetails(userID: "ann", includeInactive: true).count == names.count + 1)
    }

    @Test(arguments: EditingStoreKind.allCases)
    func periodsAndBudgets(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let day = { (d: String) in try Timestamp(parsing: d) }
        let p1 = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Trip", start: day("2025-03-01"), end: day("2025-03-31")))
        let p2 = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Later", start: day("2025-04-01"), end: nil))
        let bobs = try await store.addPeriod(userID: "bob", try PeriodFields(name: "His", start: day("2025-03-01"), end: nil))
        #expect([p1.id, p2.id, bobs.id] == [1, 2, 1])
        #expect(try await store.assign(userID: "ann", period: 1, expenseIDs: ["a1", "b1", "zz"]) == .unknownExpenses(["b1", "zz"]))
        #expect(try await store.assign(userID: "ann", period: 1, expenseIDs: ["a1", "a2", "a2"]) == .done(changed: 2, moved: 0))
        #expect(try await store.assign(userID: "ann", period: 2, expenseIDs: ["a2", "a3"]) == .done(changed: 2, moved: 1))
        #expect(try await store.assign(userID: "ann", period: 7, expenseIDs: ["a1"]) == .noSuchPeriod)
        let inTrip = try await store.expensePage(ExpenseFilter(userID: "ann", period: 1), after: nil, limit: 10)
        #expect(inTrip.expenses.map(\.expense.id) == ["a1"])
        #expect(try await store.deletePeriod(userID: "ann", id: 2) == 2)
        #expect(try await store.deletePeriod(userID: "ann", id: 2) == nil)
        let p3 = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Third", start: day("2025-05-01"), end: nil))
        #expect(p3.id == 3, "a deleted period's id is not given again")
        #expect(try await store.periods(userID: "ann").map { "\($0.id) \($0.name) \($0.expenses)" } == ["1 Trip 1", "3 Third 0"])
        #expect(try await store.period(userID: "bob", id: 3) == nil)

        let eur = try Currency(code: "EUR")
        func budget(_ name: String, _ from: String, _ to: String, category: String? = nil) throws -> Budget {
            Budget(userID: "ann", name: name, amount: Money(minorUnits: 10_000, currency: eur), from: try LocalDay(parsing: from),
                   to: try LocalDay(parsing: to), category: category)
        }
        let first = try #require(try await store.saveBudget(try budget("March", "2025-03-01", "2025-03-31", category: "Food")))
        #expect(first.budget.id == 1 && first.deactivated.isEmpty && !first.budget.createdAt.isEmpty)
        // The overlap rule (the core's): the same scope over overlapping days deactivates the older one.
        let second = try #require(try await store.saveBudget(try budget("Mid", "2025-03-15", "2025-04-15", category: "food")))
        #expect(second.budget.id == 2 && second.deactivated == [1])
        var zoned = try budget("Kiosk", "2025-01-01", "2025-12-31")
        zoned.zone = .circle(center: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94), radius: .meters(300))
        zoned.categoryLimits = [Budget.CategoryLimit(category: "Food", amount: Money(minorUnits: 500, currency: eur))]
        let third = try #require(try await store.saveBudget(zoned))
        // Another scope from the same day: the same `from`, so the newer id comes first.
        #expect(try await store.saveBudget(try budget("Tie", "2025-01-01", "2025-02-01", category: "Transport"))?.budget.id == 4)
        #expect(try await store.budgets(userID: "ann", includeInactive: false).map(\.id) == [2, 4, 3])
        #expect(try await store.budgets(userID: "ann", includeInactive: true).map(\.id) == [2, 4, 3, 1])
        #expect(try await store.budget(id: 3, userID: "ann") == third.budget)
        #expect(try await store.budget(id: 3, userID: "bob") == nil)
        var changed = third.budget
        changed.amount = Money(minorUnits: 20_000, currency: eur)
        #expect(try await store.saveBudget(changed)?.budget == changed)
        changed.id = 9
        #expect(try await store.saveBudget(changed) == nil)
        let spent = try await store.budgetExpenses(userID: "ann", from: try LocalDay(parsing: "2025-03-02"), to: try LocalDay(parsing: "2025-03-04"))
        #expect(spent.map(\.day.description) == ["2025-03-02", "2025-03-03", "2025-03-04", "2025-03-04"])
        #expect(try await store.deleteBudget(id: 3, userID: "bob") == false)
        #expect(try await store.deleteBudget(id: 3, userID: "ann"))
        #expect(try await store.saveBudget(try budget("Next", "2025-06-01", "2025-06-30"))?.budget.id == 5)
    }

    @Test(arguments: EditingStoreKind.allCases)
    func tokens(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let hash = [UInt8](repeating: 7, count: 32)
        let t1 = try await store.addToken(userID: "ann", scope: .read, lookup: "k1", sha256: hash, expiresAt: nil)
        let t2 = try await store.addToken(userID: "bob", scope: .admin, lookup: "k2", sha256: hash, expiresAt: try Timestamp(parsing: "2030-01-01T00:00:00Z"))
        let t3 = try await store.addToken(userID: "ann", scope: .write, lookup: "k3", sha256: [UInt8](repeating: 9, count: 32), expiresAt: nil)
        #expect([t1.id, t2.id, t3.id] == [1, 1, 2])
        await #expect(throws: (any Error).self) { _ = try await store.addToken(userID: "nobody", scope: .read, lookup: "k4", sha256: hash, expiresAt: nil) }
        let found = try #require(try await store.token(lookup: "k3"))
        #expect(found.record == t3 && found.sha256 == [UInt8](repeating: 9, count: 32))
        #expect(try await store.token(lookup: "k9") == nil)
        #expect(try await store.tokens(userID: nil).map { "\($0.userID) \($0.id)" } == ["ann 1", "ann 2", "bob 1"])
        #expect(try await store.revokeToken(userID: "bob", id: 2) == false)
        #expect(try await store.revokeToken(userID: "ann", id: 1))
        #expect(try await store.token(lookup: "k1") == nil)
        #expect(try await store.addToken(userID: "ann", scope: .read, lookup: "k5", sha256: hash, expiresAt: nil).id == 3)
    }
}
