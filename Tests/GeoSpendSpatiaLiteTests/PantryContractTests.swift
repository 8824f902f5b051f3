import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `PantryStore` and the pantry's notification events, the same on the file, the memory store
/// and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server): ids per user, another user's item is none,
/// the expiry reminder 2 days before with the seed's wording and the purchase prediction, each
/// raised once.
@Suite struct PantryContractTests {
    typealias Kind = EditingStoreKind
    typealias Database = ExpenseStore & ExpenseEditing & PriceStore & PantryStore & NotificationStore & UserDataStore

    static func fresh(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store: any Database = try await kind.make(in: scratch)
        _ = try await Importer.importStores(from: scratch.file("stores.csv", "id,name,lat,lon\ns1,Kiosk,60.17,24.94\n"), into: store)
        try await addUsers(["ann", "bob"], to: store)
        return store
    }

    static func fields(_ name: String, _ expires: String?, quantity: String? = nil) throws -> PantryFields {
        try PantryFields.checked(name: name, quantity: quantity, expires: expires)
    }

    @Test(arguments: Kind.allCases)
    func itemsAreNumberedPerUserListedByExpiryAndClosedOnce(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let bobs = try #require(try await store.addPantryItem(userID: "bob", try Self.fields("Käse", "2025-06-02")))
        #expect(bobs.id == 1)
        for (name, expires) in [("Milch", "2025-06-10"), ("Reis", nil), ("Joghurt", "2025-06-05"), ("Brot", "2025-06-05")] {
            _ = try await store.addPantryItem(userID: "ann", try Self.fields(name, expires, quantity: name == "Reis" ? "1.5kg" : nil))
        }
        #expect(try await store.addPantryItem(userID: "nobody", try Self.fields("X", nil)) == nil)
        let anns = try await store.pantryItems(userID: "ann")
        #expect(anns.map(\.id) == [1, 2, 3, 4])
        #expect(anns[1].quantity == "1.5 kg" && anns[1].expires == nil && anns[0].status == .open && anns[0].closedAt == nil)
        #expect(PantryListing.ordered(anns, all: false).map(\.name) == ["Joghurt", "Brot", "Milch", "Reis"], "soonest first, none last")
        let used = try await PantryListing.close(user: "ann", id: 3, as: .used, store: store)
        #expect(used.status == .used && used.closedAt != nil)
        await #expect(throws: UsageError.self) { try await PantryListing.close(user: "ann", id: 3, as: .discarded, store: store) }
        // The store's own rule, under the listing's check: a closed item stays as it was.
        #expect(try await store.closePantryItem(userID: "ann", id: 3, as: .discarded) == used)
        await #expect(throws: UsageError.self) { try await PantryListing.close(user: "ann", id: 9, as: .used, store: store) }
        _ = try await PantryListing.close(user: "ann", id: 1, as: .discarded, store: store)
        let after = try await store.pantryItems(userID: "ann")
        #expect(PantryListing.ordered(after, all: false).map(\.name) == ["Brot", "Reis"])
        #expect(PantryListing.ordered(after, all: true).map { "\($0.name) \($0.status.rawValue)" } == [
            "Brot open", "Reis open", "Milch discarded", "Joghurt used",
        ])
        // Bob's item 1 is his: ann closing her 1 left it open.
        #expect(try await store.pantryItems(userID: "bob").map(\.status) == [.open])
        #expect(try await store.openPantryItems(expiringOnOrBefore: try LocalDay(parsing: "2025-06-05")).map { "\($0.userID) \($0.id)" } == [
            "ann 4", "bob 1",
        ])
        // The checks name the option.
        #expect(throws: UsageError.self) { try Self.fields("Milch", "2025-13-01") }
        #expect(throws: UsageError.self) { try Self.fields("Milch", nil, quantity: "lots") }
        #expect(throws: UsageError.self) { try Self.fields(" ", nil) }
    }

    @Test(arguments: Kind.allCases)
    func expiryRemindersFallTwoDaysBeforeOnceWithTheSeedsWording(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.addPantryItem(userID: "ann", try Self.fields("Joghurt", "2025-06-10"))
        _ = try await store.addPantryItem(userID: "ann", try Self.fields("Reis", nil))
        _ = try await store.addPantryItem(userID: "bob", try Self.fields("Käse", "2025-06-11"))
        func run(_ at: String) async throws -> [String] {
            try await NotificationRun.raiseDue(in: store, asOf: try Timestamp(parsing: at)).map { "\($0.userID) \($0.type)" }
        }
        #expect(try await run("2025-06-07T12:00:00Z").isEmpty, "3 days before: not yet")
        #expect(try await run("2025-06-08T12:00:00Z") == ["ann pantry.expiring"])
        #expect(try await run("2025-06-08T18:00:00Z").isEmpty, "once per item and expiry day")
        #expect(try await run("2025-06-09T12:00:00Z") == ["bob pantry.expiring"])
        let feed = try await store.notifications(userID: "ann", after: nil, limit: 10, unreadOnly: false)
        let data = try #require(JSONSerialization.jsonObject(with: Data(feed[0].payload.utf8)) as? [String: Any])
        #expect(data["title"] as? String == "Item Expiring Soon")
        #expect(data["body"] as? String == "Joghurt will expire in 2 days. Use it soon to avoid waste!")
        #expect(data["expires"] as? String == "2025-06-10" && data["pantry_item_id"] as? Int == 1)
        // A used item raises nothing.
        _ = try await store.addPantryItem(userID: "ann", try Self.fields("Milch", "2025-06-20"))
        _ = try await PantryListing.close(user: "ann", id: 3, as: .used, store: store)
        #expect(try await run("2025-06-18T12:00:00Z").isEmpty)
    }

    @Test(arguments: Kind.allCases)
    func aPredictedPurchaseIsRemindedOnItsDayOnce(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        // Ann buys Milch on 03-01, 03-08, 03-14 (twice) and 03-22: gaps 7, 6, 8 → every 7 days → 03-29.
        let anns = try ["2025-03-01T10:00:00+02:00", "2025-03-08T10:00:00+02:00", "2025-03-14T09:00:00+02:00", "2025-03-14T19:00:00+02:00",
                        "2025-03-22T10:00:00+02:00"].map { try PriceStorageTests.entry("Milch", "1.29", at: $0) }
        _ = try await store.savePrices(anns, userID: "ann")
        // Bob bought it twice: no prediction for him.
        _ = try await store.savePrices(Array(anns.prefix(2)), userID: "bob")
        let p = try await PantryListing.predictions(user: "ann", asOf: try LocalDay(parsing: "2025-03-25"), store: store)
        #expect(p.map { "\($0.name) \($0.purchases) \($0.intervalDays) \($0.predicted)" } == ["Milch 4 7 2025-03-29"])
        #expect(try await PantryListing.predictions(user: "bob", asOf: try LocalDay(parsing: "2025-03-25"), store: store).isEmpty)
        #expect(
            try await PantryListing.predictions(user: "ann", asOf: try LocalDay(parsing: "2025-03-13"), store: store).isEmpty,
            "as of 03-13 only 03-01 and 03-08 are known")
        #expect(
            try await PantryListing.predictions(user: "ann", asOf: try LocalDay(parsing: "2025-03-14"), store: store).map(\.predicted.description)
                == ["2025-03-20"], "as of 03-14: gaps 7, 6 → (7 + 6) / 2 rounded down = 6 → 03-20")
        func run(_ at: String) async throws -> [String] {
            try await NotificationRun.raiseDue(in: store, asOf: try Timestamp(parsing: at)).map { "\($0.userID) \($0.type)" }
        }
        #expect(try await run("2025-03-28T12:00:00Z").isEmpty)
        #expect(try await run("2025-03-29T12:00:00Z") == ["ann purchase.predicted"])
        #expect(try await run("2025-03-30T12:00:00Z").isEmpty, "once per product and predicted day")
        let feed = try await store.notifications(userID: "ann", after: nil, limit: 10, unreadOnly: false)
        let data = try #require(JSONSerialization.jsonObject(with: Data(feed[0].payload.utf8)) as? [String: Any])
        #expect(data["message"] as? String == "You usually buy Milch around this time")
    }
}
