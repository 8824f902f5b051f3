import Foundation
import GRDB
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `prices edit|delete` (issue 38) through `PriceCorrection` and the `PriceStore` protocol, on
/// the file, the memory store and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server): a record is its
/// user's, a correction keeps the product and the import hash, the outlier flag follows the
/// corrected prices, and the times are stamped by the store.
@Suite struct PriceCorrectionContractTests {
    typealias Kind = PriceStoreContractTests.Kind

    /// Five milk prices of ann's (one mistyped 129.00) and one of bob's.
    static func make(_ kind: Kind, _ scratch: Scratch) async throws -> any PriceStoreContractTests.PriceDatabase {
        let store = try await PriceStoreContractTests.make(kind, scratch)
        let ann = try ["1.29", "1.35", "129.00", "1.31", "1.33"].enumerated().map { n, price in
            try PriceStorageTests.entry("Vollmilch 1 l", price, at: "2026-03-0\(n + 1)T10:00:00+02:00", store: .id("s1"), barcode: nil, category: "Dairy", quantity: 1, unit: .l)
        }
        _ = try await store.savePrices(ann, userID: "ann")
        _ = try await store.savePrices([try PriceStorageTests.entry("Butter", "2.49")], userID: "bob")
        return store
    }

    @Test(arguments: Kind.allCases)
    func anEditCorrectsTheRecordAndTheOutlierGoes(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let before = try await store.priceRecords(PriceQuery(userID: "ann"))
        #expect(PriceHistory.entries(before).map(\.isOutlier) == [false, false, true, false, false])
        let old = before[2]
        let stamped = try #require(old.createdAt)
        #expect(old.updatedAt == stamped, "a new record: created and updated at once")
        #expect(stamped.hasSuffix("Z") && stamped.count == 24, "UTC to the millisecond: \(stamped)")

        let edited = try await PriceCorrection.edit(
            id: old.id, ["price": "1.30", "quantity": "1000", "unit": "ml", "at": "2026-03-03T11:00:00+02:00", "store": "288130404"],
            user: "ann", store: store)
        #expect(edited.id == old.id)
        #expect(edited.price.minorUnits == 130 && edited.price.currency.code == "EUR")
        #expect(edited.quantity == 1000 && edited.unit == .ml && edited.storeID == "288130404")
        #expect(edited.recordedAt.text == "2026-03-03T11:00:00+02:00" && edited.recordedAt.localDate == "2026-03-03")
        #expect(edited.product.id == old.product.id && edited.source == old.source, "the product and the source stay")
        #expect(edited.createdAt == stamped)
        #expect(try #require(edited.updatedAt) >= stamped)
        let after = try await store.priceRecords(PriceQuery(userID: "ann"))
        #expect(after.count == 5)
        #expect(after.first { $0.id == old.id } == edited, "what edit answers is what is stored")
        #expect(PriceHistory.entries(after).allSatisfy { !$0.isOutlier }, "the corrected 1.30 per litre is no outlier")

        // The import's hash stays: saving the original entry again is still a no-op.
        let original = try PriceStorageTests.entry("Vollmilch 1 l", "129.00", at: "2026-03-03T10:00:00+02:00", store: .id("s1"), barcode: nil, category: "Dairy", quantity: 1, unit: .l)
        #expect(try await store.savePrices([original], userID: "ann") == [.unchanged])
    }

