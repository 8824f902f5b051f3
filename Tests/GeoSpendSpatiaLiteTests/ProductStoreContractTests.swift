import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// `ProductStore` and `ProductCatalogue` (issue 38) on the file, the memory store and PostgreSQL
/// (where `$GEOSPEND_TEST_POSTGRES` names a server): tags with colours, favourites and the on-sale flag
/// are each user's; a shared product is not edited; merge and delete move or remove only the
/// user's records; the brand comes from the name when it is a known one.
@Suite struct ProductStoreContractTests {
    typealias Kind = PriceStoreContractTests.Kind
    typealias Database = PriceStoreContractTests.PriceDatabase & ProductStore

    /// ann: Valio milk (shared with bob), butter, two apple packs; bob: the milk.
    static func make(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        let store = try #require(try await PriceStoreContractTests.make(kind, scratch) as? any Database)
        _ = try await store.savePrices([
            try PriceStorageTests.entry("Valio Vollmilch 1 l", "1.29", category: "Dairy", unit: .l),
            try PriceStorageTests.entry("Butter", "2.49", category: "Dairy"),
            try PriceStorageTests.entry("Äpfel", "3.99", category: "Fruit", unit: .kg),
            try PriceStorageTests.entry("Apples loose", "1.79", at: "2026-03-06T10:00:00+02:00", category: "Fruit", quantity: 500, unit: .g),
        ], userID: "ann")
        _ = try await store.savePrices([try PriceStorageTests.entry("Valio Vollmilch 1 l", "1.35", at: "2026-03-07T10:00:00+02:00", unit: .l)], userID: "bob")
        return store
    }

    static func names(_ listed: [(product: Product, marks: ProductMarks)]) -> [String] { listed.map(\.product.name) }

