import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `PriceStore`, `ReceiptStore` and `ShoppingListStore` promise the same on every store: the
/// file, the memory store and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server). Each
/// test goes through the protocols alone; the data are PriceStorageTests' (hand-written: a
/// CSV store `s1` and S-Market Sokos as OpenStreetMap node 288130404).
@Suite struct PriceStoreContractTests {
    typealias PriceDatabase = ExpenseStore & PriceStore & ReceiptStore & ShoppingListStore & UserDataStore & StoreChoiceStore

    typealias Kind = EditingStoreKind

    /// A store of `kind` with PriceStorageTests' two stores.
    static func make(_ kind: Kind, _ scratch: Scratch) async throws -> any PriceDatabase {
        let store: any PriceDatabase = try await kind.make(in: scratch)
        _ = try await Importer.importStores(from: scratch.file("stores.csv", "id,name,lat,lon\ns1,Kiosk,60.17,24.94\n"), into: store)
        _ = try await Importer.importStores(from: scratch.file("osm.geojson", """
            {"type":"FeatureCollection","features":[{"type":"Feature","id":288130404,
             "properties":{"osm_id":288130404,"name":"S-Market Sokos Helsinki","kind":"shop:supermarket"},
             "geometry":{"type":"Point","coordinates":[24.9457,60.1697]}}]}
            """), into: store)
        return store
    }

    static let entry = PriceStorageTests.entry
    static let inserted = PriceStorageTests.inserted