    @Test(arguments: Kind.allCases)
    func anotherUsersRecordIsNoRecord(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let bobs = try #require(try await store.priceRecords(PriceQuery(userID: "bob")).first)
        await #expect(throws: PriceCorrection.noRecord(bobs.id, user: "ann")) {
            _ = try await PriceCorrection.edit(id: bobs.id, ["price": "0.01"], user: "ann", store: store)
        }
        await #expect(throws: PriceCorrection.noRecord(bobs.id, user: "ann")) {
            try await PriceCorrection.delete(id: bobs.id, user: "ann", store: store)
        }
        #expect(try await store.updatePriceRecord(userID: "ann", id: bobs.id, PriceCorrection.Fields(of: bobs)) == nil)
        #expect(try await store.deletePriceRecord(userID: "ann", id: bobs.id) == false)
        #expect(try await store.deletePriceRecord(userID: "ann", id: 999) == false)
        #expect(try await store.priceRecords(PriceQuery(userID: "bob")) == [bobs], "bob's record is as it was")
    }

    @Test(arguments: Kind.allCases)
    func badValuesAreRefusedAndNothingChanges(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let before = try await store.priceRecords(PriceQuery(userID: "ann"))
        let id = before[0].id
        let cases: [([String: String], String)] = [
            (["price": "-1"], "--price: "), (["price": "0"], "--price: "), (["price": "1.234"], "--price: "),
            (["quantity": "0"], "--quantity: \"0\" is not above 0"), (["quantity": "nan"], "--quantity: "),
            (["unit": "lb"], "--unit: "), (["at": "yesterday"], "--at: "), (["store": "nope"], "--store \"nope\": no such store"),
            (["currency": "USD"], "--currency without --price"), (["price": ""], "--price cannot be unset"), ([:], "nothing to change"),
        ]
        for (given, message) in cases {
            do {
                _ = try await PriceCorrection.edit(id: id, given, user: "ann", store: store)
                Issue.record("\(given) was accepted")
            } catch let e as UsageError {
                #expect(e.message.contains(message), "\(given): \(e.message)")
            }
        }
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")) == before)
        let usd = try await PriceCorrection.edit(id: id, ["price": "1.40", "currency": "USD"], user: "ann", store: store)
        #expect(usd.price == Money(minorUnits: 140, currency: try Currency(code: "USD")))
    }

    @Test(arguments: Kind.allCases)
    func aDeleteRemovesTheRecordAndAProductNoRecordNames(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let records = try await store.priceRecords(PriceQuery(userID: "ann"))
        try await PriceCorrection.delete(id: records[2].id, user: "ann", store: store)
        let left = try await store.priceRecords(PriceQuery(userID: "ann"))
        #expect(left.map(\.id) == [records[0], records[1], records[3], records[4]].map(\.id))
        #expect(PriceHistory.entries(left).allSatisfy { !$0.isOutlier })
        #expect(try await store.products().map(\.name) == ["Vollmilch 1 l", "Butter"], "milk is still named")
        let butter = try #require(try await store.priceRecords(PriceQuery(userID: "bob")).first)
        try await PriceCorrection.delete(id: butter.id, user: "bob", store: store)
        #expect(try await store.products().map(\.name) == ["Vollmilch 1 l"], "no record names Butter: it leaves the catalogue")
        await #expect(throws: PriceCorrection.noRecord(butter.id, user: "bob")) {
            try await PriceCorrection.delete(id: butter.id, user: "bob", store: store)
        }
    }

    /// A community member's record is also a feed entry; deleting the record leaves the entry
    /// without its link (a foreign key on the file, a statement on PostgreSQL).
    @Test(arguments: Kind.allCases)
    func aSharedRecordCanBeDeleted(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let community = try #require(store as? any CommunityStore)
        _ = try await community.joinCommunity(userID: "ann", displayName: "Ann")
        _ = try await store.savePrices([try PriceStorageTests.entry("Rye bread", "2.10")], userID: "ann")
        let bread = try #require(try await store.priceRecords(PriceQuery(userID: "ann")).last)
        #expect(try await community.communityFeed(CommunityFeedFilter(), limit: 10).count == 1)
        try await PriceCorrection.delete(id: bread.id, user: "ann", store: store)
        #expect(try await community.communityFeed(CommunityFeedFilter(), limit: 10).count == 1, "the feed entry stays")
    }

    /// The file's triggers stamp every writer's rows: the products, records and default
    /// categories a price import adds get both times, equal.
    @Test func theFileStampsPeriodsAndCategoriesToo() async throws {
        let scratch = Scratch()
        let store = try await PriceStoreContractTests.make(.spatiaLite, scratch) as! SpatiaLiteStore
        _ = try await store.savePrices([try PriceStorageTests.entry("Butter", "2.49")], userID: "ann")
        let counts = try store.readDatabase { db in
            try ["products", "price_records", "categories"].map { table in
                try Row.fetchOne(db, sql: """
                    SELECT count(*), count(*) FILTER (WHERE created_at IS NULL OR updated_at IS NULL OR created_at <> updated_at
                        OR created_at NOT LIKE '____-__-__T__:__:__.___Z')
                    FROM \(table)
                    """)!
            }
        }
        for (table, c) in zip(["products", "price_records", "categories"], counts) {
            #expect((c[0] as Int) > 0 && (c[1] as Int) == 0, "\(table): \(c)")
        }
    }
}
