import Foundation
import GRDB
import GeoSpend
import GeoSpendPostGIS
@testable import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// Price records at a user's added stores (issue 38: SpatiaLite v31, PostgreSQL v22), the same on
/// the file, the memory store and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server): `mine-N` is a
/// record's store for its own user only (another user's is "no store", like a missing id); the
/// user's history, latest prices, stores and basket see them; nothing over several users (the
/// crowd's prices, the community feed) does; export → delete → restore gives the same bytes.
@Suite struct AddedStorePriceContractTests {
    typealias Kind = EditingStoreKind
    typealias Database = ExpenseStore & ExpenseEditing & ReceiptStore & PriceStore & StoreChoiceStore & UserDataStore & CommunityStore
        & ShoppingListStore

    /// Registry s1 (a kiosk); ann's mine-1 (K-Market) and mine-2, bob's mine-1 (his Lidl).
    static func fresh(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store: any Database = try await kind.make(in: scratch)
        _ = try await Importer.importStores(from: scratch.file("stores.csv", "id,name,kind,lat,lon\ns1,Kiosk,shop:kiosk,60.17,24.94\n"), into: store)
        try await addUsers(["ann", "bob"], to: store)
        _ = try await store.addStore(userID: "ann", try StoreChoiceContractTests.fields("K-Market Kallio", 60.1841, 24.95))
        _ = try await store.addStore(userID: "ann", try StoreChoiceContractTests.fields("Kauppa", 60.2, 24.9))
        _ = try await store.addStore(userID: "bob", try StoreChoiceContractTests.fields("Bob's Lidl", 61.0, 25.0))
        return store
    }

    static func milk(_ price: String, at store: String, day: Int = 5) throws -> PriceEntry {
        try PriceStorageTests.entry("Vollmilch 1 l", price, at: "2026-03-0\(day)T10:00:00+02:00", store: .id(store), category: "Dairy")
    }

    @Test(arguments: Kind.allCases)
    func aRecordNamesItsOwnUsersAddedStoreOnly(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let saved = try await store.savePrices([try Self.milk("1.19", at: "mine-1"), try Self.milk("1.39", at: "s1")], userID: "ann")
        guard case .inserted(let atOwn, _) = saved[0] else { Issue.record("not stored: \(saved)"); return }
        #expect(atOwn.storeID == "mine-1")
        #expect(try await store.savePrices([try Self.milk("1.09", at: "mine-1", day: 6)], userID: "bob").count == 1, "bob's own mine-1")
        // ann's mine-2 is no store of bob's, as a missing id: nothing written.
        #expect(try await store.savePrices([try Self.milk("0.99", at: "mine-2"), try Self.milk("1.00", at: "s1", day: 7)], userID: "bob")
            == [.unknownStore, .unchanged])
        #expect(try await store.savePrices([try Self.milk("0.99", at: "mine-9")], userID: "ann") == [.unknownStore])

        // Her records: each store as she sees it, her mine-1 with its name and place.
        let hers = try await store.priceRecords(PriceQuery(userID: "ann"))
        #expect(hers.map(\.storeID).sorted() == ["mine-1", "s1"])
        #expect(try await store.priceRecords(PriceQuery(storeIDs: ["mine-1"], userID: "ann")).map(\.price.decimalString) == ["1.19"])
        #expect(try await store.priceRecords(PriceQuery(storeIDs: ["mine-1"], userID: "bob")).map(\.price.decimalString) == ["1.09"])
        let day = try LocalDay(parsing: "2026-03-31")
        #expect(try await store.latestPrices(onOrBefore: day, PriceQuery(userID: "ann")).map(\.storeID) == ["mine-1", "s1"])
        let annStores = try await store.storesWithPrices(userID: "ann")
        #expect(annStores.map(\.id) == ["mine-1", "s1"] && annStores[0].name == "K-Market Kallio")
        #expect(try await store.storesWithPrices(userID: "bob").map(\.name) == ["Bob's Lidl"])
        let report = try await PriceHistoryReport.make(product: "Vollmilch 1 l", storeID: "mine-1", userID: "ann", in: store)
        #expect(report.entries.map(\.record.price.decimalString) == ["1.19"] && report.storeNames["mine-1"] == "K-Market Kallio")

