import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `StoreChoiceStore` (issue 38, per-user stores), the same on the file, the memory store and
/// PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server): added stores numbered per user and seen by their
/// user alone, favourites and one default that may name a shared or an own store, another
/// user's `mine-N` is "none", and export → delete → restore → export gives the same bytes.
@Suite struct StoreChoiceContractTests {
    typealias Kind = EditingStoreKind
    typealias Database = ExpenseStore & ExpenseEditing & StoreChoiceStore & UserDataStore

    static func fresh(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store: any Database = try await kind.make(in: scratch)
        _ = try await Importer.importStores(
            from: scratch.file("stores.csv", "id,name,kind,lat,lon\ns1,Kiosk,shop:kiosk,60.17,24.94\ns2,Cafe,amenity:cafe,60.18,24.95\n"), into: store)
        try await addUsers(["ann", "bob"], to: store)
        return store
    }

    static func fields(_ name: String, _ lat: Double, _ lon: Double, kind: String = "supermarket", region: String? = nil) throws -> AddedStoreFields {
        try AddedStoreFields.checked(name: name, lat: lat, lon: lon, kind: kind, region: region)
    }

    @Test(arguments: Kind.allCases)
    func addedStoresAreTheirUsersAlone(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        let k = try #require(try await store.addStore(userID: "ann", try Self.fields("K-Market Kallio", 60.1841, 24.95, region: "Uusimaa")))
        #expect(k.id == "mine-1" && k.store.kind == "shop:supermarket" && k.region == "Uusimaa" && k.addedBy == "ann")
        #expect(k.store.coordinate == Coordinate(uncheckedLatitude: 60.1841, longitude: 24.95) && k.createdAt != nil)
        let cafe = try #require(try await store.addStore(userID: "ann", try Self.fields("Kaffa", 60.16, 24.93, kind: "cafe")))
        #expect(cafe.id == "mine-2" && cafe.store.kind == "amenity:cafe" && cafe.region == nil)
        let bobs = try #require(try await store.addStore(userID: "bob", try Self.fields("Bob's Lidl", 61.0, 25.0)))
        #expect(bobs.id == "mine-1", "numbered per user")
        #expect(try await store.addStore(userID: "nobody", try Self.fields("X", 0, 0)) == nil)

        // Each user's mine-1 is their own; a shared store is everyone's; ann's mine-2 is none to bob.
        #expect(try await store.store(userID: "ann", id: "mine-1")?.store.name == "K-Market Kallio")
        #expect(try await store.store(userID: "bob", id: "mine-1")?.store.name == "Bob's Lidl")
        #expect(try await store.store(userID: "bob", id: "mine-2") == nil)
        #expect(try await store.store(userID: "bob", id: "s1")?.store.name == "Kiosk")
        #expect(try await store.store(userID: "bob", id: "s9") == nil)
        // Never in the shared registry's answers.
        let nearest = try await store.nearestStores(to: Coordinate(uncheckedLatitude: 60.1841, longitude: 24.95), limit: 10, maxDistance: nil, kind: nil)
        #expect(nearest.stores.map(\.store.id) == ["s2", "s1"])
        #expect(try await store.read { try $0.storeKindCounts() }.compactMap(\.kind).sorted() == ["amenity:cafe", "shop:kiosk"])
        // `nearest-stores --user ann`: her own merged in under the same limits, nearest first.
        let added = try await store.storeChoices(userID: "ann").added
        let merged = StoreChoiceListing.nearest(nearest, added: added, limit: 2, maxDistance: nil, kind: nil)
        #expect(merged.stores.map(\.store.id) == ["mine-1", "s2"] && merged.stores[0].distanceMeters == 0)
        // The registry's answer under the same limits, then hers merged in (s1 is 1.6 km off, mine-2 2.9 km).
        let center = nearest.center
        let cafes = try await store.nearestStores(to: center, limit: 10, maxDistance: nil, kind: "amenity:cafe")
        #expect(StoreChoiceListing.nearest(cafes, added: added, limit: 10, maxDistance: nil, kind: "amenity:cafe").stores.map(\.store.id) == ["s2", "mine-2"])
        let close = try await store.nearestStores(to: center, limit: 10, maxDistance: .meters(1000), kind: nil)
        #expect(StoreChoiceListing.nearest(close, added: added, limit: 10, maxDistance: .meters(1000), kind: nil).stores.map(\.store.id) == ["mine-1", "s2"])
        #expect(StoreChoiceListing.nearest(nearest, added: [], limit: 10, maxDistance: nil, kind: nil) == nearest)

        // Favourites and the default: shared or own; another user's store is refused, nothing written.
        #expect(try await store.setFavouriteStore(userID: "ann", storeID: "s2", true))
        #expect(try await store.setFavouriteStore(userID: "ann", storeID: "mine-2", true))
        #expect(try await store.setFavouriteStore(userID: "ann", storeID: "s2", true), "twice is once")
        #expect(try await store.setDefaultStore(userID: "ann", storeID: "mine-1"))
        #expect(try await store.setFavouriteStore(userID: "bob", storeID: "mine-2", true) == false)
        #expect(try await store.setDefaultStore(userID: "bob", storeID: "mine-2") == false)
        #expect(try await store.setDefaultStore(userID: "bob", storeID: "s9") == false)
        let ann = try await store.storeChoices(userID: "ann")
        #expect(ann.added.map(\.id) == ["mine-1", "mine-2"])
        #expect(ann.favourites.map(\.id) == ["mine-2", "s2"])
        #expect(ann.defaultStore?.id == "mine-1")
        #expect(StoreChoiceListing.rows(ann).map { "\($0.entry.id) \($0.isDefault) \($0.favourite)" } == [
            "mine-1 true false", "mine-2 false true", "s2 false true",
        ])
        #expect(try await store.storeChoices(userID: "bob") == StoreChoices(added: [bobs]))
        // A read scope hands out the same (`StoreChoiceReader`, what `nearest-stores` reads in its one scope).
        #expect(try await store.read { [try $0.storeChoices(userID: "ann"), try $0.storeChoices(userID: "bob"), try $0.storeChoices(userID: "nobody")] }
            == [ann, StoreChoices(added: [bobs]), StoreChoices()])

        // Unmarking and clearing; the default moves.
        #expect(try await store.setFavouriteStore(userID: "ann", storeID: "s2", false))
        #expect(try await store.setDefaultStore(userID: "ann", storeID: "s1"))
        let after = try await store.storeChoices(userID: "ann")
        #expect(after.favourites.map(\.id) == ["mine-2"] && after.defaultStore?.id == "s1")
        #expect(try await store.setDefaultStore(userID: "ann", storeID: nil))
        #expect(try await store.storeChoices(userID: "ann").defaultStore == nil)
        await #expect(throws: UsageError.self) { try await StoreChoiceListing.show(user: "bob", id: "mine-2", store: store) }
    }

    @Test func theFieldsAreChecked() throws {
        #expect(throws: UsageError.self) { try Self.fields(" ", 60, 24) }
        #expect(throws: UsageError.self) { try Self.fields(String(repeating: "x", count: 101), 60, 24) }
        #expect(throws: UsageError.self) { try Self.fields("A", 91, 24) }
        #expect(throws: UsageError.self) { try Self.fields("A", 60, -180.5) }
        #expect(throws: UsageError.self) { try Self.fields("A", .nan, 24) }
        #expect(throws: UsageError.self) { try Self.fields("A", 60, .infinity) }
        #expect(throws: UsageError.self) { try Self.fields("A", 60, 24, kind: "super market") }
        #expect(throws: UsageError.self) { try Self.fields("A", 60, 24, kind: "") }
        #expect(throws: UsageError.self) { try Self.fields("A", 60, 24, region: "\n") }
        #expect(try Self.fields("A", 60, 24, kind: "shop:Bakery").kind == "shop:bakery")
        #expect(try Self.fields("A", 60, 24, kind: "amenity:bank").kind == "amenity:bank")
        #expect(try Self.fields("A", 60, 24, kind: "pharmacy").kind == "amenity:pharmacy")
        #expect(AddedStoreID.number("mine-3") == 3 && AddedStoreID.number("mine-03") == nil && AddedStoreID.number("mine-0") == nil)
        #expect(AddedStoreID.number("317766538") == nil)
    }

    /// The user's `users export` document (UserRestoreContractTests writes it).
    static func export(_ store: any Database, _ user: String) async throws -> String? {
        try await UserRestoreContractTests.export(store, user)
    }

    @Test(arguments: Kind.allCases)
    func exportDeleteRestoreExportIsByteIdentical(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.fresh(kind, scratch)
        _ = try await store.addStore(userID: "ann", try Self.fields("K-Market \"Kallio\"", 60.1841, 24.95, region: "Uusimaa"))
        _ = try await store.addStore(userID: "ann", try Self.fields("Kauppa", 60.2, 24.9))
        _ = try await store.addStore(userID: "ann", try Self.fields("Kaffa", 60.16, 24.93123456, kind: "cafe"))
        _ = try await store.setFavouriteStore(userID: "ann", storeID: "s1", true)
        _ = try await store.setFavouriteStore(userID: "ann", storeID: "mine-3", true)
        _ = try await store.setDefaultStore(userID: "ann", storeID: "mine-1")
        _ = try await store.addStore(userID: "bob", try Self.fields("Bob's", 61, 25))
        let before = try #require(try await Self.export(store, "ann"))
        let bobBefore = try #require(try await Self.export(store, "bob"))
        #expect(before.contains(#""user_stores":{"added":[{"id":"mine-1","name":"K-Market \"Kallio\"","kind":"shop:supermarket","region":"Uusimaa""#))
        #expect(before.contains(#""favourites":["mine-3","s1"],"default":"mine-1"}"#))
        #expect(!before.contains("Bob's") && !bobBefore.contains("Kallio"))
        let data = try UserRestore.read(Array(before.utf8))
        #expect(data.storeChoices.added.count == 3)
        #expect(try await store.deleteUser("ann", rewriteFile: false) != nil)
        #expect(try await store.storeChoices(userID: "ann").isEmpty)
        try await store.restore(data, as: "ann")
        #expect(try await Self.export(store, "ann") == before)
        #expect(try await Self.export(store, "bob") == bobBefore)
        // The counter resumes after the restored numbers.
        #expect(try await store.addStore(userID: "ann", try Self.fields("Next", 60, 24))?.id == "mine-4")
    }
}
