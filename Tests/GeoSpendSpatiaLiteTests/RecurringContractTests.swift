import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `RecurringStore` and `RecurringRun`, the same on the file, the memory store and PostgreSQL
/// (where `$GEOSPEND_TEST_POSTGRES` names a server): ids per user, another user's rule is none, a run
/// creates each due day once — twice run, raced, or after the user deleted one of its expenses.
@Suite struct RecurringContractTests {
    typealias Kind = EditingStoreKind
    typealias Database = ExpenseStore & ExpenseEditing & CategoryEditing & RecurringStore & NotificationStore & BudgetStore & UserDataStore
        & UserSettingsStore

    static func fresh(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store: any Database = try await kind.make(in: scratch)
        try await addUsers(["ann", "bob"], to: store)
        return store
    }

    static func rent(_ amount: String = "950", from: String = "2025-01-31", every: String = "monthly", until: String? = nil) -> [String: String] {
        var f = ["every": every, "from": from, "amount": amount, "currency": "EUR", "title": "Rent", "category": "Bills"]
        f["until"] = until
        return f
    }

    static func day(_ s: String) throws -> LocalDay { try LocalDay(parsing: s) }

    static func ids(_ store: any Database, _ user: String = "ann") async throws -> [String] {
        try await store.expensePage(ExpenseFilter(userID: user), after: nil, limit: 1000).expenses.map(\.expense.id).filter { $0 != "first" }.sorted()
    }

    @Test(arguments: Kind.allCases)
    func rulesAreNumberedPerUserAndNotSeenByOthers(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let bobs = try await RecurringChanges.add(Self.rent("700"), user: "bob", store: store)
        let anns = try await RecurringChanges.add(Self.rent(), user: "ann", store: store)
        #expect(bobs.id == 1 && anns.id == 1)
        #expect(anns.nextDue?.description == "2025-01-31")
        #expect(try await store.recurringRules(userID: "ann").map(\.fields.amount.decimalString) == ["950.00"])
        let edited = try await RecurringChanges.edit(id: 1, ["amount": "990", "until": "2025-06-30"], user: "ann", store: store)
        #expect(edited.fields.amount.decimalString == "990.00" && edited.fields.until?.description == "2025-06-30")
        #expect(try await store.recurringRules(userID: "bob").map(\.fields.amount.decimalString) == ["700.00"], "bob's rule 1 is not ann's")
        #expect(try await store.deleteRecurring(userID: "ann", id: 1))
        #expect(try await !store.deleteRecurring(userID: "ann", id: 1))
        #expect(try await RecurringChanges.add(Self.rent(), user: "ann", store: store).id == 2, "a deleted id is not given again")
        #expect(try await store.recurringRules(userID: "bob").count == 1)
        // The user's own words for what is wrong.
        await #expect(throws: UsageError.self) { try await RecurringChanges.add(Self.rent(every: "fortnightly"), user: "ann", store: store) }
        await #expect(throws: UsageError.self) { try await RecurringChanges.add(Self.rent(until: "2024-12-31"), user: "ann", store: store) }
        await #expect(throws: UsageError.self) { try await RecurringChanges.add(Self.rent().merging(["category": "Bils"]) { $1 }, user: "ann", store: store) }
        await #expect(throws: UsageError.self) { try await RecurringChanges.add(Self.rent().merging(["store_id": "nowhere"]) { $1 }, user: "ann", store: store) }
        await #expect(throws: UsageError.self) { try await RecurringChanges.edit(id: 9, ["amount": "1"], user: "ann", store: store) }
    }

    @Test(arguments: Kind.allCases)
    func aRunCreatesEachDueDayOnce(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await RecurringChanges.add(Self.rent(), user: "ann", store: store)
        _ = try await RecurringChanges.add(Self.rent("700"), user: "bob", store: store)
        let first = try await RecurringRun.run(userID: "ann", asOf: try Self.day("2025-04-29"), store: store)
        #expect(first.map(\.expenseIDs) == [["recurring-1-2025-01-31", "recurring-1-2025-02-28", "recurring-1-2025-03-31"]])
        #expect(first[0].nextDue?.description == "2025-04-30")
        let stored = try #require(try await store.expense(id: "recurring-1-2025-02-28", userID: "ann"))
        #expect(stored.expense.amount.decimalString == "950.00" && stored.expense.category == "Bills" && stored.expense.occurredAt.text == "2025-02-28")
        // Again: nothing more.
        #expect(try await RecurringRun.run(userID: "ann", asOf: try Self.day("2025-04-29"), store: store).isEmpty)
        // A deleted day is not made again; an edited one stays as edited.
        _ = try await store.deleteExpense(id: "recurring-1-2025-02-28", userID: "ann", rewrite: .skipped)
        var edited = try #require(try await store.expense(id: "recurring-1-2025-03-31", userID: "ann")).expense
        edited.amount = Money(minorUnits: 97_500, currency: edited.amount.currency)
        #expect(try await store.updateExpense(edited, remindAt: nil) != nil)
        let later = try await RecurringRun.run(userID: "ann", asOf: try Self.day("2025-05-31"), store: store)
        #expect(later.map(\.expenseIDs) == [["recurring-1-2025-04-30", "recurring-1-2025-05-31"]])
        #expect(try await Self.ids(store) == ["recurring-1-2025-01-31", "recurring-1-2025-03-31", "recurring-1-2025-04-30", "recurring-1-2025-05-31"])
        #expect(try await store.expense(id: "recurring-1-2025-03-31", userID: "ann")?.expense.amount.decimalString == "975.00")
        #expect(try await Self.ids(store, "bob").isEmpty, "ann's run is not bob's")
    }

