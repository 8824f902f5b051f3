import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// A period given where an expense is written (issue 38: `expenses add --period`, a `period`
/// import column), the same on the file, the memory store and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES`
/// names a server): by id or by name, another user's period is none, an unknown or shared name
/// refuses the whole file naming file, line and column, and nothing is written.
@Suite struct PeriodOnWriteContractTests {
    typealias Kind = EditingStoreKind
    typealias Database = ExpenseStore & ExpenseEditing & CategoryEditing & PeriodStore & PositionStore

    static func fresh(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store: any Database = try await kind.make(in: scratch)
        try await addUsers(["ann", "bob"], to: store)
        // ann: 1 Lisbon trip, 2 Renovation; bob: 1 Skiing, 2 Lisbon trip (his own).
        _ = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Lisbon trip", start: try Timestamp(parsing: "2025-03-01"), end: nil))
        _ = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Renovation", start: try Timestamp(parsing: "2025-04-01"), end: nil))
        _ = try await store.addPeriod(userID: "bob", try PeriodFields(name: "Skiing", start: try Timestamp(parsing: "2025-02-01"), end: nil))
        _ = try await store.addPeriod(userID: "bob", try PeriodFields(name: "Lisbon trip", start: try Timestamp(parsing: "2025-03-01"), end: nil))
        return store
    }

    /// The ids of the user's expenses assigned to period `period`, sorted.
    static func inPeriod(_ store: any Database, _ user: String, _ period: Int64) async throws -> [String] {
        try await store.expensePage(ExpenseFilter(userID: user, period: period), after: nil, limit: 1000).expenses.map(\.expense.id).sorted()
    }

    static func count(_ store: any Database, _ user: String) async throws -> Int {
        try await store.expensePage(ExpenseFilter(userID: user), after: nil, limit: 1000).expenses.count
    }