        // Over several users: the registry's records only, no one's private places.
        #expect(try await store.priceRecords(PriceQuery()).map(\.storeID) == ["s1"])
        #expect(try await store.priceRecords(PriceQuery(storeIDs: ["mine-1"])).isEmpty)
        #expect(try await store.latestPrices(onOrBefore: day, PriceQuery()).map(\.storeID) == ["s1"])
        #expect(try await store.storesWithPrices(userID: nil).map(\.id) == ["s1"])
        var each = PriceQuery()
        each.eachUsersAddedStores = true
        #expect(try await store.priceRecords(each).map { "\($0.userID) \($0.storeID)" }.sorted() == ["ann mine-1", "ann s1", "bob mine-1"])
    }

    @Test(arguments: Kind.allCases)
    func anEditMovesARecordBetweenTheIDSpaces(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let db: any PriceCorrection.Store = store
        _ = try await store.savePrices([try Self.milk("1.19", at: "s1")], userID: "ann")
        _ = try await store.savePrices([try Self.milk("1.09", at: "s1")], userID: "bob")
        let annsID = try #require(try await store.priceRecords(PriceQuery(userID: "ann")).first?.id)
        let bobsID = try #require(try await store.priceRecords(PriceQuery(userID: "bob")).first?.id)
        #expect(try await PriceCorrection.edit(id: annsID, ["store": "mine-2"], user: "ann", store: db).storeID == "mine-2")
        #expect(try await store.storesWithPrices(userID: "ann").map(\.name) == ["Kauppa"])
        // bob has no mine-2: refused as an unknown store, his record unchanged.
        await #expect(throws: UsageError.self) { try await PriceCorrection.edit(id: bobsID, ["store": "mine-2"], user: "bob", store: db) }
        #expect(try await store.priceRecords(PriceQuery(userID: "bob")).map(\.storeID) == ["s1"])
        #expect(try await PriceCorrection.edit(id: bobsID, ["store": "mine-1"], user: "bob", store: db).storeID == "mine-1")
        #expect(try await PriceCorrection.edit(id: annsID, ["store": "s1"], user: "ann", store: db).storeID == "s1")
        #expect(try await store.storesWithPrices(userID: "ann").map(\.id) == ["s1"])
        try await PriceCorrection.delete(id: bobsID, user: "bob", store: db)
        #expect(try await store.priceRecords(PriceQuery(userID: "bob")).isEmpty)
    }

    /// The basket of the records' user ranks their own store among the registry's; everyone's
    /// basket (and so every other user's view of the crowd) never shows it.
    @Test(arguments: Kind.allCases)
    func theBasketRanksTheUsersOwnStoresForThemAlone(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.savePrices([try Self.milk("1.19", at: "mine-1"), try Self.milk("1.39", at: "s1")], userID: "ann")
        _ = try await store.savePrices([try Self.milk("1.29", at: "s1", day: 6)], userID: "bob")
        let day = try LocalDay(parsing: "2026-03-31")
        var reach = BasketReach()
        reach.userID = "ann"
        let hers = try await reach.compare([(name: "Vollmilch 1 l", want: .packs(1))], asOf: day, in: store)
        #expect(hers.stores.map(\.store.id) == ["mine-1", "s1"] && hers.stores[0].store.name == "K-Market Kallio")
        #expect(hers.stores.map(\.totalMinor) == [119, 139])
        reach.userID = "bob"
        #expect(try await reach.compare([(name: "Vollmilch 1 l", want: .packs(1))], asOf: day, in: store).stores.map(\.store.id) == ["s1"])
        reach.userID = nil
        let everyone = try await reach.compare([(name: "Vollmilch 1 l", want: .packs(1))], asOf: day, in: store)
        #expect(everyone.stores.map(\.store.id) == ["s1"], "ann's mine-1 left out of everyone's prices")
    }

    /// A member's record at their own store makes no feed entry: the feed is everyone's.
    @Test(arguments: Kind.allCases)
    func theFeedNeverShowsAnAddedStore(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.joinCommunity(userID: "ann", displayName: "Ann")
        _ = try await store.savePrices([try Self.milk("1.19", at: "mine-1"), try Self.milk("1.39", at: "s1")], userID: "ann")
        let export = try #require(try await UserRestoreContractTests.export(store, "ann"))
        #expect(export.components(separatedBy: "\"type\":\"price_update\"").count - 1 == 1)
        #expect(!export.contains("\"store_id\":\"mine-1\",\"product_id\""), "no entry names her store")
    }

    /// A receipt at the user's own store: its price records there, its expense at the store's
    /// position with no store id (expenses name the registry's); bob's `mine-2` is refused.
    @Test(arguments: Kind.allCases)
    func aReceiptAtTheUsersOwnStore(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let saved = try await ReceiptRecording.importReceipt(
            .init(text: Self.receiptText, name: "r.txt", user: "ann", storeID: "mine-1", at: "2024-12-16T15:53:00+02:00"), db: store)
        #expect(saved.receipt.storeID == "mine-1" && saved.receipt.status == .ok)
        #expect(try await store.receipt(id: saved.receipt.id, userID: "ann")?.storeID == "mine-1")
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")).map(\.storeID) == ["mine-1", "mine-1"])
        let export = try #require(try await UserRestoreContractTests.export(store, "ann"))
        #expect(export.contains("\"merchant\":\"K-Market Kallio\",\"lat\":60.1841,\"lon\":24.95,\"accuracy_m\":null,\"store_id\":null"))
        await #expect(throws: UsageError.self) {
            try await ReceiptRecording.importReceipt(.init(text: Self.receiptText, name: "r.txt", user: "bob", storeID: "mine-2", at: nil), db: store)
        }
        #expect(try await store.receipts(userID: "bob", after: nil, limit: 10).isEmpty)
        // Corrected to the registry's store and back: the records follow.
        _ = try await ReceiptRecording.correct(id: saved.receipt.id, user: "ann", .init(storeID: "s1"), db: store)
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")).map(\.storeID) == ["s1", "s1"])
        _ = try await ReceiptRecording.correct(id: saved.receipt.id, user: "ann", .init(storeID: "mine-2"), db: store)
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")).map(\.storeID) == ["mine-2", "mine-2"])
    }

    static let receiptText = "K-Market\n16.12.2024 15:53\nMilk 1,29\nBrot Vollkorn 2,49\nSUMME 3,78\n"

    /// A receipt with no `--store` is matched by its header among the user's own added stores
    /// first: ann's "K-Market Kallio" (mine-1) wins over the registry's store of the same name,
    /// which bob, who added none, gets; a header that names neither stays without a store.
    @Test(arguments: Kind.allCases)
    func aReceiptsHeaderFindsTheUsersOwnStoreFirst(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await Importer.importStores(
            from: scratch.file("more.csv", "id,name,kind,lat,lon\ns2,K-Market Kallio,shop:supermarket,60.19,24.96\n"), into: store)
        let text = "K-Market Kallio\n16.12.2024 15:53\nMilk 1,29\nSUMME 1,29\n"
        let ann = try await ReceiptRecording.importReceipt(.init(text: text, name: "r.txt", user: "ann", storeID: nil, at: nil), db: store)
        #expect(ann.receipt.storeID == "mine-1" && ann.receipt.status == .ok, "\(ann.receipt.problems)")
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")).map(\.storeID) == ["mine-1"])
        let bob = try await ReceiptRecording.importReceipt(.init(text: text, name: "r.txt", user: "bob", storeID: nil, at: nil), db: store)
        #expect(bob.receipt.storeID == "s2")
        let none = try await ReceiptRecording.importReceipt(
            .init(text: "Elsewhere Oy\n16.12.2024 15:53\nMilk 1,29\nSUMME 1,29\n", name: "r.txt", user: "ann", storeID: nil, at: nil), db: store)
        #expect(none.receipt.storeID == nil && none.receipt.problems.contains(ReceiptRecording.noStore))
    }

    /// `lists check` and `lists complete` at the user's own store: the price records name
    /// `mine-N`, the purchase is at its position and name with no store id; a `mine-N` the user
    /// does not have is refused and nothing is written.
    @Test(arguments: Kind.allCases)
    func aListIsCheckedAndCompletedAtTheUsersOwnStore(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let weekly = try await ShoppingListFields.create(
            user: "ann", name: "Weekly", budget: "30", currency: "EUR", items: try ShoppingListFields.items(["Milch", "Brot"]), store: store)
        let checked = try await ShoppingListFields.check(
            user: "ann", id: weekly.id, item: "Milch", price: "1.19", storeID: "mine-1", at: "2026-03-05T10:00:00+02:00", db: store)
        #expect(checked.expense.storeID == nil && checked.expense.merchant == "K-Market Kallio")
        #expect(checked.expense.location?.coordinate == Coordinate(uncheckedLatitude: 60.1841, longitude: 24.95))
        await #expect(throws: UsageError.self) {
            try await ShoppingListFields.check(user: "ann", id: weekly.id, item: "Brot", price: "2.49", storeID: "mine-3", at: nil, db: store)
        }
        let party = try await ShoppingListFields.create(
            user: "ann", name: "Party", budget: "30", currency: "EUR", items: try ShoppingListFields.items(["Kaffee"]), store: store)
        let done = try await ShoppingListFields.complete(
            user: "ann", id: party.id, storeID: "mine-2", at: "2026-03-06T10:00:00+02:00", prices: ["Kaffee=5.99"], db: store)
        #expect(done.expense.storeID == nil && done.store.name == "Kauppa")
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")).map(\.storeID).sorted() == ["mine-1", "mine-2"])
        // bob has only a mine-1: his list at mine-2 is refused, and stays open.
        let bobs = try await ShoppingListFields.create(
            user: "bob", name: "Bob's", budget: "10", currency: "EUR", items: try ShoppingListFields.items(["Milch"]), store: store)
        await #expect(throws: UsageError.self) {
            try await ShoppingListFields.complete(user: "bob", id: bobs.id, storeID: "mine-2", at: "2026-03-06T10:00:00+02:00", prices: ["Milch=1"], db: store)
        }
        #expect(try await store.lists(userID: "bob").map(\.isCompleted) == [false])
        #expect(try await store.priceRecords(PriceQuery(userID: "bob")).isEmpty)
    }

    /// One user's inflation at `--store mine-1`, and `--near --radius` around it, counts their
    /// records there; the circle leaves their mine-2 (3.3 km away) out, and everyone's rate
    /// counts no one's added store.
    @Test(arguments: Kind.allCases)
    func inflationCountsTheUsersOwnStoresByIDAndInACircle(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.savePrices(
            [try Self.milk("1.00", at: "mine-1", day: 1), try Self.milk("1.20", at: "mine-1", day: 9), try Self.milk("5.00", at: "mine-2", day: 9),
             try Self.milk("1.10", at: "s1", day: 2)], userID: "ann")
        func records(store id: String? = nil, near: String? = nil, radius: String? = nil, user: String? = "ann") async throws -> Int {
            var q = InflationQuery()
            (q.userID, q.asOf, q.store, q.near, q.radius) = (user, "2026-03-31", id, near, radius)
            return try await q.compute(in: store).result.records
        }
        #expect(try await records(store: "mine-1") == 2)
        #expect(try await records(near: "60.1841,24.95", radius: "500m") == 2)
        #expect(try await records(near: "60.1841,24.95", radius: "2km") == 3, "mine-1 and the registry's s1, 1.7 km away")
        #expect(try await records(near: "60.1841,24.95", radius: "2km", user: nil) == 1, "everyone's: s1 alone")
        #expect(try await records(near: "60.1841,24.95", radius: "500m", user: "bob") == 0)
    }

    @Test(arguments: Kind.allCases)
    func exportDeleteRestoreExportIsByteIdentical(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.savePrices([try Self.milk("1.19", at: "mine-1"), try Self.milk("1.25", at: "mine-2"), try Self.milk("1.39", at: "s1")], userID: "ann")
        _ = try await store.savePrices([try Self.milk("1.09", at: "mine-1")], userID: "bob")
        _ = try await ReceiptRecording.importReceipt(.init(text: Self.receiptText, name: "r.txt", user: "ann", storeID: "mine-2", at: nil), db: store)
        let before = try #require(try await UserRestoreContractTests.export(store, "ann"))
        let bobBefore = try #require(try await UserRestoreContractTests.export(store, "bob"))
        #expect(before.contains("\"store_id\":\"mine-1\",\"price\":\"1.19\"") && before.contains("\"store_id\":\"mine-2\""))
        #expect(!before.contains("\"id\":\"mine-1\",\"name\":\"K-Market Kallio\",\"kind\":\"shop:supermarket\",\"brand\""),
                "her own stores are in user_stores, not among the registry's")
        let data = try UserRestore.read(Array(before.utf8))
        #expect(data.storeIDs == ["s1"])
        #expect(try await store.deleteUser("ann", rewriteFile: false) != nil)
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")).isEmpty)
        try await store.restore(data, as: "ann")
        #expect(try await UserRestoreContractTests.export(store, "ann") == before)
        #expect(try await UserRestoreContractTests.export(store, "bob") == bobBefore)
        #expect(try await store.priceRecords(PriceQuery(storeIDs: ["mine-1"], userID: "ann")).map(\.price.decimalString) == ["1.19"])
    }

    /// The file itself refuses a record naming another user's added store, or both or neither
    /// store; the foreign key holds the record's own user.
    @Test func theFileRefusesAnotherUsersStore() async throws {
        let scratch = Scratch()
        let store = try #require(try await Self.fresh(.spatiaLite, scratch) as? SpatiaLiteStore)
        _ = try await store.savePrices([try Self.milk("1.19", at: "s1")], userID: "bob")
        func insert(_ storeID: String?, _ number: Int64?) throws {
            try store.writeTransaction { db in
                try db.execute(sql: """
                    INSERT INTO price_records (user_id, product_id, store_id, user_store_number, price_minor, currency, quantity, unit,
                        recorded_at, recorded_ms, local_date, source, content_hash)
                    SELECT 'bob', product_id, ?, ?, 99, 'EUR', 1, 'pcs', recorded_at, recorded_ms, local_date, source, content_hash + 1
                    FROM price_records LIMIT 1
                    """, arguments: [storeID, number])
            }
        }
        #expect(throws: DatabaseError.self) { try insert(nil, 2) }  // ann's mine-2; bob has only mine-1
        #expect(throws: DatabaseError.self) { try insert("s1", 1) }
        #expect(throws: DatabaseError.self) { try insert(nil, nil) }
        try insert(nil, 1)
        #expect(try await store.priceRecords(PriceQuery(userID: "bob")).map(\.storeID) == ["s1", "mine-1"])
    }

    @Test func theDatabaseRefusesAnotherUsersStoreOnPostgreSQL() async throws {
        guard PostGISTestServer.address != nil else { return }
        let name = try await PostGISTestServer.newMigratedDatabase()
        let store = try await PostGISStore(PostGISAddress(PostGISTestServer.url(name)))
        let scratch = Scratch()
        _ = try await Importer.importStores(from: scratch.file("stores.csv", "id,name,lat,lon\ns1,Kiosk,60.17,24.94\n"), into: store)
        try await addUsers(["ann", "bob"], to: store)
        _ = try await store.addStore(userID: "ann", try StoreChoiceContractTests.fields("K-Market", 60.18, 24.95))
        _ = try await store.savePrices([try Self.milk("1.19", at: "s1")], userID: "bob")
        func insert(_ values: String) throws {
            try PostGISTestServer.psql("""
                INSERT INTO price_records (pk, user_id, product_id, store_id, user_store_number, price_minor, currency, quantity, unit,
                    recorded_at, recorded_ms, local_date, source, content_hash)
                SELECT pk + 1, 'bob', product_id, \(values), 99, 'EUR', 1, 'pcs', recorded_at, recorded_ms, local_date, source, content_hash + 1
                FROM price_records LIMIT 1
                """, database: name)
        }
        #expect(throws: PostGISTestServer.PSQLFailed.self) { try insert("NULL, 1") }  // ann's mine-1: bob has none
        #expect(throws: PostGISTestServer.PSQLFailed.self) { try insert("'s1', 1") }
        #expect(throws: PostGISTestServer.PSQLFailed.self) { try insert("NULL, NULL") }
        #expect(try await store.priceRecords(PriceQuery(userID: "bob")).count == 1)
    }

    /// v31 over a file with records and feed entries made from them: the rebuild keeps the
    /// records (pks, times) and the entries' links, and the time triggers work after it.
    @Test func theRebuildKeepsRecordsAndFeedLinks() async throws {
        let scratch = Scratch()
        do {
            let store = try #require(try await Self.fresh(.spatiaLite, scratch) as? SpatiaLiteStore)
            _ = try await store.joinCommunity(userID: "ann", displayName: "Ann")
            _ = try await store.savePrices([try Self.milk("1.19", at: "s1"), try Self.milk("1.29", at: "s1", day: 6)], userID: "ann")
            try await store.writeTransaction { db in
                try db.execute(sql: "UPDATE price_records SET created_at = '2026-01-01T00:00:00.000Z', updated_at = '2026-01-02T00:00:00.000Z'")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v31:%'")
            }
            #expect(try store.scalar("SELECT count(*) FROM community_posts WHERE price_record_pk IS NOT NULL") == 2)
        }
        let store = try scratch.store()
        #expect(try store.scalar("SELECT count(*) FROM community_posts AS c JOIN price_records AS r ON r.pk = c.price_record_pk") == 2)
        let records = try await store.priceRecords(PriceQuery(userID: "ann"))
        #expect(records.map(\.createdAt) == ["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"])
        #expect(try store.scalar("SELECT count(*) FROM sqlite_master WHERE tbl_name = 'price_records' AND type IN ('index', 'trigger')") == 7)
        _ = try await store.savePrices([try Self.milk("1.39", at: "mine-1", day: 7)], userID: "ann")
        #expect(try await store.priceRecords(PriceQuery(userID: "ann")).last?.createdAt != nil, "stamped by the trigger made again")
    }
}