    /// Two runs at once: the rule moves once; the loser writes nothing and reads the rule again.
    @Test(arguments: Kind.allCases)
    func aRaceCreatesNothingTwice(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let rule = try await RecurringChanges.add(Self.rent(from: "2025-03-03", every: "weekly"), user: "ann", store: store)
        let due = RecurringRun.dueDays(rule, asOf: try Self.day("2025-03-20"))
        #expect(due.days.map(\.description) == ["2025-03-03", "2025-03-10", "2025-03-17"] && due.next?.description == "2025-03-24")
        let expenses = due.days.map { rule.fields.expense(id: rule.expenseID(on: $0), userID: "ann", on: $0) }
        let won = try await store.createOccurrences(userID: "ann", rule: 1, expectedNextDue: rule.nextDue!, expenses: expenses, nextDue: due.next)
        #expect(won == [RowOutcome.inserted, .inserted, .inserted])
        let lost = try await store.createOccurrences(
            userID: "ann", rule: 1, expectedNextDue: rule.nextDue!, expenses: [rule.fields.expense(id: "late", userID: "ann", on: due.days[0])], nextDue: due.next)
        #expect(lost == nil)
        #expect(try await store.expense(id: "late", userID: "ann") == nil, "the loser wrote nothing")
        // bob cannot move ann's rule.
        #expect(try await store.createOccurrences(userID: "bob", rule: 1, expectedNextDue: due.next!, expenses: [], nextDue: nil) == nil)
    }

    /// `until` ends the rule; a run is bounded, the rest follows on the next one.
    @Test(arguments: Kind.allCases)
    func untilEndsAndRunsAreBounded(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await RecurringChanges.add(Self.rent(until: "2025-03-15"), user: "ann", store: store)
        let ended = try await RecurringRun.run(userID: "ann", asOf: try Self.day("2025-12-31"), store: store)
        #expect(ended.map(\.expenseIDs.count) == [2] && ended[0].nextDue == nil)
        #expect(try await store.recurringRules(userID: "ann")[0].nextDue == nil)
        // Extending an ended rule goes on after its old last day.
        let extended = try await RecurringChanges.edit(id: 1, ["until": ""], user: "ann", store: store)
        #expect(extended.nextDue?.description == "2025-03-31")

        _ = try await RecurringChanges.add(["every": "daily", "from": "2020-01-01", "amount": "1", "currency": "EUR"], user: "ann", store: store)
        let big = try await RecurringRun.run(userID: "ann", asOf: try Self.day("2023-12-31"), ruleID: 2, store: store)
        #expect(big.map(\.expenseIDs.count) == [RecurringRun.maxDaysPerRun] && big[0].moreDue)
        let rest = try await RecurringRun.run(userID: "ann", asOf: try Self.day("2023-12-31"), ruleID: 2, store: store)
        #expect(rest[0].expenseIDs.count == 461 && rest[0].expenseIDs.first == "recurring-2-2022-09-27" && !rest[0].moreDue, "1,461 days from 2020 through 2023")
    }

    /// What a run creates is an expense like any other: it counts towards the user's budget.
    @Test(arguments: Kind.allCases)
    func aRunRaisesBudgetEvents(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let budget = Budget(
            userID: "ann", name: "Home", amount: Money(minorUnits: 100_000, currency: try Currency(code: "EUR")),
            from: try Self.day("2025-01-01"), to: try Self.day("2025-12-31"), every: .month)
        #expect(try await store.saveBudget(budget)?.budget.id == 1)
        _ = try await RecurringChanges.add(Self.rent(), user: "ann", store: store)
        _ = try await RecurringRun.run(userID: "ann", asOf: try Self.day("2025-02-28"), store: store)
        let events = try await store.notifications(userID: "ann", after: nil, limit: 100, unreadOnly: false).map(\.type)
        #expect(events.filter { $0 == NotificationType.budgetThreshold }.count == 2, "\(events): 95 % of January and of February")
    }

    /// The scheduler's run: each user through their own today. At 2025-03-31T23:30Z it is
    /// already 1 April in Tokyo (bob), still 31 March in New York (carl) and for ann, who chose
    /// no zone (UTC).
    @Test(arguments: Kind.allCases)
    func theSchedulerRunsEachUserThroughTheirOwnToday(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.addExpense(
            Expense(id: "first", userID: "carl", amount: Money(minorUnits: 100, currency: try Currency(code: "EUR")), occurredAt: try Timestamp(parsing: "2025-01-01")),
            remindAt: nil)
        #expect(try await store.setUserSettings(try UserSettings(timeZone: "Asia/Tokyo", positionRetentionDays: nil), userID: "bob"))
        #expect(try await store.setUserSettings(try UserSettings(timeZone: "America/New_York", positionRetentionDays: nil), userID: "carl"))
        for user in ["ann", "bob", "carl"] { _ = try await RecurringChanges.add(Self.rent(from: "2025-03-01"), user: user, store: store) }
        let now = Date(timeIntervalSince1970: 1_743_463_800)  // 2025-03-31T23:30:00Z
        let ran = try await RecurringRun.runDue(at: now, store: store)
        #expect(ran.map { "\($0.user) \($0.created.flatMap(\.expenseIDs).joined(separator: " "))" } == [
            "ann recurring-1-2025-03-01", "bob recurring-1-2025-03-01 recurring-1-2025-04-01", "carl recurring-1-2025-03-01",
        ])
        #expect(try await RecurringRun.runDue(at: now, store: store).isEmpty, "nothing twice")
        #expect(try await store.usersWithRecurringDue(onOrBefore: try Self.day("2025-04-01")) == ["ann", "carl"])
    }
}