    @Test(arguments: Kind.allCases)
    func importAssignsByIdOrNameAndPerUser(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let csv = scratch.file("e.csv", """
            id,user,amount,currency,occurred_at,period
            a1,ann,10.00,EUR,2025-03-02,1
            a2,ann,11.00,EUR,2025-03-03,lisbon TRIP
            a3,ann,12.00,EUR,2025-04-02, Renovation
            a4,ann,13.00,EUR,2025-04-03,
            b1,bob,14.00,EUR,2025-03-02,Lisbon trip
            b2,bob,15.00,EUR,2025-02-02,1

            """)
        let report = try await Importer.importExpenses(from: csv, into: store)
        #expect(report.inserted == 6 && report.rejected == 0)
        #expect(try await Self.inPeriod(store, "ann", 1) == ["a1", "a2"])
        #expect(try await Self.inPeriod(store, "ann", 2) == ["a3"], "surrounding spaces are trimmed")
        #expect(try await Self.inPeriod(store, "bob", 2) == ["b1"], "bob's \"Lisbon trip\" is his period 2, not ann's 1")
        #expect(try await Self.inPeriod(store, "bob", 1) == ["b2"])
        #expect(try await store.periods(userID: "ann").map(\.expenses) == [2, 1])
        // A read scope hands out the same periods (`PeriodReader`): by id and per user.
        let inScope = try await store.read { r in
            [try r.period(userID: "ann", id: 2), try r.period(userID: "bob", id: 2), try r.period(userID: "bob", id: 3), try r.period(userID: "nobody", id: 1)]
        }
        let (annsSecond, bobsSecond) = (try await store.period(userID: "ann", id: 2), try await store.period(userID: "bob", id: 2))
        #expect(inScope[0] == annsSecond && inScope[0]?.name == "Renovation")
        #expect(inScope[1] == bobsSecond && inScope[1]?.name == "Lisbon trip")
        #expect(inScope[2] == nil && inScope[3] == nil)

        // JSON Lines, and a re-import with another period moves the expense (as `periods assign`).
        let jsonl = scratch.file("e.jsonl", #"""
            {"id": "a1", "user": "ann", "amount": "10.00", "currency": "EUR", "occurred_at": "2025-03-02", "period": "Renovation"}
            {"id": "a5", "user": "ann", "amount": 9.5, "currency": "EUR", "occurred_at": "2025-04-09", "period": 2}

            """#)
        let again = try await Importer.importExpenses(from: jsonl, into: store)
        #expect(again.inserted == 1 && again.unchanged == 1)
        #expect(try await Self.inPeriod(store, "ann", 1) == ["a2"])
        #expect(try await Self.inPeriod(store, "ann", 2) == ["a1", "a3", "a5"])
    }

    @Test(arguments: Kind.allCases)
    func anUnknownPeriodRefusesTheWholeFile(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let csv = scratch.file("bad.csv", """
            id,user,amount,currency,occurred_at,period
            a1,ann,10.00,EUR,2025-03-02,Lisbon trip
            a2,ann,11.00,EUR,2025-03-03,Skiing
            a3,ann,12.00,EUR,2025-03-04,7

            """)
        let error = await #expect(throws: ImportError.self) { try await Importer.importExpenses(from: csv, into: store) }
        guard case .rejected(let errors, let bad)? = error else { Issue.record("not a rejection: \(String(describing: error))"); return }
        #expect(bad == 2)
        #expect(errors.map { "\($0.file):\($0.location):\($0.column)" } == ["\(csv):3:period", "\(csv):4:period"])
        #expect(errors[0].reason.contains("\"Skiing\" is not a period of user \"ann\""), "bob's period is not ann's: \(errors[0].reason)")
        #expect(errors[0].reason.contains("geospend periods list --user ann"))
        #expect(try await Self.count(store, "ann") == 1, "all or nothing: the good row is not written either")
        #expect(try await Self.inPeriod(store, "ann", 1).isEmpty)

        // --skip-invalid writes the good rows only: the refused row is not written without its period.
        let partial = try await Importer.importExpenses(from: csv, into: store, options: ImportOptions(skipInvalid: true))
        #expect(partial.inserted == 1 && partial.rejected == 2)
        #expect(try await Self.inPeriod(store, "ann", 1) == ["a1"])
        #expect(try await Self.count(store, "ann") == 2)

        // A name two periods share is refused with their ids; the id is always unique.
        _ = try await store.addPeriod(userID: "ann", try PeriodFields(name: "lisbon trip", start: try Timestamp(parsing: "2026-03-01"), end: nil))
        let shared = scratch.file("shared.jsonl", #"""
            {"id": "a1", "user": "ann", "amount": "10.00", "currency": "EUR", "occurred_at": "2025-03-02", "period": "Lisbon Trip"}

            """#)
        let ambiguous = await #expect(throws: ImportError.self) { try await Importer.importExpenses(from: shared, into: store) }
        guard case .rejected(let errors2, _)? = ambiguous else { Issue.record("not a rejection"); return }
        #expect(errors2.map { "\($0.location):\($0.column)" } == ["1:period"])
        #expect(errors2[0].reason.contains("names 2 periods of user \"ann\" (ids 1, 3); give the id"), "\(errors2[0].reason)")

    }

    @Test(arguments: Kind.allCases)
    func addingAnExpenseWithAPeriod(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let fields = ["amount": "4.50", "currency": "EUR", "occurred_at": "2025-04-05", "period": "renovation"]
        let (expense, _) = try ExpenseChanges.new(fields, user: "ann", remindAt: nil)
        let (stored, _) = try await ExpenseChanges.add(expense, remindAt: nil, store: store)
        #expect(try await Self.inPeriod(store, "ann", 2) == [stored.expense.id])

        var unknown = fields
        unknown["period"] = "Skiing"
        let (other, _) = try ExpenseChanges.new(unknown, user: "ann", remindAt: nil)
        let error = await #expect(throws: UsageError.self) { try await ExpenseChanges.add(other, remindAt: nil, store: store) }
        #expect(error?.message.hasPrefix("--period: \"Skiing\" is not a period of user \"ann\"") == true, "\(String(describing: error))")
        #expect(try await Self.count(store, "ann") == 2, "nothing added")

        // Editing moves it, or takes it out with "".
        _ = try await ExpenseChanges.edit(id: stored.expense.id, user: "ann", fields: ["period": "1"], remindAt: nil, store: store)
        #expect(try await Self.inPeriod(store, "ann", 1) == [stored.expense.id])
        #expect(try await Self.inPeriod(store, "ann", 2).isEmpty)
        _ = try await ExpenseChanges.edit(id: stored.expense.id, user: "ann", fields: ["period": ""], remindAt: nil, store: store)
        #expect(try await store.periods(userID: "ann").map(\.expenses) == [0, 0])
        await #expect(throws: UsageError.self) {
            try await ExpenseChanges.edit(id: stored.expense.id, user: "ann", fields: ["period": "3"], remindAt: nil, store: store)
        }
    }
}
