import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `users export` → `users delete` → `users import` over a user's own records (expenses with
/// their times and positions, categories, periods, budgets, location history, settings, the
/// profile), on the file, the memory store and PostgreSQL: the same bytes come back.
/// UserRestoreContractTests covers every table; its fixture starts with this one's.
@Suite struct EditingRestoreContractTests {
    typealias Database = ExpenseStore & ExpenseEditing & CategoryEditing & PeriodStore & BudgetStore & PositionStore & UserSettingsStore
        & UserDataStore & UserProfileStore

    static func make(_ kind: EditingStoreKind, _ scratch: Scratch) async throws -> any Database {
        try await kind.make(in: scratch)
    }

    /// ann with a row of each kind these stores keep, one placed by geotagging; bob with some
    /// of his own.
    static func loaded(_ kind: EditingStoreKind, _ scratch: Scratch) async throws -> any Database {
        let store = try await make(kind, scratch)
        try await addOwnRecords(to: store, scratch)
        #expect(try await store.place([PositionStoreContractTests.placement("a1")], userID: "ann") == [true])
        return store
    }

    /// The stores and expenses of PositionStoreContractTests, then for ann what a user adds by
    /// hand (UserRestoreContractTests adds the rest of every table to it):
    /// - an expense with a reminder, creation and change times, a manual position and notes
    ///   with characters JSON escapes, in a category of her own with icon and colour;
    /// - a deactivated default category, her name and email, settings;
    /// - a deleted period and one with expenses, her history (and bob's, and his period);
    /// - a budget with a category limit, a circle zone and thresholds of its own, one inactive
    ///   over a polygon.
    static func addOwnRecords(to store: any Database, _ scratch: Scratch) async throws {
        typealias P = PositionStoreContractTests
        _ = try await Importer.importStores(from: scratch.file("stores.csv", P.storesCSV), into: store)
        #expect(try await Importer.importExpenses(from: scratch.file("ann.jsonl", P.expensesJSONL), into: store).inserted == 3)
        #expect(try await Importer.importExpenses(from: scratch.file("bob.jsonl", P.bobJSONL), into: store).inserted == 1)
        let eur = try Currency(code: "EUR")
        _ = try await store.addCategory(Category(name: "Snacks", kind: .expense), userID: "ann", icon: "🍫", color: "#aa3300")
        _ = try await store.editCategory(name: "Education", kind: .expense, userID: "ann", change: CategoryChange(isActive: false))
        _ = try await store.addExpense(
            Expense(
                id: "a4", userID: "ann", amount: Money(minorUnits: 123_456_789, currency: eur),
                occurredAt: try Timestamp(parsing: "2026-03-06T18:30:00-05:00"), title: "Line\n\"two\"", category: "Snacks",
                location: ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.1234567891, longitude: 24.9876543219), accuracyMeters: 3.5),
                notes: "tab\there"),
            remindAt: try Timestamp(parsing: "2026-03-07T09:00:00+02:00"))
        _ = try await store.setUserProfile(userID: "ann", name: "Ann Example", email: "ann@example.org")
        #expect(try await store.setUserSettings(try UserSettings(timeZone: "Europe/Helsinki", positionRetentionDays: 36_500), userID: "ann"))
        _ = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Gone", start: try Timestamp(parsing: "2026-01-01"), end: nil))
        #expect(try await store.deletePeriod(userID: "ann", id: 1) != nil)
        let trip = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Trip", start: try Timestamp(parsing: "2026-03-01"), end: try Timestamp(parsing: "2026-03-31")))
        _ = try await store.assign(userID: "ann", period: trip.id, expenseIDs: ["a1", "a4"])
        _ = try await store.addLocationHistory(P.annHistory, userID: "ann")
        _ = try await store.addLocationHistory(P.bobHistory, userID: "bob")
        _ = try await store.addPeriod(userID: "bob", try PeriodFields(name: "Bob's", start: try Timestamp(parsing: "2026-03-01"), end: nil))
        _ = try await store.saveBudget(Budget(
            userID: "ann", name: "March", amount: Money(minorUnits: 50_000, currency: eur), from: try LocalDay(parsing: "2026-03-01"),
            to: try LocalDay(parsing: "2026-03-31"), categoryLimits: [Budget.CategoryLimit(category: "Snacks", amount: Money(minorUnits: 2_050, currency: eur))],
            zone: .circle(center: Coordinate(uncheckedLatitude: 60.1699, longitude: 24.9384), radius: Distance(meters: 1500)), thresholds: [50, 90, 120]))
        let polygon = #"{"type":"Polygon","coordinates":[[[24.9,60.1],[25.0,60.1],[25.0,60.2],[24.9,60.1]]]}"#
        _ = try await store.saveBudget(Budget(
            userID: "ann", name: "Weekly", amount: Money(minorUnits: 10_000, currency: eur), from: try LocalDay(parsing: "2026-01-01"),
            to: try LocalDay(parsing: "2026-12-31"), every: .week, zone: try BudgetZone.parsing(geoJSON: Array(polygon.utf8), source: "zone"), isActive: false))
    }

    @Test(arguments: EditingStoreKind.allCases)
    func exportDeleteRestoreExportIsByteIdentical(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let before = try #require(try await UserRestoreContractTests.export(store, "ann"))
        let bobBefore = try #require(try await UserRestoreContractTests.export(store, "bob"))
        for key in [
            "\"expense_times\":[\n", "\"position_source\":\"history\"", "\"periods\":[\n", "\"positions\":[\n", "\"visits\":[\n",
            "\"time_zone\":\"Europe", "\"icon\":\"🍫\"", "\"email\":\"ann@example.org\"", "\"type\":\"circle\"", "\"type\":\"polygon\"",
            "\"thresholds\":[50,90,120]",
        ] {
            #expect(before.contains(key), "\(key)")
        }
        let data = try UserRestore.read(Array(before.utf8))
        #expect(data.expenses.count == 4 && data.periods.count == 1 && data.positions.count == 3 && data.visits.count == 2 && data.budgets.count == 2)
        #expect(data.displayName == "Ann Example")
        #expect(try await store.deleteUser("ann", rewriteFile: false) != nil)
        #expect(try await UserRestoreContractTests.export(store, "ann") == nil)
        try await store.restore(data, as: "ann")
        #expect(try await UserRestoreContractTests.export(store, "ann") == before)
        #expect(try await UserRestoreContractTests.export(store, "bob") == bobBefore, "bob untouched")
        // The counters resume after the restored ids.
        #expect(try await store.addPeriod(userID: "ann", try PeriodFields(name: "Next", start: try Timestamp(parsing: "2026-04-01"), end: nil)).id == 3)
        // A user with data is refused, and nothing is written.
        let refused = await #expect(throws: UserRestoreError.self) { try await store.restore(data, as: "bob") }
        guard case .notEmpty(let user, let rows)? = refused else { Issue.record("\(String(describing: refused))"); return }
        #expect(user == "bob" && rows > 0)
        #expect(try await UserRestoreContractTests.export(store, "bob") == bobBefore)
    }
}
