import Foundation
import GeoSpend
import GeoSpendTestStores
import Testing

/// An import of more than one batch (`Importer.batchSize`) on every store. PostgreSQL's writer
/// looks up less for one: every store id at once when a batch names many not seen yet, and no
/// category of a user the import itself created (docs/POSTGIS.md § Import rate). The
/// answers must stay those of a lookup per batch.
@Suite struct LargeImportContractTests {
    static let rows = 5_000
    static let stores = 1_200

    static func storesCSV() -> String {
        "id,name,kind,lat,lon\n" + (0..<stores).map { "s\($0),Store \($0),shop:supermarket,60.\(1000 + $0),24.9400\n" }.joined()
    }

    /// Row `i` (from 0) bought at store `s(i % stores)` unless `store` says otherwise; every row
    /// geotagged, so `expensesWithoutStore` sees a row that lost its store.
    static func expensesCSV(store: (Int) -> String? = { "s\($0 % stores)" }, category: (Int) -> String = { _ in "Food" }) -> String {
        "id,user,kind,amount,currency,occurred_at,title,category,store_id,lat,lon\n" + (0..<rows).map { i in
            "e\(i),\(i % 2 == 0 ? "ann" : "bob"),expense,1.00,EUR,2025-04-01T08:00:00+03:00,Row \(i),\(category(i)),\(store(i) ?? ""),60.1700,24.9400\n"
        }.joined()
    }

    /// Unknown stores in the first batch and in a later one (after the ids were fetched whole)
    /// are refused at their rows, and the import is all or nothing; skipping them keeps the rest.
    @Test(arguments: StoreKind.allCases)
    func unknownStoresAreRefusedInEveryBatch(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        _ = try await Importer.importStores(from: scratch.file("stores.csv", Self.storesCSV()), into: store)
        let missing = [10: "gone-1", 4_500: "gone-2"]
        let csv = scratch.file("expenses.csv", Self.expensesCSV(store: { missing[$0] ?? "s\($0 % Self.stores)" }))
        do {
            _ = try await Importer.importExpenses(from: csv, into: store)
            Issue.record("expenses naming unknown stores were imported")
        } catch ImportError.rejected(let errors, let bad) {
            #expect(bad == 2)
            #expect(errors.map(\.location) == ["12", "4502"], "\(errors)")
            #expect(errors.allSatisfy { $0.column == "store_id" && $0.reason.contains("not a known store") }, "\(errors)")
        }
        #expect(try await store.read { try $0.counts() }.expenses == 0)

        let report = try await Importer.importExpenses(from: csv, into: store, options: ImportOptions(skipInvalid: true))
        #expect(report.inserted == Self.rows - 2 && report.rejected == 2)
        let linked = try await store.read { r in try r.expensesWithoutStore(userID: nil).count }
        #expect(linked == 0, "every stored row kept its store")
    }

    /// New users' rows name their default categories in other cases and new categories in two
    /// spellings, in both batches: each is one category, with its first spelling.
    @Test(arguments: StoreKind.allCases)
    func aNewUsersCategoriesAreFoundAcrossBatches(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let names = ["food", "Pets", "FOOD", "Food", "pets"]
        let csv = scratch.file("expenses.csv", Self.expensesCSV(store: { _ in nil }, category: { names[$0 * names.count / Self.rows] }))
        let report = try await Importer.importExpenses(from: csv, into: store)
        #expect(report.inserted == Self.rows)
        for user in ["ann", "bob"] {
            let counts = try await store.read { r in try r.categoryCounts(userID: user) }.filter { $0.expenses > 0 }
            #expect(counts.map { "\($0.name) \($0.expenses)" }.sorted() == ["Food 1500", "Pets 1000"], "\(user): \(counts)")
            let listed = try await store.read { r in try r.categoryDetails(userID: user, includeInactive: true) }.map(\.category.name)
            #expect(listed.filter { $0.lowercased() == "pets" } == ["Pets"] && listed.filter { $0.lowercased() == "food" } == ["Food"])
        }
    }
}
