import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `PositionStore` promises the same on the file, the memory store and PostgreSQL (where
/// `$GEOSPEND_TEST_POSTGRES` names a server): the location history's import, windows and
/// deletion, placing and unplacing expenses with their provenance, and what `users export` and
/// `users delete` do with it. Each test goes through the protocols alone; histories are built
/// in code (the readers have their own tests), expenses and stores come from files.
@Suite struct PositionStoreContractTests {
    typealias PositionDatabase = ExpenseStore & ExpenseEditing & PositionStore & UserDataStore

    /// The file and PostgreSQL, for what concerns those two alone (a PostgreSQL migration,
    /// MonoDefaultsTests' migrated file); this suite otherwise runs on `EditingStoreKind`.
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case spatiaLite, postGIS
        static var allCases: [Kind] { PostGISTestServer.address == nil ? [.spatiaLite] : [.spatiaLite, .postGIS] }
        var testDescription: String { rawValue }
    }

    /// The kiosk `s1` and the café `s2`, 300 m apart in Helsinki.
    static let storesCSV = "id,name,lat,lon\ns1,Kiosk,60.17,24.94\ns2,Cafe,60.1699,24.9438\n"

    /// ann's a1 (nowhere, no store), a2 (no position, linked to s1), a3 (a position of its own,
    /// from the device).
    static let expensesJSONL = [
        #"{"id":"a1","user":"ann","amount":"4.50","currency":"EUR","occurred_at":"2026-03-05T10:00:00+02:00","merchant":"CAFE"}"#,
        #"{"id":"a2","user":"ann","amount":"2.00","currency":"EUR","occurred_at":"2026-03-05T12:00:00+02:00","store_id":"s1"}"#,
        #"{"id":"a3","user":"ann","amount":"7.00","currency":"EUR","occurred_at":"2026-03-05T15:00:00+02:00","lat":60.18,"lon":24.95,"accuracy_m":8}"#,
    ].joined(separator: "\n") + "\n"
    /// bob's a1 (nowhere: the same id, another user's), in a file of its own (an import refuses
    /// an id twice in one file, whoever's).
    static let bobJSONL = #"{"id":"a1","user":"bob","amount":"9.99","currency":"EUR","occurred_at":"2026-03-05T10:00:00+02:00"}"# + "\n"

    static func make(_ kind: EditingStoreKind, _ scratch: Scratch) async throws -> any PositionDatabase {
        try await kind.make(in: scratch)
    }

    /// A store with the stores and expenses above; returns it and the expense file's path.
    static func loaded(_ kind: EditingStoreKind, _ scratch: Scratch) async throws -> (store: any PositionDatabase, expenses: String) {
        let store = try await make(kind, scratch)
        _ = try await Importer.importStores(from: scratch.file("stores.csv", storesCSV), into: store)
        let path = scratch.file("expenses.jsonl", expensesJSONL)
        #expect(try await Importer.importExpenses(from: path, into: store).inserted == 3)
        #expect(try await Importer.importExpenses(from: scratch.file("bob.jsonl", bobJSONL), into: store).inserted == 1)
        return (store, path)
    }

    /// 2026-03-05T08:00:00Z, the day's first instant used here.
    static let t0: Int64 = 1_772_697_600_000

    static func fix(_ seconds: Int64, _ lat: Double, _ lon: Double, accuracy: Double? = 10, _ source: LocationHistoryFormat = .googleRecords) -> Position {
        Position(epochMilliseconds: t0 + seconds * 1000, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), accuracyMeters: accuracy, source: source)
    }

    static func visit(_ start: Int64, _ end: Int64, name: String?, source: LocationHistoryFormat? = .googleSemantic) -> Visit {
        Visit(
            startEpochMilliseconds: t0 + start * 1000, endEpochMilliseconds: t0 + end * 1000,
            centre: Coordinate(uncheckedLatitude: 60.1699, longitude: 24.9438), radiusMeters: 25, placeName: name,
            placeID: name.map { "ChIJ-\($0)" }, probability: 0.75, source: source)
    }

    /// ann's morning: three fixes at 0, 60 and 120 s, one recorded visit 30–90 s, one at 120–180 s
    /// (starts where the second window ends), and a detected stay (never stored).
    static let annHistory = LocationHistory(
        positions: [fix(0, 60.1699, 24.9438), fix(60, 60.1700, 24.9440, accuracy: nil), fix(120, 60.1710, 24.9450)],
        visits: [
            visit(30, 90, name: "Cafe"), visit(120, 180, name: nil, source: .googleTimeline),
            visit(0, 120, name: nil, source: nil),
        ])
    /// bob at the same instants, elsewhere.
    static let bobHistory = LocationHistory(
        positions: [fix(0, -33.8688, 151.2093), fix(60, -33.8690, 151.2095), fix(120, -33.8700, 151.2100)],
        visits: [visit(30, 90, name: "Elsewhere")])

    static func coordinates(_ h: LocationHistory) -> [String] {
        h.positions.map { "\(($0.epochMilliseconds - t0) / 1000) \($0.coordinate.latitude) \($0.coordinate.longitude) \($0.accuracyMeters.map { "\($0)" } ?? "-")" }
    }

    @Test(arguments: EditingStoreKind.allCases)
    func importCountsAndAReimportIsANoOp(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        #expect(try await store.addLocationHistory(Self.annHistory, userID: "ann")
            == PositionImportCount(positionsAdded: 3, positionsUnchanged: 0, visitsAdded: 2, visitsUnchanged: 0))
        #expect(try await store.users().map { "\($0.id) \($0.categories)" } == ["ann \(Category.defaults.count)"], "created on first sight with the defaults")
        #expect(try await store.addLocationHistory(Self.annHistory, userID: "ann")
            == PositionImportCount(positionsAdded: 0, positionsUnchanged: 3, visitsAdded: 0, visitsUnchanged: 2))
        // A second file: one fix already there, two new; the same fix twice with other
        // accuracies is one fix (the key), the first of the history's order kept (nil sorts first).
        let second = LocationHistory(positions: [
            Self.fix(120, 60.1710, 24.9450), Self.fix(180, 60.1720, 24.9460, accuracy: 30), Self.fix(180, 60.1720, 24.9460, accuracy: nil),
            Self.fix(240, 60.1730, 24.9470, .gpx),
        ])
        #expect(try await store.addLocationHistory(second, userID: "ann")
            == PositionImportCount(positionsAdded: 2, positionsUnchanged: 2, visitsAdded: 0, visitsUnchanged: 0))
        let all = try await store.locationHistory(userID: "ann", from: nil, to: nil)
        #expect(Self.coordinates(all) == [
            "0 60.1699 24.9438 10.0", "60 60.17 24.944 -", "120 60.171 24.945 10.0", "180 60.172 24.946 -", "240 60.173 24.947 10.0",
        ])
        #expect(all.positions.map(\.source) == [.googleRecords, .googleRecords, .googleRecords, .googleRecords, .gpx])
        #expect(all.visits == [Self.visit(30, 90, name: "Cafe"), Self.visit(120, 180, name: nil, source: .googleTimeline)])
        #expect(try await store.users().map(\.id) == ["ann"])
        // A first import, nothing stored in its span (PostgreSQL copies it straight in), with
        // one fix twice: added once, the first kept.
        let twice = LocationHistory(positions: [Self.fix(0, 60.1699, 24.9438), Self.fix(0, 60.1699, 24.9438, accuracy: nil), Self.fix(60, 60.17, 24.944)])
        #expect(try await store.addLocationHistory(twice, userID: "cy")
            == PositionImportCount(positionsAdded: 2, positionsUnchanged: 1, visitsAdded: 0, visitsUnchanged: 0))
        #expect(Self.coordinates(try await store.locationHistory(userID: "cy", from: nil, to: nil)) == ["0 60.1699 24.9438 -", "60 60.17 24.944 10.0"])
    }

    /// Positions in `[from, to)`; visits that overlap it (end after `from`, start before `to`).
    @Test(arguments: EditingStoreKind.allCases)
    func timeWindows(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        _ = try await store.addLocationHistory(Self.annHistory, userID: "ann")
        func window(_ from: Int64?, _ to: Int64?) async throws -> (positions: [Int64], visits: [Int64]) {
            let h = try await store.locationHistory(userID: "ann", from: from.map { Self.t0 + $0 * 1000 }, to: to.map { Self.t0 + $0 * 1000 })
            return (h.positions.map { ($0.epochMilliseconds - Self.t0) / 1000 }, h.visits.map { ($0.startEpochMilliseconds - Self.t0) / 1000 })
        }
        #expect(try await window(60, 120) == ([60], [30]))
        #expect(try await window(60, 121) == ([60, 120], [30, 120]))
        #expect(try await window(90, 120) == ([], []), "a visit ending at `from` does not overlap")
        #expect(try await window(89, 120) == ([], [30]))
        #expect(try await window(nil, 60) == ([0], [30]))
        #expect(try await window(121, nil) == ([], [120]))
        #expect(try await window(181, nil) == ([], []))
    }

    /// Two users with fixes at the same instants: each reads, deletes and is counted alone.
    @Test(arguments: EditingStoreKind.allCases)
    func anotherUsersHistoryIsNeverRead(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let (store, _) = try await Self.loaded(kind, scratch)
        _ = try await store.addLocationHistory(Self.annHistory, userID: "ann")
        #expect(try await store.addLocationHistory(Self.bobHistory, userID: "bob")
            == PositionImportCount(positionsAdded: 3, positionsUnchanged: 0, visitsAdded: 1, visitsUnchanged: 0), "ann's fixes do not make bob's unchanged")
        let ann = try await store.locationHistory(userID: "ann", from: nil, to: nil)
        #expect(ann.positions.allSatisfy { $0.coordinate.latitude > 0 } && ann.positions.count == 3)
        #expect(ann.visits.map(\.placeName) == ["Cafe", nil])
        let input = try await store.geotagInput(userID: "bob", from: nil, to: nil)
        #expect(input.history.positions.allSatisfy { $0.coordinate.latitude < 0 } && input.history.positions.count == 3)
        #expect(input.expenses.map { "\($0.userID) \($0.id)" } == ["bob a1"])
        #expect(try await store.locationHistory(userID: "carol", from: nil, to: nil) == LocationHistory())
        #expect(try await store.deletePositions(userID: "bob", before: nil) == PositionDeletion(positions: 3, visits: 1))
        #expect(try await store.locationHistory(userID: "ann", from: nil, to: nil) == ann)
    }

    /// One snapshot: every expense of the user by id, and the history in the window.
    @Test(arguments: EditingStoreKind.allCases)
    func geotagInputSeesExpensesAndHistory(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let (store, _) = try await Self.loaded(kind, scratch)
        _ = try await store.addLocationHistory(Self.annHistory, userID: "ann")
        let input = try await store.geotagInput(userID: "ann", from: Self.t0 + 60_000, to: nil)
        #expect(input.expenses.map(\.id) == ["a1", "a2", "a3"])
        #expect(input.expenses.map(\.storeID) == [nil, "s1", nil])
        #expect(input.expenses[2].location == ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.18, longitude: 24.95), accuracyMeters: 8))
        #expect(input.history.positions.map(\.epochMilliseconds) == [Self.t0 + 60_000, Self.t0 + 120_000])
        #expect(input.history.visits.map(\.placeName) == ["Cafe", nil])
    }

    static let cafe = ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.1699, longitude: 24.9438), accuracyMeters: 35)

    static func placement(_ id: String, store: String? = "s2", source: PositionSource = .history, confidence: Double? = 0.875) -> ExpensePlacement {
        ExpensePlacement(expenseID: id, location: cafe, storeID: store, source: source, confidence: confidence)
    }

    /// Placed: only expenses without a position, each once; the store linked only where there
    /// was none; the provenance shown with the expense; the content hash kept (a re-import of
    /// the expense file is all unchanged).
    @Test(arguments: EditingStoreKind.allCases)
    func placeGivesOnlyUnpositionedExpensesAPosition(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let (store, file) = try await Self.loaded(kind, scratch)
        let placed = try await store.place([
            Self.placement("a1"), Self.placement("a2"), Self.placement("a3"), Self.placement("a1", store: "s1", confidence: 0.5),
            Self.placement("nope"), Self.placement("a1", store: "s1"),
        ], userID: "ann")
        #expect(placed == [true, true, false, false, false, false])
        let a1 = try #require(try await store.expense(id: "a1", userID: "ann"))
        #expect(a1.expense.location == Self.cafe && a1.expense.storeID == "s2")
        #expect(a1.positionSource == .history && a1.positionConfidence == 0.875)
        let a2 = try #require(try await store.expense(id: "a2", userID: "ann"))
        #expect(a2.expense.location == Self.cafe && a2.expense.storeID == "s1", "a linked store stays")
        let a3 = try #require(try await store.expense(id: "a3", userID: "ann"))
        #expect(a3.expense.location?.coordinate == Coordinate(uncheckedLatitude: 60.18, longitude: 24.95) && a3.expense.storeID == nil)
        #expect(a3.positionSource == .device && a3.positionConfidence == nil, "imported with a position: the device's, never moved")
        // What a points layer reads: the placed ones of the filter's user, in its time window
        // (an instant's bound exact, a bare date's a superset by a day).
        func sources(_ user: String?, from: String? = nil, to: String? = nil) async throws -> [String: PositionSource] {
            let filter = ExpenseFilter(userID: user, from: try from.map(Timestamp.init(parsing:)), to: try to.map(Timestamp.init(parsing:)))
            return try await store.read { try $0.positionSources(filter) }
        }
        #expect(try await sources("ann") == ["a1": .history, "a2": .history])
        #expect(try await sources("ann", from: "2026-03-05", to: "2026-03-05") == ["a1": .history, "a2": .history])
        #expect(try await sources("ann", from: "2026-03-05T11:00:00+02:00") == ["a2": .history])
        #expect(try await sources("ann", to: "2026-03-05T10:00:00+02:00").isEmpty, "an instant's upper bound is exclusive")
        #expect(try await sources("ann", from: "2026-03-07").isEmpty)
        #expect(try await sources(nil).isEmpty)
        #expect(try await sources("bob").isEmpty)
        let bob = try #require(try await store.expense(id: "a1", userID: "bob"))
        #expect(bob.expense.location == nil && bob.positionSource == nil, "another user's a1 is not placed")
        #expect(try await store.place([Self.placement("a1")], userID: "carol") == [false])
        // A store that does not exist is not linked; the position is still given.
        #expect(try await store.place([Self.placement("a1", store: "s9")], userID: "bob") == [true])
        #expect(try await store.expense(id: "a1", userID: "bob")?.expense.storeID == nil)
        let report = try await Importer.importExpenses(from: file, into: store)
        #expect(report.inserted == 0 && report.unchanged == 3 && report.rejected == 0)
        let input = try await store.geotagInput(userID: "ann", from: nil, to: nil)
        #expect(input.expenses.filter { $0.location != nil }.map(\.id) == ["a1", "a2", "a3"])
    }

    /// `unplace` takes back the inferred positions alone, with the store links they made, and
    /// leaves each expense as it was before.
    @Test(arguments: EditingStoreKind.allCases)
    func unplaceRestoresExactly(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let (store, _) = try await Self.loaded(kind, scratch)
        let before = try await store.geotagInput(userID: "ann", from: nil, to: nil).expenses
        #expect(try await store.place([Self.placement("a1"), Self.placement("a2", source: .merchant)], userID: "ann") == [true, true])
        #expect(try await store.place([Self.placement("a1", source: .historyAndMerchant)], userID: "bob") == [true])
        #expect(try await store.unplace(userID: "ann", expenseID: "a2") == ["a2"])
        #expect(try await store.expense(id: "a1", userID: "ann")?.positionSource == .history, "only the one named")
        #expect(try await store.unplace(userID: "ann", expenseID: nil) == ["a1"])
        #expect(try await store.geotagInput(userID: "ann", from: nil, to: nil).expenses == before)
        for id in ["a1", "a2"] {
            let e = try #require(try await store.expense(id: id, userID: "ann"))
            #expect(e.expense.location == nil && e.positionSource == nil && e.positionConfidence == nil)
        }
        #expect(try await store.expense(id: "a2", userID: "ann")?.expense.storeID == "s1", "linked before geotagging: kept")
        #expect(try await store.expense(id: "a1", userID: "ann")?.expense.storeID == nil, "linked by geotagging: unlinked")
        #expect(try await store.expense(id: "a1", userID: "bob")?.positionSource == .historyAndMerchant, "bob's stays")
        #expect(try await store.unplace(userID: "ann", expenseID: nil) == [])
        // The user's own positions are not geotagging's to take back.
        #expect(try await store.place([Self.placement("a1", source: .manual, confidence: nil)], userID: "ann") == [true])
        #expect(try await store.unplace(userID: "ann", expenseID: nil) == [])
        let a1 = try #require(try await store.expense(id: "a1", userID: "ann"))
        #expect(a1.positionSource == .manual && a1.expense.storeID == "s2")
        #expect(try await store.unplace(userID: "bob", expenseID: "a1") == ["a1"])
    }

    @Test(arguments: EditingStoreKind.allCases)
    func deletePositionsBeforeAnInstantOrAll(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        _ = try await store.addLocationHistory(Self.annHistory, userID: "ann")
        _ = try await store.addLocationHistory(Self.bobHistory, userID: "bob")
        #expect(try await store.deletePositions(userID: "ann", before: Self.t0 + 60_000) == PositionDeletion(positions: 1, visits: 1))
        let left = try await store.locationHistory(userID: "ann", from: nil, to: nil)
        #expect(left.positions.map { ($0.epochMilliseconds - Self.t0) / 1000 } == [60, 120])
        #expect(left.visits.map { ($0.startEpochMilliseconds - Self.t0) / 1000 } == [120])
        #expect(try await store.deletePositions(userID: "ann", before: nil) == PositionDeletion(positions: 2, visits: 1))
        #expect(try await store.locationHistory(userID: "ann", from: nil, to: nil) == LocationHistory())
        #expect(try await store.deletePositions(userID: "ann", before: nil) == PositionDeletion(positions: 0, visits: 0))
        #expect(try await store.locationHistory(userID: "bob", from: nil, to: nil).positions.count == 3)
    }

    /// `users export`'s sections of a user's history and provenance, from one store.
    static func exportSections(_ store: any PositionDatabase, _ user: String) async throws -> String {
        let text = try #require(try await store.withUserData(user) { data in
            let sink = ByteSink()
            _ = try UserExport.write(data, generatedAt: "2026-01-01T00:00:00Z", to: sink)
            return String(decoding: sink.bytes, as: UTF8.self)
        })
        // From "positions" to the end: the fixes, the visits and their counts; and each
        // expense_times line that holds a provenance (created_at/updated_at are not written here).
        let history = String(text[try #require(text.range(of: "\"positions\":")).lowerBound...])
        let times = text.split(separator: "\n").filter { $0.contains("\"position_source\":\"") }.joined(separator: "\n")
        return times + "\n" + history
    }

    /// The same data on both stores export the same sections; `users delete` then removes the
    /// history with the user, and bob's stays.
    @Test(arguments: EditingStoreKind.allCases)
    func usersExportAndDeleteCoverTheHistory(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let (store, _) = try await Self.loaded(kind, scratch)
        _ = try await store.addLocationHistory(Self.annHistory, userID: "ann")
        _ = try await store.addLocationHistory(Self.bobHistory, userID: "bob")
        _ = try await store.place([Self.placement("a1")], userID: "ann")
        let sections = try await Self.exportSections(store, "ann")
        #expect(sections == Self.annExport)
        let deletion = try #require(try await store.deleteUser("ann", rewriteFile: false))
        let rows = Dictionary(uniqueKeysWithValues: deletion.rowsByTable.map { ($0.table, $0.rows) })
        #expect(rows["positions"] == 3 && rows["visits"] == 2 && rows["expenses"] == 3)
        #expect(try await store.locationHistory(userID: "ann", from: nil, to: nil) == LocationHistory())
        #expect(try await store.locationHistory(userID: "bob", from: nil, to: nil) == Self.bobHistory)
    }

    /// What both stores write for ann in `usersExportAndDeleteCoverTheHistory` (checked by hand
    /// against the data above: 2026-03-05T08:00:00Z is `t0`).
    static let annExport = #"""
        {"id":"a1","remind_at":null,"created_at":null,"updated_at":null,"position_source":"history","position_confidence":0.875,"store_inferred":true}
        "positions":[
        {"time":"2026-03-05T08:00:00Z","lat":60.1699,"lon":24.9438,"accuracy_m":10.0,"source":"google-records"},
        {"time":"2026-03-05T08:01:00Z","lat":60.17,"lon":24.944,"accuracy_m":null,"source":"google-records"},
        {"time":"2026-03-05T08:02:00Z","lat":60.171,"lon":24.945,"accuracy_m":10.0,"source":"google-records"}
        ],
        "visits":[
        {"start":"2026-03-05T08:00:30Z","end":"2026-03-05T08:01:30Z","lat":60.1699,"lon":24.9438,"radius_m":25.0,"place_name":"Cafe","place_id":"ChIJ-Cafe","probability":0.75,"source":"google-semantic"},
        {"start":"2026-03-05T08:02:00Z","end":"2026-03-05T08:03:00Z","lat":60.1699,"lon":24.9438,"radius_m":25.0,"place_name":null,"place_id":null,"probability":0.75,"source":"google-timeline"}
        ],
        "counts":{"expenses":3,"categories":\#(Category.defaults.count),"stores":2,"budgets":0,"periods":0,"price_records":0,"shopping_lists":0,"positions":3,"visits":2}}

        """#

    /// A position given or changed by hand is `manual`, without confidence; removed, it takes
    /// its provenance along; an unchanged one keeps it.
    @Test(arguments: EditingStoreKind.allCases)
    func editedPositionsAreManual(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let (store, _) = try await Self.loaded(kind, scratch)
        #expect(try await store.place([Self.placement("a1")], userID: "ann") == [true])
        var a1 = try #require(try await store.expense(id: "a1", userID: "ann")).expense
        a1.notes = "unchanged position"
        #expect(try await store.updateExpense(a1, remindAt: nil)?.positionSource == .history)
        a1.location = ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.1, longitude: 24.9), accuracyMeters: nil)
        let moved = try #require(try await store.updateExpense(a1, remindAt: nil))
        #expect(moved.positionSource == .manual && moved.positionConfidence == nil)
        #expect(try await store.unplace(userID: "ann", expenseID: nil) == [], "the user's own now")
        a1.location = nil
        let cleared = try #require(try await store.updateExpense(a1, remindAt: nil))
        #expect(cleared.positionSource == nil && cleared.positionConfidence == nil && cleared.expense.storeID == "s2")
        var a4 = try EditingContractTests.expense("a4", day: 9)
        #expect(try await store.addExpense(a4, remindAt: nil).positionSource == .manual)
        a4 = try EditingContractTests.expense("a5", day: 9)
        a4.location = nil
        #expect(try await store.addExpense(a4, remindAt: nil).positionSource == nil)
    }

    /// PostgreSQL's migration v8 places an expense linked to a store without a position at its
    /// store (`store`), as the file's v18 does; one with a position keeps it and no provenance.
    @Test(arguments: Kind.allCases.filter { $0 == .postGIS })
    func migrationPlacesLinkedExpensesAtTheirStore(kind: Kind) async throws {
        let scratch = Scratch()
        let database = try PostGISTestServer.newDatabase()
        let first = try await PostGISStore(try PostGISAddress(PostGISTestServer.url(database)))
        _ = try await Importer.importStores(from: scratch.file("stores.csv", Self.storesCSV), into: first)
        #expect(try await Importer.importExpenses(from: scratch.file("expenses.jsonl", Self.expensesJSONL), into: first).inserted == 3)
        await first.close()
        // Back to v7: as a server before this GeoSpend had it.
        try PostGISTestServer.psql("""
            DROP TABLE positions; DROP TABLE visits;
            ALTER TABLE expenses DROP COLUMN position_source, DROP COLUMN position_confidence, DROP COLUMN store_inferred;
            DELETE FROM geospend_migrations WHERE identifier LIKE 'v8:%';
            """, database: database)
        let store = try await PostGISStore(try PostGISAddress(PostGISTestServer.url(database)))
        let a2 = try #require(try await store.expense(id: "a2", userID: "ann"))
        #expect(a2.expense.location == ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94), accuracyMeters: nil))
        #expect(a2.positionSource == .store && a2.positionConfidence == nil)
        let hits = try await store.read {
            try $0.expenses(within: Distance(meters: 1), of: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94), filter: ExpenseFilter(userID: "ann"))
        }
        #expect(hits.map(\.expense.id) == ["a2"], "the generated geography follows")
        let a3 = try #require(try await store.expense(id: "a3", userID: "ann"))
        #expect(a3.positionSource == .device)
        #expect(try await store.expense(id: "a1", userID: "ann")?.expense.location == nil)
        await store.close()
    }
}