    @Test(arguments: Kind.allCases)
    func tagsFavouritesAndSaleAreTheUsers(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        #expect(try await store.products().map { "\($0.name) \($0.brand ?? "-")" } == [
            "Valio Vollmilch 1 l Valio", "Butter -", "Äpfel -", "Apples loose -",
        ], "the brand from the name")
        // By name ascending: folded (Äpfel → apfel), then bytes.
        #expect(Self.names(try await ProductCatalogue.list(userID: "ann", store: store)) == ["Äpfel", "Apples loose", "Butter", "Valio Vollmilch 1 l"])
        let dairy = try await ProductCatalogue.tag("Dairy", product: "Butter", color: "blue", userID: "ann", store: store)
        #expect(dairy == ProductTag(name: "Dairy", color: "#007AFF", products: 1))
        let again = try await ProductCatalogue.tag("dairy", product: "Valio Vollmilch 1 l", color: nil, userID: "ann", store: store)
        #expect(again == ProductTag(name: "Dairy", color: "#007AFF", products: 2), "the same tag, its colour kept")
        _ = try await ProductCatalogue.tag("breakfast", product: "Butter", color: "#00ff00", userID: "ann", store: store)
        _ = try await ProductCatalogue.mark(product: "Butter", favourite: true, onSale: nil, userID: "ann", store: store)
        _ = try await ProductCatalogue.mark(product: "Äpfel", favourite: nil, onSale: true, userID: "ann", store: store)
        #expect(Self.names(try await ProductCatalogue.list(userID: "ann", .init(tag: "DAIRY"), store: store)) == ["Butter", "Valio Vollmilch 1 l"])
        #expect(Self.names(try await ProductCatalogue.list(userID: "ann", .init(favourites: true), store: store)) == ["Butter"])
        #expect(Self.names(try await ProductCatalogue.list(userID: "ann", .init(onSale: true), store: store)) == ["Äpfel"])
        #expect(Self.names(try await ProductCatalogue.list(userID: "ann", .init(category: "fruit"), store: store)) == ["Äpfel", "Apples loose"])
        let butter = try #require(try await ProductCatalogue.list(userID: "ann", store: store).first { $0.product.name == "Butter" })
        #expect(butter.marks == ProductMarks(favourite: true, onSale: false, tags: ["Dairy", "breakfast"]))
        #expect(try await store.productTags(userID: "ann") == [
            ProductTag(name: "Dairy", color: "#007AFF", products: 2), ProductTag(name: "breakfast", color: "#00FF00", products: 1),
        ])
        // bob shares the milk but none of ann's marks; ann's butter is not his to tag.
        let bobsMarks = try await store.productMarks(userID: "bob"), bobsTags = try await store.productTags(userID: "bob")
        #expect(bobsMarks.isEmpty && bobsTags.isEmpty)
        #expect(Self.names(try await ProductCatalogue.list(userID: "bob", .init(tag: "Dairy"), store: store)).isEmpty)
        await #expect(throws: UsageError.self) { _ = try await ProductCatalogue.tag("x", product: "Butter", color: nil, userID: "bob", store: store) }
        let butterID = butter.product.id
        #expect(try await store.tagProduct(userID: "bob", productID: butterID, tag: "x", color: nil) == nil)
        #expect(try await store.markProduct(userID: "bob", productID: butterID, favourite: true, onSale: nil) == false)
        // Untagging the last product deletes the tag.
        try await ProductCatalogue.untag("BREAKFAST", product: "Butter", userID: "ann", store: store)
        #expect(try await store.productTags(userID: "ann").map(\.name) == ["Dairy"])
        await #expect(throws: UsageError.self) { try await ProductCatalogue.untag("breakfast", product: "Butter", userID: "ann", store: store) }
        await #expect(throws: UsageError.self) { _ = try await ProductCatalogue.tag(" ", product: "Butter", color: nil, userID: "ann", store: store) }
        await #expect(throws: UsageError.self) { _ = try await ProductCatalogue.tag("x", product: "Butter", color: "#12345", userID: "ann", store: store) }
    }

    @Test(arguments: Kind.allCases)
    func aSharedProductIsNotEditedAndMergeMovesOnlyTheUsersRecords(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        // The milk is bob's too: refused, nothing changes.
        do {
            _ = try await ProductCatalogue.edit(product: "Valio Vollmilch 1 l", ["name": "Milk"], userID: "ann", store: store)
            Issue.record("a shared product was edited")
        } catch let e as UsageError {
            #expect(e.message.contains("also recorded by 1 other user"), "\(e.message)")
        }
        // Butter is ann's alone.
        let edited = try await ProductCatalogue.edit(
            product: "Butter", ["name": "Voi 500 g", "brand": "Valio", "barcode": "4006381333931", "unit": "g"], userID: "ann", store: store)
        #expect(edited.name == "Voi 500 g" && edited.normalizedName == "voi" && edited.brand == "Valio" && edited.barcode?.digits == "4006381333931")
        #expect(edited.defaultUnit == .g && edited.category == "Dairy")
        let apples = try await ProductCatalogue.product("Apples loose", userID: "ann", store: store)
        let äpfel = try await ProductCatalogue.product("Äpfel", userID: "ann", store: store)
        _ = try await ProductCatalogue.tag("fruit", product: "Apples loose", color: "red", userID: "ann", store: store)
        _ = try await ProductCatalogue.mark(product: "Apples loose", favourite: true, onSale: nil, userID: "ann", store: store)
        let (target, moved) = try await ProductCatalogue.merge("Apples loose", into: "Äpfel", userID: "ann", store: store)
        #expect(target.id == äpfel.id && moved == 1)
        #expect(try await store.priceRecords(PriceQuery(productIDs: [äpfel.id])).count == 2)
        #expect(!(try await store.products()).contains { $0.id == apples.id }, "no record names it: it leaves the catalogue")
        let marks = try await store.productMarks(userID: "ann")
        #expect(marks[äpfel.id] == ProductMarks(favourite: true, onSale: false, tags: ["fruit"]) && marks[apples.id] == nil)
        // bob merges his milk into nothing of his: refused; ann deletes hers: bob's stays.
        await #expect(throws: UsageError.self) { _ = try await ProductCatalogue.merge("Valio Vollmilch 1 l", into: "Äpfel", userID: "bob", store: store) }
        let milk = try await ProductCatalogue.product("Valio Vollmilch 1 l", userID: "bob", store: store)
        let (_, gone) = try await ProductCatalogue.delete("Valio Vollmilch 1 l", userID: "ann", store: store)
        #expect(gone == 1)
        #expect(try await store.priceRecords(PriceQuery(productIDs: [milk.id])).map(\.userID) == ["bob"])
        #expect(try await store.products().contains { $0.id == milk.id }, "bob's record still names it")
        // Now the milk is bob's alone, so bob may edit it.
        #expect(try await ProductCatalogue.edit(product: String(milk.id), ["category": "Dairy"], userID: "bob", store: store).category == "Dairy")
        // A barcode another product has is refused.
        _ = try await store.savePrices([try PriceStorageTests.entry("Tea", "2.00", barcode: "96385074")], userID: "bob")
        await #expect(throws: UsageError.self) {
            _ = try await ProductCatalogue.edit(product: String(milk.id), ["barcode": "96385074"], userID: "bob", store: store)
        }
    }
}
