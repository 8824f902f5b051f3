import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `UserDataStore.restore` (`geospend users import`), the same on the file and on PostgreSQL
/// (where `$GEOSPEND_TEST_POSTGRES` names a server): export → delete → restore → export gives
/// the same bytes; a user with data is refused and nothing is written; a corrupt document is
/// refused with the JSON path of the bad value; a failure halfway leaves the user absent;
/// `as:` restores under another id and leaves the original and bob alone.
@Suite struct UserRestoreContractTests {
    typealias Kind = PositionStoreContractTests.Kind
    typealias Database = ExpenseStore & ExpenseEditing & CategoryEditing & PeriodStore & PositionStore & UserSettingsStore
        & NotificationStore & UserProfileStore & UserDataStore & BudgetStore & RecurringStore & PantryStore

    static func make(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        switch kind {
        case .spatiaLite: try scratch.store()
        case .postGIS: try await PostGISTestServer.freshStore()
        }
    }

    /// ann with a row of every table restore writes; bob with some of his own.
    static func loaded(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        typealias P = PositionStoreContractTests
        let store = try await make(kind, scratch)
        _ = try await Importer.importStores(from: scratch.file("stores.csv", P.storesCSV), into: store)
        #expect(try await Importer.importExpenses(from: scratch.file("ann.jsonl", P.expensesJSONL), into: store).inserted == 3)
        #expect(try await Importer.importExpenses(from: scratch.file("bob.jsonl", P.bobJSONL), into: store).inserted == 1)
        let eur = try Currency(code: "EUR")
        // One added by hand: a reminder, creation and change times, a manual position, notes with
        // characters JSON escapes, a category of ann's own with icon and colour.
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
        #expect(try await store.setNotificationSettings(
            NotificationSettings(events: ["budget.threshold"], quietHours: NotificationSettings.QuietHours(parsing: "22:00-07:00"), reminderLeadMinutes: 30),
            userID: "ann"))
        _ = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Gone", start: try Timestamp(parsing: "2026-01-01"), end: nil))
        #expect(try await store.deletePeriod(userID: "ann", id: 1) != nil)
        let trip = try await store.addPeriod(userID: "ann", try PeriodFields(name: "Trip", start: try Timestamp(parsing: "2026-03-01"), end: try Timestamp(parsing: "2026-03-31")))
        _ = try await store.assign(userID: "ann", period: trip.id, expenseIDs: ["a1", "a4"])
        _ = try await store.addLocationHistory(P.annHistory, userID: "ann")
        _ = try await store.addLocationHistory(P.bobHistory, userID: "bob")
        _ = try await store.addPeriod(userID: "bob", try PeriodFields(name: "Bob's", start: try Timestamp(parsing: "2026-03-01"), end: nil))
        // Budgets: one with a category limit, a circle zone and thresholds of its own, one
        // inactive over a polygon; a recurring rule that names a store; pantry items open and used.
        _ = try await store.saveBudget(Budget(
            userID: "ann", name: "March", amount: Money(minorUnits: 50_000, currency: eur), from: try LocalDay(parsing: "2026-03-01"),
            to: try LocalDay(parsing: "2026-03-31"), categoryLimits: [Budget.CategoryLimit(category: "Snacks", amount: Money(minorUnits: 2_050, currency: eur))],
            zone: .circle(center: Coordinate(uncheckedLatitude: 60.1699, longitude: 24.9384), radius: Distance(meters: 1500)), thresholds: [50, 90, 120]))
        let polygon = #"{"type":"Polygon","coordinates":[[[24.9,60.1],[25.0,60.1],[25.0,60.2],[24.9,60.1]]]}"#
        _ = try await store.saveBudget(Budget(
            userID: "ann", name: "Weekly", amount: Money(minorUnits: 10_000, currency: eur), from: try LocalDay(parsing: "2026-01-01"),
            to: try LocalDay(parsing: "2026-12-31"), every: .week, zone: try BudgetZone.parsing(geoJSON: Array(polygon.utf8), source: "zone"), isActive: false))
        _ = try await RecurringChanges.add(
            ["every": "monthly", "from": "2026-01-31", "amount": "950", "currency": "EUR", "title": "Rent", "category": "Bills", "store_id": "s2"],
            user: "ann", store: store)
        _ = try await store.addPantryItem(userID: "ann", PantryFields(name: "Milch", quantity: "2 l", expires: try LocalDay(parsing: "2026-03-20")))
        let used = try #require(try await store.addPantryItem(userID: "ann", PantryFields(name: "Brot", quantity: nil, expires: nil)))
        _ = try await store.closePantryItem(userID: "ann", id: used.id, as: .used)
        return store
    }

    static func export(_ store: any Database, _ user: String) async throws -> String? {
        try await store.withUserData(user) { data in
            let sink = ByteSink()
            _ = try UserExport.write(data, generatedAt: "2026-01-01T00:00:00Z", to: sink)
            return String(decoding: sink.bytes, as: UTF8.self)
        }
    }

    @Test(arguments: Kind.allCases)
    func exportDeleteRestoreExportIsByteIdentical(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let before = try #require(try await Self.export(store, "ann"))
        let bobBefore = try #require(try await Self.export(store, "bob"))
        // The fixture holds what the test claims: every section restore writes is non-empty.
        for key in [
            "\"expense_times\":[\n", "\"periods\":[\n", "\"positions\":[\n", "\"visits\":[\n", "\"time_zone\":\"Europe", "\"quiet_hours\":\"22:00-07:00\"",
            "\"icon\":\"🍫\"", "\"type\":\"circle\"", "\"type\":\"polygon\"", "\"thresholds\":[50,90,120]", "\"recurring\":[\n", "\"status\":\"used\"",
        ] {
            #expect(before.contains(key), "\(key)")
        }
        let data = try UserRestore.read(Array(before.utf8))
        #expect(data.expenses.count == 4 && data.periods.count == 1 && data.positions.count == 3 && data.visits.count == 2)
        #expect(data.budgets.count == 2 && data.recurring.count == 1 && data.pantry.count == 2)
        #expect(try await store.deleteUser("ann", rewriteFile: false) != nil)
        #expect(try await Self.export(store, "ann") == nil)
        try await store.restore(data, as: "ann")
        let after = try #require(try await Self.export(store, "ann"))
        #expect(after == before)
        #expect(try await Self.export(store, "bob") == bobBefore, "bob untouched")
        // The period counter resumes after the restored ids: a new period is 3, as before the delete.
        #expect(try await store.addPeriod(userID: "ann", try PeriodFields(name: "Next", start: try Timestamp(parsing: "2026-04-01"), end: nil)).id == 3)
        #expect(try await store.addPantryItem(userID: "ann", PantryFields(name: "Käse", quantity: nil, expires: nil))?.id == 3)
    }

    @Test(arguments: Kind.allCases)
    func aUserWithDataIsRefusedAndNothingIsWritten(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let ann = try #require(try await Self.export(store, "ann"))
        let bob = try #require(try await Self.export(store, "bob"))
        let data = try UserRestore.read(Array(ann.utf8))
        for user in ["ann", "bob"] {
            await #expect(throws: UserRestoreError.self) { try await store.restore(data, as: user) }
            do { try await store.restore(data, as: user) } catch let error as UserRestoreError {
                guard case .notEmpty(let named, let rows) = error else { Issue.record("\(error)"); continue }
                #expect(named == user && rows > 0)
                #expect(error.description.contains("geospend users delete \(user)") && error.description.contains("--as NEWID"))
            }
        }
        #expect(try await Self.export(store, "ann") == ann)
        #expect(try await Self.export(store, "bob") == bob)
    }

    @Test(arguments: Kind.allCases)
    func asAnotherIDLeavesTheOriginalAlone(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let ann = try #require(try await Self.export(store, "ann"))
        let bob = try #require(try await Self.export(store, "bob"))
        try await store.restore(try UserRestore.read(Array(ann.utf8)), as: "carol")
        let carol = try #require(try await Self.export(store, "carol"))
        // The same document but for the user's id (the header and each expense's `user`).
        let expected = ann.replacingOccurrences(of: "{\"id\":\"ann\",", with: "{\"id\":\"carol\",")
            .replacingOccurrences(of: "\"user\":\"ann\"", with: "\"user\":\"carol\"")
        #expect(carol == expected)
        #expect(carol.contains("\"user\":\"carol\"") && !carol.contains("\"ann\""))
        #expect(try await Self.export(store, "ann") == ann)
        #expect(try await Self.export(store, "bob") == bob)
    }

    /// A bad value is named by its JSON path, before anything is written.
    @Test func aCorruptDocumentIsRefusedWithThePath() async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(.spatiaLite, scratch)
        let ann = try #require(try await Self.export(store, "ann"))
        func refusal(_ text: String) -> UserRestoreError? {
            do { _ = try UserRestore.read(Array(text.utf8)); return nil } catch { return error }
        }
        let badAmount = ann.replacingOccurrences(of: "\"amount\":\"2.00\"", with: "\"amount\":\"2.0x\"")
        guard case .invalid(let path, _)? = refusal(badAmount) else { Issue.record("not refused"); return }
        #expect(path == "expenses[1].amount")
        #expect(refusal(ann.replacingOccurrences(of: "\"version\":1", with: "\"version\":2"))?.description.hasPrefix("version: 2 is not a version") == true)
        guard case .invalid(let accuracyPath, _)? = refusal(ann.replacingOccurrences(of: "\"accuracy_m\":8.0", with: "\"accuracy_m\":-8.0")) else {
            Issue.record("a negative accuracy was read"); return
        }
        #expect(accuracyPath == "expenses[2].accuracy_m")
        #expect(refusal(String(ann.dropLast(3))) != nil)
        guard case .invalid(let latPath, _)? = refusal(ann.replacingOccurrences(of: "\"lat\":60.171,", with: "\"lat\":91,")) else {
            Issue.record("a latitude of 91 was read"); return
        }
        #expect(latPath == "positions[2]")
        #expect(refusal(ann.replacingOccurrences(of: "\"receipts\":[]", with: "\"receipts\":[{}]")) == .unsupported(section: "receipts", rows: 1))
        #expect(refusal(ann.replacingOccurrences(of: "\"thresholds\":[50,90,120]", with: "\"thresholds\":[90,50]"))
            == .invalid(path: "budgets[0].thresholds", reason: "are not at most 10 distinct percentages in ascending order"))
        #expect(refusal(String(repeating: " ", count: UserRestore.maximumBytes + 1)) == .tooLarge(bytes: UserRestore.maximumBytes + 1, limit: UserRestore.maximumBytes))
    }

    /// A failure halfway through the transaction (a position twice: the table's key refuses the
    /// second, after the user, categories and expenses were written) leaves no trace; so does a
    /// store the database does not have.
    @Test(arguments: Kind.allCases)
    func aFailureHalfwayWritesNothing(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.loaded(kind, scratch)
        let ann = try #require(try await Self.export(store, "ann"))
        var data = try UserRestore.read(Array(ann.utf8))
        data.positions.append(data.positions[0])
        await #expect(throws: (any Error).self) { try await store.restore(data, as: "dave") }
        #expect(try await Self.export(store, "dave") == nil)
        var missing = try UserRestore.read(Array(ann.utf8))
        missing.storeIDs.append("nowhere")
        await #expect(throws: UserRestoreError.unknownStore(id: "nowhere")) { try await store.restore(missing, as: "dave") }
        #expect(try await store.users().map(\.id) == ["ann", "bob"])
    }
}