    @Test(arguments: Kind.allCases)
    func matchedSharedAndASecondSaveIsANoOp(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let entries = [
            try Self.entry("Vollmilch 1,5% 1 l", "1.29", "2026-03-05T10:00:00+02:00", .id("s1"), nil, "Dairy", 1, .l),
            try Self.entry("vollmilch 1.5 %", "1.35", "2026-03-06T10:00:00+02:00", .id("s1"), nil, nil, 1, .l),  // the same product
            try Self.entry("Butter", "2.49", "2026-03-05T10:00:00+02:00", .openStreetMap(type: "NODE", number: 288130404), nil, nil, 1, .pcs),
            try Self.entry("4006381333931", "1.55", "2026-03-05T10:00:00+02:00", .id("s1"), "4006381333931", nil, 1, .pcs),
            // Names the product known by its barcode only: it takes this name and category.
            try Self.entry("Textmarker", "1.59", "2026-03-07T10:00:00+02:00", .id("s1"), "4006381333931", "Office", 1, .pcs),
            try Self.entry("Butter", "2.49", "2026-03-05T10:00:00+02:00", .openStreetMap(type: "NODE", number: 288130404), nil, nil, 1, .pcs),
            // The same element spelt otherwise: the same store, but another entry (its hash covers the spelling).
            try Self.entry("Butter", "2.49", "2026-03-05T10:00:00+02:00", .openStreetMap(type: "node", number: 288130404), nil, nil, 1, .pcs),
        ]
        let first = try await store.savePrices(entries, userID: "ann")
        let records = Self.inserted(first)
        #expect(records.map(\.storeID) == ["s1", "s1", "288130404", "s1", "s1", "288130404"])
        #expect(records.map(\.id) == [1, 2, 3, 4, 5, 6])
        #expect(records.map(\.product.id) == [1, 1, 2, 3, 3, 2])
        #expect(first.map { if case .inserted(_, let new) = $0 { new } else { false } } == [true, false, true, true, false, false, false])
        #expect(first[5] == .unchanged, "the same entry twice in one call: stored once")
        #expect(try await store.products().map { "\($0.id) \($0.name) \($0.category) \($0.barcode?.digits ?? "-")" } == [
            "1 Vollmilch 1,5% 1 l Dairy -", "2 Butter Other -", "3 Textmarker Office 4006381333931",
        ])
        #expect(try await store.savePrices(entries, userID: "ann") == Array(repeating: .unchanged, count: 7))
        #expect(Self.inserted(try await store.savePrices(entries, userID: "bob")).count == 6, "another user's records are theirs")
        #expect(try await store.products().count == 3)
        #expect(try await store.users().map { "\($0.id) \($0.categories)" } == ["ann \(Category.defaults.count)", "bob \(Category.defaults.count)"])
    }

    @Test(arguments: Kind.allCases)
    func anUnknownStoreWritesNothing(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let outcomes = try await store.savePrices([
            try Self.entry("Butter", "2.49", "2026-03-05T10:00:00+02:00", .id("s1"), nil, nil, 1, .pcs),
            try Self.entry("Bread", "1.99", "2026-03-05T10:00:00+02:00", .id("nope"), nil, nil, 1, .pcs),
            try Self.entry("Jam", "3.10", "2026-03-05T10:00:00+02:00", .openStreetMap(type: "way", number: 288130404), nil, nil, 1, .pcs),
        ], userID: "ann")
        #expect(outcomes == [.unchanged, .unknownStore, .unknownStore])
        #expect(try await store.priceRecords(PriceQuery()).isEmpty)
        #expect(try await store.products().isEmpty)
        #expect(try await store.users().isEmpty)
    }

    @Test(arguments: Kind.allCases)
    func queriesByProductStoreDayCategoryAndLatest(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let osm = PriceEntry.StoreReference.openStreetMap(type: "node", number: 288130404)
        func e(_ name: String, _ price: String, _ at: String, _ where_: PriceEntry.StoreReference = .id("s1"), _ category: String? = nil) throws -> PriceEntry {
            try Self.entry(name, price, at, where_, nil, category, 1, .pcs)
        }
        _ = try await store.savePrices([
            try e("Milk", "1.00", "2026-03-01T09:00:00+02:00", .id("s1"), "Dairy"),
            try e("Milk", "1.10", "2026-03-03T09:00:00+02:00"),
            // Late on the 3rd in UTC−5: still the 3rd where it was recorded.
            try e("Milk", "1.20", "2026-03-03T23:30:00-05:00"),
            try e("Milk", "0.90", "2026-03-02T09:00:00+02:00", osm),
            try e("Bread", "2.00", "2026-03-01T09:00:00+02:00", .id("s1"), "Bakery"),
            try e("Bread", "2.10", "2026-03-01T09:00:00+02:00"),  // the same instant: by id
        ], userID: "ann")
        let milk = try #require(try await store.products().first { $0.name == "Milk" })
        #expect(try await store.priceRecords(PriceQuery(productIDs: [milk.id])).map(\.price.decimalString) == ["1.00", "0.90", "1.10", "1.20"])
        let day3 = try LocalDay(parsing: "2026-03-03"), day2 = try LocalDay(parsing: "2026-03-02")
        #expect(try await store.priceRecords(PriceQuery(productIDs: [milk.id], from: day3, to: day3)).map(\.price.decimalString) == ["1.10", "1.20"])
        #expect(try await store.priceRecords(PriceQuery(storeIDs: ["288130404"])).map(\.price.decimalString) == ["0.90"])
        #expect(try await store.priceRecords(PriceQuery(category: "DAIRY")).count == 4)
        #expect(try await store.priceRecords(PriceQuery(userID: "bob")).isEmpty)
        #expect(try await store.priceRecords(PriceQuery(currency: try Currency(code: "SEK"))).isEmpty)
        #expect(try await store.latestPrices(onOrBefore: day2, PriceQuery()).map { "\($0.storeID) \($0.product.name) \($0.price.decimalString)" } == [
            "288130404 Milk 0.90", "s1 Milk 1.00", "s1 Bread 2.10",
        ])
        #expect(try await store.latestPrices(onOrBefore: day3, PriceQuery(storeIDs: ["s1"], category: "dairy")).map(\.price.decimalString) == ["1.20"])
        #expect(try await store.storesWithPrices(userID: nil).map(\.id) == ["288130404", "s1"])
        #expect(try await store.storesWithPrices(userID: "bob").isEmpty)
    }

    /// A deleted user's records go, and the products only they named; the file then gives the
    /// next product the largest id left plus one (SQLite's rowid rule), and so does PostgreSQL.
    @Test(arguments: Kind.allCases)
    func deletingAUserRemovesTheirRecordsAndTheProductsOnlyTheyNamed(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let at = "2026-03-05T10:00:00+02:00"
        _ = try await store.savePrices([try Self.entry("Milk", "1.00", at, .id("s1"), nil, nil, 1, .pcs)], userID: "bob")
        _ = try await store.savePrices([
            try Self.entry("milk", "1.05", at, .id("s1"), nil, nil, 1, .pcs), try Self.entry("Private thing", "9.00", at, .id("s1"), nil, nil, 1, .pcs),
        ], userID: "ann")
        _ = try await store.addList(userID: "ann", name: "Mine", budget: try Money(parsing: "5", currency: try Currency(code: "EUR")))
        let deletion = try #require(try await store.deleteUser("ann", rewriteFile: false))
        let counts = Dictionary(uniqueKeysWithValues: deletion.rowsByTable.map { ($0.table, $0.rows) })
        #expect(counts["price_records"] == 2 && counts["shopping_lists"] == 1 && counts["shopping_list_numbers"] == 1)
        #expect(deletion.rowsByTable.last == .init(table: "products", rows: 1))
        #expect(try await store.products().map(\.name) == ["Milk"], "bob's record keeps the shared product")
        #expect(try await store.priceRecords(PriceQuery()).map(\.userID) == ["bob"])
        let next = Self.inserted(try await store.savePrices([try Self.entry("Jam", "3.00", at, .id("s1"), nil, nil, 1, .pcs)], userID: "bob"))
        #expect(next.map(\.product.id) == [2] && next.map(\.id) == [2])
    }

    /// The receipt's expense and its records in one transaction: a line the products table
    /// refuses (a name over 4,096 characters) after the expense is written leaves neither.
    @Test(arguments: Kind.allCases)
    func aReceiptIsStoredWhollyOrNotAtAll(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let expense = try Self.receiptExpense("receipt-1", store: "s1")
        let at = "2026-03-05T10:00:00+02:00"
        let good = try Self.entry("Milch", "1.00", at, .id("s1"), nil, nil, 1, .pcs)
        let bad = try Self.entry(String(repeating: "x", count: 5000), "2.00", at, .id("s1"), nil, nil, 1, .pcs)
        await #expect(throws: (any Error).self) { try await store.saveReceipt(expense, prices: [good, bad]) }
        #expect(try await store.read { try $0.spendingPoints(ExpenseFilter(userID: "ann")).count } == 0)
        #expect(try await store.priceRecords(PriceQuery()).isEmpty)
        #expect(try await store.products().isEmpty)

        #expect(try await store.saveReceipt(expense, prices: [good]).count == 1)
        #expect(try await store.read { try $0.spendingPoints(ExpenseFilter(userID: "ann")).map(\.storeID) } == ["s1"])
        #expect(try await store.priceRecords(PriceQuery()).map(\.product.name) == ["Milch"])
        // The same receipt again, and one at a store that is not there: refused, nothing added.
        let taken = await #expect(throws: EditError.self) { try await store.saveReceipt(expense, prices: [good]) }
        #expect(taken == .invalid(field: "id", reason: "receipt-1 is taken: this receipt or list was stored before"))
        let nowhere = await #expect(throws: EditError.self) { try await store.saveReceipt(try Self.receiptExpense("receipt-2", store: "zz"), prices: []) }
        #expect(nowhere == .unknownStore("zz"))
        #expect(try await store.priceRecords(PriceQuery()).count == 1)
    }

    static func receiptExpense(_ id: String, store: String) throws -> Expense {
        Expense(
            id: id, userID: "ann", amount: try Money(parsing: "3.00", currency: try Currency(code: "EUR")),
            occurredAt: try Timestamp(parsing: "2026-03-05T10:00:00+02:00"),
            location: ExpenseLocation(coordinate: try Coordinate(latitude: 60.17, longitude: 24.94)), storeID: store)
    }

    /// Lists numbered per user, items in order and replaced whole, completion stores the expense
    /// and the records and marks the list; another user's list numbers are not yours.
    @Test(arguments: Kind.allCases)
    func shoppingListsPerUser(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let eur = try Currency(code: "EUR")
        _ = try await store.savePrices([try Self.entry("Milk", "1.00", "2026-03-01", .id("s1"), nil, nil, 1, .pcs)], userID: "ann")
        _ = try await store.savePrices([try Self.entry("Milk", "1.00", "2026-03-01", .id("s1"), nil, nil, 1, .pcs)], userID: "bob")
        let bobs = try await store.addList(userID: "bob", name: "Bob's", budget: try Money(parsing: "1", currency: eur))
        let first = try await store.addList(userID: "ann", name: "Week", budget: try Money(parsing: "5.00", currency: eur))
        let second = try await store.addList(userID: "ann", name: "Weekend", budget: try Money(parsing: "12.50", currency: eur))
        #expect([bobs.id, first.id, second.id] == [1, 1, 2])
        let items = [
            ShoppingListItem(name: "Milk", want: .packs(2)), try ShoppingListItem(parsing: "Äpfel=1.5kg"), try ShoppingListItem(parsing: "Saft=750ml"),
        ]
        #expect(try await store.setItems(userID: "ann", id: 1, items)?.items == items)
        #expect(try await store.setItems(userID: "ann", id: 1, Array(items.reversed()))?.items == items.reversed())
        #expect(try await store.setItems(userID: "ann", id: 3, items) == nil)
        let expense = try Self.receiptExpense("list-ann-1", store: "s1")
        let paid = [try Self.entry("Milk", "2.00", "2026-03-06", .id("s1"), nil, nil, 2, .pcs)]
        #expect(try await store.completeList(userID: "ann", id: 9, expense: expense, prices: paid) == nil)
        let done = try #require(try await store.completeList(userID: "ann", id: 1, expense: expense, prices: paid))
        #expect(done.completedExpenseID == "list-ann-1")
        let lists = try await store.lists(userID: "ann")
        #expect(lists.map { "\($0.id) \($0.name) \($0.budget.decimalString) \($0.items.count) \($0.completedExpenseID ?? "-")" } == [
            "1 Week 5.00 3 list-ann-1", "2 Weekend 12.50 0 -",
        ])
        #expect(try await store.lists(userID: "bob").map(\.name) == ["Bob's"])
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")).count == 2)
        // A failing completion (its store is not there) leaves the list open.
        await #expect(throws: EditError.self) {
            try await store.completeList(userID: "ann", id: 2, expense: try Self.receiptExpense("list-ann-2", store: "zz"), prices: [])
        }
        #expect(try await store.lists(userID: "ann")[1].completedExpenseID == nil)
        let exported = try await store.withUserData("ann") { try ($0.shoppingLists(), $0.priceRecords().count) }
        #expect(exported?.0 == lists && exported?.1 == 2)
    }
}
