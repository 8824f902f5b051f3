import Foundation
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

/// Migration v8 and `PriceStore` on a real SpatiaLite file: products matched and shared, a
/// user's records all or nothing, re-saves no-ops, the queries Q's algorithms read.
@Suite struct PriceStorageTests {
    /// Two stores: `s1` (CSV, no source id) and `288130404` (OSM node 288130404, as
    /// Data/helsinki-places.geojson has S-Market Sokos; this feature written by hand here).
    static func stores(_ scratch: Scratch) async throws -> SpatiaLiteStore {
        let store = try scratch.store()
        let csv = scratch.file("stores.csv", "id,name,lat,lon\ns1,Kiosk,60.17,24.94\n")
        _ = try await Importer.importStores(from: csv, into: store)
        let geojson = scratch.file("osm.geojson", """
            {"type":"FeatureCollection","features":[{"type":"Feature","id":288130404,
             "properties":{"osm_id":288130404,"name":"S-Market Sokos Helsinki","kind":"shop:supermarket"},
             "geometry":{"type":"Point","coordinates":[24.9457,60.1697]}}]}
            """)
        _ = try await Importer.importStores(from: geojson, into: store)
        return store
    }

    static func entry(
        _ name: String, _ price: String, at: String = "2026-03-05T10:00:00+02:00", store: PriceEntry.StoreReference = .id("s1"),
        barcode: String? = nil, category: String? = nil, quantity: Double = 1, unit: PriceUnit = .pcs
    ) throws -> PriceEntry {
        let eur = try Currency(code: "EUR")
        return PriceEntry(
            productName: name, barcode: try barcode.map { try Barcode(parsing: $0) }, category: category, store: store,
            price: try Money(parsing: price, currency: eur), quantity: quantity, unit: unit,
            recordedAt: try Timestamp(parsing: at), source: .import)
    }

    static func inserted(_ outcomes: [PriceSaveOutcome]) -> [PriceRecord] {
        outcomes.compactMap { if case .inserted(let r, _) = $0 { r } else { nil } }
    }

    @Test func savedRecordsMatchProductsAndASecondSaveIsANoOp() async throws {
        let scratch = Scratch()
        let store = try await Self.stores(scratch)
        let entries = [
            try Self.entry("Vollmilch 1,5% 1 l", "1.29", category: "Dairy"),
            try Self.entry("vollmilch 1.5 %", "1.35", at: "2026-03-06T10:00:00+02:00"),  // the same product
            try Self.entry("Butter", "2.49", store: .openStreetMap(type: "NODE", number: 288130404)),
        ]
        let first = try await store.savePrices(entries, userID: "ann")
        let records = Self.inserted(first)
        #expect(records.count == 3)
        #expect(records.map(\.storeID) == ["s1", "s1", "288130404"])
        #expect(records[0].product.id == records[1].product.id && records[1].product.id != records[2].product.id)
        #expect(records[1].product.category == "Dairy" && records[2].product.category == "Other")
        #expect(first.map { if case .inserted(_, let new) = $0 { new } else { false } } == [true, false, true])
        let again = try await store.savePrices(entries, userID: "ann")
        #expect(again == [.unchanged, .unchanged, .unchanged])
        #expect(try store.scalar("SELECT count(*) FROM price_records") == 3)
        // The same rows of another user are that user's records.
        #expect(Self.inserted(try await store.savePrices(entries, userID: "bob")).count == 3)
        #expect(try store.scalar("SELECT count(*) FROM products") == 2)
    }

    @Test func anUnknownStoreWritesNothing() async throws {
        let scratch = Scratch()
        let store = try await Self.stores(scratch)
        let outcomes = try await store.savePrices([
            try Self.entry("Butter", "2.49"), try Self.entry("Bread", "1.99", store: .id("nope")),
            try Self.entry("Jam", "3.10", store: .openStreetMap(type: "way", number: 288130404)),
        ], userID: "ann")
        #expect(outcomes == [.unchanged, .unknownStore, .unknownStore])
        #expect(try store.scalar("SELECT count(*) FROM price_records") == 0)
        #expect(try store.scalar("SELECT count(*) FROM products") == 0)
        #expect(try store.scalar("SELECT count(*) FROM users") == 0)
    }

    @Test func queriesByProductStoreDayCategoryAndLatest() async throws {
        let scratch = Scratch()
        let store = try await Self.stores(scratch)
        let osm = PriceEntry.StoreReference.openStreetMap(type: "node", number: 288130404)
        _ = try await store.savePrices([
            try Self.entry("Milk", "1.00", at: "2026-03-01T09:00:00+02:00", category: "Dairy"),
            try Self.entry("Milk", "1.10", at: "2026-03-03T09:00:00+02:00"),
            // Late on the 3rd in UTC−5: still the 3rd where it was recorded.
            try Self.entry("Milk", "1.20", at: "2026-03-03T23:30:00-05:00"),
            try Self.entry("Milk", "0.90", at: "2026-03-02T09:00:00+02:00", store: osm),
            try Self.entry("Bread", "2.00", at: "2026-03-01T09:00:00+02:00", category: "Bakery"),
        ], userID: "ann")
        let milk = try #require(try await store.products().first { $0.name == "Milk" })
        let all = try await store.priceRecords(PriceQuery(productIDs: [milk.id]))
        #expect(all.map(\.price.decimalString) == ["1.00", "0.90", "1.10", "1.20"], "ascending by instant")
        let day3 = try LocalDay(parsing: "2026-03-03"), day2 = try LocalDay(parsing: "2026-03-02")
        #expect(try await store.priceRecords(PriceQuery(productIDs: [milk.id], from: day3, to: day3)).map(\.price.decimalString) == ["1.10", "1.20"])
        #expect(try await store.priceRecords(PriceQuery(storeIDs: ["288130404"])).map(\.price.decimalString) == ["0.90"])
        #expect(try await store.priceRecords(PriceQuery(category: "DAIRY")).count == 4)
        let latest = try await store.latestPrices(onOrBefore: day2, PriceQuery())
        #expect(latest.map { "\($0.storeID) \($0.product.name) \($0.price.decimalString)" } == [
            "288130404 Milk 0.90", "s1 Milk 1.00", "s1 Bread 2.00",  // by store id, then product id (Milk came first)
        ])
        #expect(try await store.latestPrices(onOrBefore: day3, PriceQuery(storeIDs: ["s1"], category: "dairy")).map(\.price.decimalString) == ["1.20"])
        #expect(try await store.storesWithPrices(userID: nil).map(\.id) == ["288130404", "s1"])
        #expect(try await store.storesWithPrices(userID: "bob").isEmpty)
    }

    @Test func deletingAUserRemovesTheirRecordsAndTheProductsOnlyTheyNamed() async throws {
        let scratch = Scratch()
        let store = try await Self.stores(scratch)
        _ = try await store.savePrices([try Self.entry("Milk", "1.00"), try Self.entry("Private thing", "9.00")], userID: "ann")
        _ = try await store.savePrices([try Self.entry("milk", "1.05")], userID: "bob")
        let deletion = try #require(try store.deleteUser("ann"))
        #expect(deletion.rowsByTable.first { $0.table == "price_records" }?.rows == 2)
        #expect(deletion.rowsByTable.last == .init(table: "products", rows: 1))
        #expect(try await store.products().map(\.name) == ["Milk"], "bob's record keeps the shared product")
        #expect(try await store.priceRecords(PriceQuery()).map(\.userID) == ["bob"])
    }
}
