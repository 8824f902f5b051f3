import Foundation
import GRDB
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// A file written before the identity rule (`Identity`) holds ids and names in NFD: `doctor`
/// names them and `doctor --repair` rewrites them in NFC, references and content hashes with
/// them, and leaves the ones whose NFC form is another row (issue 22, follow-up of item 7).
@Suite struct IdentityRepairTests {
    static let nfd = (user: "Jose\u{301}", store: "cafe\u{301}-1", storeName: "Cafe\u{301} Ursula",
        category: "Cafe\u{301}s", title: "Cre\u{300}me bru\u{302}le\u{301}e")

    /// Rows as an earlier GeoSpend stored them: written through the bulk writer, which takes
    /// text as given (the importer's parsing puts it in NFC), with hashes of that text.
    static func writeAsBefore(_ store: SpatiaLiteStore, user: String, expenses: [(id: String, category: String)], storeID: String? = nil) throws {
        try store.writeHere { w in
            if let storeID {
                _ = try w.insert(Store(
                    id: storeID, name: nfd.storeName, kind: "amenity:cafe", city: "Helsinki",
                    coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)))
            }
            for (id, category) in expenses {
                _ = try w.insert(Expense(
                    id: id, userID: user, amount: Money(minorUnits: 450, currency: try Currency(code: "EUR")),
                    occurredAt: try Timestamp(parsing: "2025-03-01T08:15:00+02:00"), title: nfd.title, category: category,
                    location: ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)),
                    storeID: storeID))
            }
        }
    }

    static func check(_ store: SpatiaLiteStore) throws -> HealthCheck {
        try #require(try store.checkHealth().checks.first { $0.name == "ids and names in NFC" })
    }

    @Test func decomposedIdsAreFoundRepairedAndMatchAReimport() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        try Self.writeAsBefore(
            store, user: Self.nfd.user, expenses: [("jose\u{301}-1", Self.nfd.category), ("jose\u{301}-2", "Food")], storeID: Self.nfd.store)
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: "Jos\u{E9}")) }.isEmpty)  // the bug: --user finds nothing

        let found = try Self.check(store)
        #expect(!found.ok)
        for part in ["1 user id", "1 store id", "2 expense ids", "1 category name", "--repair rewrites them"] {
            #expect(found.detail.contains(part), "\(found.detail)")
        }

        let done = try store.repair()
        #expect(done.contains { $0.hasPrefix("rewrote in Unicode NFC: 1 user id, 1 store id, 2 expense ids, 1 category name") }, "\(done)")
        let report = try store.checkHealth()
        #expect(report.isHealthy, "\(report.checks.filter { !$0.ok })")  // foreign keys and indexes included

        // Every id and name now NFC, byte for byte, and found as typed.
        #expect(try store.column("SELECT hex(id) FROM users") == [Data("Jos\u{E9}".utf8).map { String(format: "%02X", $0) }.joined()])
        #expect(try store.scalar("SELECT count(*) FROM expenses WHERE user_id = 'Jos\u{E9}' AND store_id = 'caf\u{E9}-1'") == 2)
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: "Jos\u{E9}")) }.count == 2)
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: "Jos\u{E9}", categories: ["Caf\u{E9}s"])) }.count == 1)
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: "Jos\u{E9}", storeIDs: ["caf\u{E9}-1"])) }.count == 2)

        // The same data imported again, as a file now gives it (NFC): nothing new, nothing clashes.
        let stores = scratch.file("s.csv", "id,name,kind,brand,street,postcode,city,country,lat,lon\ncaf\u{E9}-1,Caf\u{E9} Ursula,amenity:cafe,,,,Helsinki,,60.17,24.94\n")
        let storeImport = try await Importer.importStores(from: stores, into: store)
        #expect(storeImport.inserted == 0 && storeImport.unchanged == 1 && storeImport.errors.isEmpty, "\(storeImport.errors)")
        let header = "id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes\n"
        let rows = ["jos\u{E9}-1,Jos\u{E9},expense,4.50,EUR,2025-03-01T08:15:00+02:00,Cr\u{E8}me br\u{FB}l\u{E9}e,Caf\u{E9}s,,60.17,24.94,,caf\u{E9}-1,\n",
                    "jos\u{E9}-2,Jos\u{E9},expense,4.50,EUR,2025-03-01T08:15:00+02:00,Cr\u{E8}me br\u{FB}l\u{E9}e,Food,,60.17,24.94,,caf\u{E9}-1,\n"]
        let again = try await Importer.importExpenses(from: scratch.file("e.csv", header + rows.joined()), into: store)
        #expect(again.inserted == 0 && again.unchanged == 2 && again.errors.isEmpty, "\(again.errors)")
        #expect(try store.scalar("SELECT count(*) FROM users") == 1)
        #expect(try store.repair().allSatisfy { !$0.contains("NFC") })  // a second repair has nothing to rewrite
    }

    /// A user with added stores (issue 38) whose id a file holds in NFD: the repair carries the
    /// new id into `user_stores` and the `(user, mine-N)` references of their price records and
    /// receipts, and the file is healthy afterwards (foreign keys included).
    @Test func aRepairedUserKeepsTheirAddedStoresAndWhatNamesThem() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let user = "Jos\u{E9}"
        try await addUsers([user], to: store)
        _ = try await store.addStore(userID: user, try StoreChoiceContractTests.fields("K-Market Kallio", 60.1841, 24.95))
        _ = try await store.savePrices([try AddedStorePriceContractTests.milk("1.19", at: "mine-1")], userID: user)
        let receipt = try await ReceiptRecording.importReceipt(
            .init(text: AddedStorePriceContractTests.receiptText, name: "r.txt", user: user, storeID: "mine-1", at: "2024-12-16T15:53:00+02:00"),
            db: store)
        #expect(receipt.receipt.storeID == "mine-1")
        // The user id as a file written before the identity rule holds it; the references follow
        // (what an earlier GeoSpend wrote named the user the same way everywhere).
        try await store.writeTransaction { db in
            try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
            for table in try String.fetchAll(db, sql: """
                SELECT DISTINCT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c
                WHERE m.type = 'table' AND c.name = 'user_id'
                """) {
                try db.execute(sql: "UPDATE \(table) SET user_id = ? WHERE user_id = ?", arguments: [Self.nfd.user, user])
            }
            try db.execute(sql: "UPDATE users SET id = ? WHERE id = ?", arguments: [Self.nfd.user, user])
        }
        #expect(try store.scalar("SELECT count(*) FROM user_stores WHERE user_id = 'Jose\u{301}'") == 1)
        #expect(!(try Self.check(store).ok))

        let done = try store.repair()
        #expect(done.contains { $0.hasPrefix("rewrote in Unicode NFC: 1 user id") }, "\(done)")
        let report = try store.checkHealth()
        #expect(report.isHealthy, "\(report.checks.filter { !$0.ok })")
        #expect(try await store.storeChoices(userID: user).added.map(\.id) == ["mine-1"])
        #expect(try await store.priceRecords(PriceQuery(userID: user)).map(\.storeID).sorted() == ["mine-1", "mine-1", "mine-1"],
                "the record saved and the receipt's two lines")
        #expect(try await store.receipts(userID: user, after: nil, limit: 10).map(\.storeID) == ["mine-1"])
    }

    @Test func bothFormsStoredAreReportedAndLeftAlone() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        try Self.writeAsBefore(store, user: "Jos\u{E9}", expenses: [("a-1", "Food")])
        try Self.writeAsBefore(store, user: Self.nfd.user, expenses: [("a-2", "Food")])
        // One user with a category in both forms.
        try Self.writeAsBefore(store, user: "ann", expenses: [("b-1", "Caf\u{E9}s"), ("b-2", Self.nfd.category)])
        let before = try store.column("SELECT hex(user_id) || ':' || hex(id) || ':' || category_id FROM expenses ORDER BY pk")

        let found = try Self.check(store)
        #expect(!found.ok)
        #expect(found.detail.contains("user \"Jos\u{E9}\" is stored twice, in NFC and as \"Jose\u{301}\" (non-ASCII code points U+0301)"), "\(found.detail)")
        #expect(found.detail.contains("category \"Caf\u{E9}s\" of user \"ann\" is stored twice"), "\(found.detail)")
        #expect(found.detail.contains("`users delete` it, run `doctor --repair` again"), "\(found.detail)")

        let done = try store.repair()
        #expect(done.contains { $0.hasPrefix("left alone, their NFC form is another row: user \"Jos\u{E9}\"") }, "\(done)")
        // Keys and references as they were (the titles are rewritten in NFC: no clash there).
        #expect(try store.column("SELECT hex(user_id) || ':' || hex(id) || ':' || category_id FROM expenses ORDER BY pk") == before)
        #expect(try store.scalar("SELECT count(*) FROM users") == 3)
        #expect(try store.scalar("SELECT count(*) FROM categories WHERE user_id = 'ann' AND name LIKE 'Caf%s'") == 2)
        let after = try store.checkHealth()
        #expect(after.checks.filter { !$0.ok }.map(\.name) == ["ids and names in NFC"])

        // The way out the message gives: the NFC user goes, the other form then becomes NFC.
        #expect(try store.deleteUser("Jos\u{E9}", rewriteFile: false) != nil)
        #expect(try store.repair().contains { $0.hasPrefix("rewrote in Unicode NFC: 1 user id") })
        #expect(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: "Jos\u{E9}")) }.count == 1)
    }
}
