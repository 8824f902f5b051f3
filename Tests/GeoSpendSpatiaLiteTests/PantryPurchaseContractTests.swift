import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// Pantry items that come with a purchase (issue 38, "Expiry": "purchased items (from a list,
/// a receipt or by hand) can carry an expiry date"), the same on the file, the memory store
/// and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server): `lists check --expires` and `receipts
/// confirm --expires LINE=DAY` add them in the purchase's transaction, `lists uncheck` and
/// `receipts delete` take them away, the pantry says where each came from, and `users export`
/// → `users delete` → `users import` gives them back as they were.
@Suite struct PantryPurchaseContractTests {
    typealias Kind = PriceStoreContractTests.Kind
    typealias Database = PriceStoreContractTests.PriceDatabase & ExpenseEditing & PantryStore

    static func fresh(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store = try #require(try await PriceStoreContractTests.make(kind, scratch) as? any Database)
        try await addUsers(["ann", "bob"], to: store)
        return store
    }

    static func shown(_ items: [PantryItem]) -> [String] {
        items.map { "\($0.id) \($0.name) \($0.quantity ?? "-") \($0.expires?.description ?? "-") \($0.source.rawValue) \($0.purchaseID ?? "-")" }
    }

    @Test(arguments: Kind.allCases)
    func aCheckedListItemGoesIntoThePantryAndLeavesWithItsUncheck(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let eur = try Currency(code: "EUR")
        _ = try #require(try await store.addPantryItem(userID: "ann", try PantryFields.checked(name: "Reis", quantity: nil, expires: nil)))
        let list = try await store.addList(userID: "ann", name: "Week", budget: Money(minorUnits: 4_000, currency: eur))
        _ = try await store.setItems(userID: "ann", id: list.id, [
            try ShoppingListItem(parsing: "Milch=2"), try ShoppingListItem(parsing: "Äpfel=1.5kg"), try ShoppingListItem(parsing: "Brot=1"),
        ])
        let milk = try await ShoppingListFields.check(
            user: "ann", id: list.id, item: "Milch", price: "1.29", storeID: "s1", at: "2025-06-01T18:00:00+03:00", expires: "2025-06-10", db: store)
        #expect(milk.expense.amount.minorUnits == 258)
        let apples = try await ShoppingListFields.check(
            user: "ann", id: list.id, item: "Äpfel", price: "2.99", storeID: nil, at: "2025-06-01T18:00:00+03:00", expires: "2025-06-20", db: store)
        // No --expires: a purchase, no pantry item.
        _ = try await ShoppingListFields.check(
            user: "ann", id: list.id, item: "Brot", price: "2.49", storeID: nil, at: "2025-06-01T18:00:00+03:00", db: store)
        #expect(Self.shown(try await store.pantryItems(userID: "ann")) == [
            "1 Reis - - hand -",
            "2 Milch 2 2025-06-10 list \(milk.expense.id)",
            "3 Äpfel 1.5 kg 2025-06-20 list \(apples.expense.id)",
        ])
        #expect(try await store.pantryItems(userID: "bob").isEmpty, "bob's pantry is his own")

        // A day that is not one: refused with the option's name, nothing stored.
        _ = try await ShoppingListFields.uncheck(user: "ann", id: list.id, item: "Brot", db: store)
        let bad = await #expect(throws: UsageError.self) {
            try await ShoppingListFields.check(user: "ann", id: list.id, item: "Brot", price: "2.49", storeID: nil, at: nil, expires: "2025-02-30", db: store)
        }
        #expect(bad?.message.hasPrefix("--expires 2025-02-30:") == true, "\(String(describing: bad))")
        let badDay = await #expect(throws: UsageError.self) {
            try await ShoppingListFields.check(user: "ann", id: list.id, item: "Brot", price: "2.49", storeID: nil, at: nil, expires: "10.06.2025", db: store)
        }
        #expect(badDay?.message.contains("give a day like 2025-06-30") == true)
        #expect(try await store.lists(userID: "ann")[0].items[2].check == nil, "the failed check stored nothing")
        #expect(try await store.pantryItems(userID: "ann").count == 3)

        // Used, then unchecked: the purchase did not happen, so its pantry item goes too;
        // the item added by hand and the other check's stay, and ids are not reused.
        _ = try await PantryListing.close(user: "ann", id: 2, as: .used, store: store)
        _ = try await ShoppingListFields.uncheck(user: "ann", id: list.id, item: "Milch", db: store)
        #expect(Self.shown(try await store.pantryItems(userID: "ann")) == [
            "1 Reis - - hand -",
            "3 Äpfel 1.5 kg 2025-06-20 list \(apples.expense.id)",
        ])
        #expect(try await store.expense(id: milk.expense.id, userID: "ann") == nil)
        let again = try await ShoppingListFields.check(
            user: "ann", id: list.id, item: "Milch", price: "1.19", storeID: nil, at: nil, expires: "2025-06-12", db: store)
        #expect(Self.shown(try await store.pantryItems(userID: "ann")).last == "4 Milch 2 2025-06-12 list \(again.expense.id)")
    }

    @Test(arguments: Kind.allCases)
    func aConfirmedReceiptsLinesGoIntoThePantryInItsTransaction(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        // Lines 2 (Milk), 3 (Äpfel, weighed) and 4 (Brot); the wrong total keeps it for review.
        let text = "Kiosk\nMilk 1,29\nÄpfel 2,24\n  0,750 kg x 2,99 EUR/kg\nBrot Vollkorn 2,49\nSUMME 9,99\n"
        let r = try await ReceiptRecording.importReceipt(
            .init(text: text, name: "r.txt", user: "ann", storeID: "s1", at: "2026-03-05"), db: store).receipt
        #expect(r.status == .needsReview)
        let lines = Dictionary(uniqueKeysWithValues: r.items.map { ($0.name, $0.line) })
        let milk = try #require(lines["Milk"]), bread = try #require(lines["Brot Vollkorn"])

        // Refused, nothing stored: not LINE=DAY, no item on the line, a line twice, no day.
        for (specs, words) in [
            (["2026-03-10"], "give the item's line and the day it expires"),
            (["99=2026-03-10"], "no item on line 99"),
            (["\(milk)=2026-03-10", "\(milk)=2026-03-11"], "is given twice"),
            (["\(milk)=tomorrow"], "give a day like 2025-06-30"),
        ] {
            let e = await #expect(throws: UsageError.self) { try await ReceiptRecording.confirm(id: r.id, user: "ann", expires: specs, db: store) }
            #expect(e?.message.hasPrefix("--expires") == true && e?.message.contains(words) == true, "\(specs): \(String(describing: e))")
        }
        #expect(try await store.receipt(id: r.id, userID: "ann")?.status == .needsReview)
        #expect(try await store.pantryItems(userID: "ann").isEmpty)

        let confirmed = try await ReceiptRecording.confirm(
            id: r.id, user: "ann", expires: ["\(bread)=2026-03-09", "\(milk)=2026-03-12"], db: store)
        #expect(confirmed.receipt.status == .ok)
        #expect(Self.shown(try await store.pantryItems(userID: "ann")) == [
            "1 Brot Vollkorn 1 2026-03-09 receipt \(r.id)",
            "2 Milk 1 2026-03-12 receipt \(r.id)",
        ])
        #expect(try await store.pantryItems(userID: "bob").isEmpty)
        // A weighed line keeps its weight (a receipt weighs in grams).
        let apples = try #require(lines["Äpfel"])
        let weighed = try ReceiptRecording.pantryItems(r, expires: ["\(apples)=2026-03-08"])
        #expect(weighed.map { "\($0.name) \($0.quantity ?? "-")" } == ["Äpfel 0.75 kg"])

        // Correcting the confirmed receipt keeps them; deleting it takes them along.
        _ = try await ReceiptRecording.correct(id: r.id, user: "ann", .init(total: "6,02"), db: store)
        #expect(try await store.pantryItems(userID: "ann").count == 2)
        #expect(try await store.deleteReceipt(id: r.id, userID: "bob", rewrite: .now) == nil)
        #expect(try await store.pantryItems(userID: "ann").count == 2)
        #expect(try await store.deleteReceipt(id: r.id, userID: "ann", rewrite: .now) != nil)
        #expect(try await store.pantryItems(userID: "ann").isEmpty)

        // `receipts import --expires`: with a receipt that is ok at once, in its transaction; one
        // that would wait for review is refused whole (nothing bought yet).
        var waiting = ReceiptRecording.Input(text: text, name: "w.txt", user: "ann", storeID: "s1", at: "2026-03-06")
        waiting.expires = ["\(milk)=2026-03-12"]
        let refused = await #expect(throws: UsageError.self) { try await ReceiptRecording.importReceipt(waiting, db: store) }
        #expect(refused?.message.contains("would wait for review") == true, "\(String(describing: refused))")
        #expect(try await store.receipts(userID: "ann", after: nil, limit: 10).isEmpty)
        var ok = ReceiptRecording.Input(text: "Kiosk\nMilk 1,29\nSUMME 1,29\n", name: "ok.txt", user: "ann", storeID: "s1", at: "2026-03-07")
        ok.expires = ["2=2026-03-14"]
        let imported = try await ReceiptRecording.importReceipt(ok, db: store).receipt
        #expect(imported.status == .ok)
        #expect(Self.shown(try await store.pantryItems(userID: "ann")) == ["3 Milk 1 2026-03-14 receipt \(imported.id)"])
    }

    /// Export → delete → import gives the same export, sources and purchases included.
    @Test(arguments: Kind.allCases)
    func purchasedItemsSurviveExportDeleteImport(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let eur = try Currency(code: "EUR")
        _ = try await store.addPantryItem(userID: "ann", try PantryFields.checked(name: "Reis", quantity: "1.5kg", expires: nil))
        let list = try await store.addList(userID: "ann", name: "Week", budget: Money(minorUnits: 4_000, currency: eur))
        _ = try await store.setItems(userID: "ann", id: list.id, [try ShoppingListItem(parsing: "Milch=2")])
        _ = try await ShoppingListFields.check(
            user: "ann", id: list.id, item: "Milch", price: "1.29", storeID: "s1", at: "2025-06-01T18:00:00+03:00", expires: "2025-06-10", db: store)
        let before = try #require(try await UserRestoreContractTests.export(store, "ann"))
        #expect(before.contains(#""source":"list","purchase":"list-ann-1-check-1""#), "\(before)")
        #expect(before.contains(#""source":"hand","purchase":null"#))
        _ = try #require(try await store.deleteUser("ann", rewriteFile: false))
        try await store.restore(try UserRestore.read(Array(before.utf8)), as: "ann")
        #expect(try await UserRestoreContractTests.export(store, "ann") == before)
        // The restored check still knows its pantry item: unchecking takes it away.
        _ = try await ShoppingListFields.uncheck(user: "ann", id: list.id, item: "Milch", db: store)
        #expect(Self.shown(try await store.pantryItems(userID: "ann")) == ["1 Reis 1.5 kg - hand -"])
    }
}
