import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// Receipts kept as records (issue 42 §2, `ReceiptStore`) promise the same on the file and on
/// PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server), through `ReceiptRecording` and
/// the protocols alone, on PriceStoreContractTests' stores (`s1`, OpenStreetMap node 288130404).
@Suite struct ReceiptRecordContractTests {
    typealias Kind = PriceStoreContractTests.Kind

    static let text = "Kiosk\n16.12.2024 15:53\nMilk 1,29\nBrot Vollkorn 2,49\nSUMME 3,78\n"

    static func records(_ store: any PriceStoreContractTests.PriceDatabase, user: String) async throws -> [PriceRecord] {
        try await store.priceRecords(PriceQuery(userID: user))
    }

    @Test(arguments: Kind.allCases)
    func aReceiptAndWhatItMadeLiveAndDieTogether(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await PriceStoreContractTests.make(kind, scratch)
        let saved = try await ReceiptRecording.importReceipt(.init(text: Self.text, name: "r.txt", user: "ann", storeID: "s1", at: nil), db: store)
        let r = saved.receipt
        #expect(r.status == .ok && r.problems.isEmpty, "\(r.problems)")
        #expect(r.date == "2024-12-16" && r.time == "15:53" && r.totalMinor == 378 && r.expenseID == r.id)
        #expect(r.items.map(\.priceMinor) == [129, 249] && r.items.map(\.line) == [3, 4])
        #expect(r.items.allSatisfy { $0.productID != nil })
        #expect(try await Self.records(store, user: "ann").map(\.price.minorUnits).sorted() == [129, 249])
        #expect(try await store.read { try $0.spendingPoints(ExpenseFilter(userID: "ann")).map(\.storeID) } == ["s1"])

        // The same receipt again: refused, nothing added.
        let again = await #expect(throws: EditError.self) {
            try await ReceiptRecording.importReceipt(.init(text: Self.text, name: "r.txt", user: "ann", storeID: "s1", at: nil), db: store)
        }
        #expect(again.map { "\($0)" }?.contains("stored before") == true)

        // Another user sees and deletes nothing of it.
        #expect(try await store.receipt(id: r.id, userID: "bob") == nil)
        #expect(try await store.receipts(userID: "bob", after: nil, limit: 10).isEmpty)
        #expect(try await store.deleteReceipt(id: r.id, userID: "bob") == false)

        // A misread line: its price record follows, the total with --total.
        let fixed = try await ReceiptRecording.correct(id: r.id, user: "ann", .init(line: 3, price: "1,39", total: "3,88"), db: store)
        #expect(fixed.receipt.status == .ok && fixed.receipt.totalMinor == 388)
        #expect(try await Self.records(store, user: "ann").map(\.price.minorUnits).sorted() == [139, 249])
        #expect(try await store.read { try $0.spendingPoints(ExpenseFilter(userID: "ann")).map(\.amountMinor) } == [388])
        let listed = try await store.receipts(userID: "ann", after: nil, limit: 10)
        #expect(listed.map(\.id) == [r.id] && listed[0].image == nil)
        #expect(try await store.receipts(userID: "ann", after: listed[0].sequence, limit: 10).isEmpty, "the next page is empty")

        #expect(try await store.deleteReceipt(id: r.id, userID: "ann"))
        #expect(try await store.receipt(id: r.id, userID: "ann") == nil)
        #expect(try await Self.records(store, user: "ann").isEmpty)
        #expect(try await store.read { try $0.spendingPoints(ExpenseFilter(userID: "ann")).count } == 0)
    }

    /// No store: the receipt waits, stores nothing else; confirmed once it has one; kept
    /// photos go into the export; `users delete` takes the receipts.
    @Test(arguments: Kind.allCases)
    func aReceiptWithoutAStoreWaitsForReview(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await PriceStoreContractTests.make(kind, scratch)
        let photo: [UInt8] = [0xFF, 0xD8, 0xFF, 0x00, 0x01, 0x02]
        let input = ReceiptRecording.Input(
            text: "Nowhere Shop\nMilk 1,29\nSUMME 9,99\n", name: "IMG_1.jpg", isPhoto: true, imageHash: "ab", keptImage: photo, user: "ann",
            storeID: nil, at: nil)
        let r = try await ReceiptRecording.importReceipt(input, db: store).receipt
        #expect(r.status == .needsReview && r.expenseID == nil)
        #expect(r.problems.contains(ReceiptRecording.noStore) && r.problems.contains(ReceiptRecording.noDate))
        #expect(r.problems.contains { $0.hasPrefix("the items add up to 1.29") })
        #expect(try await Self.records(store, user: "ann").isEmpty)
        #expect(try await store.read { try $0.spendingPoints(ExpenseFilter(userID: "ann")).count } == 0)
        await #expect(throws: UsageError.self) { try await ReceiptRecording.confirm(id: r.id, user: "ann", db: store) }

        let placed = try await ReceiptRecording.correct(id: r.id, user: "ann", .init(storeID: "s1", date: "2026-03-05"), db: store)
        #expect(placed.receipt.status == .needsReview, "the total is still wrong")
        let confirmed = try await ReceiptRecording.confirm(id: r.id, user: "ann", db: store)
        #expect(confirmed.receipt.status == .ok && confirmed.receipt.expenseID == r.id)
        #expect(try await store.read { try $0.spendingPoints(ExpenseFilter(userID: "ann")).map(\.amountMinor) } == [999])
        #expect(try await Self.records(store, user: "ann").map(\.price.minorUnits) == [129])

        // --allow-mismatch: confirmed at once, its problems kept on record.
        let allowed = try await ReceiptRecording.importReceipt(
            .init(text: "Kiosk\nMilk 1,29\nSUMME 9,99\n", name: "m.txt", user: "ann", storeID: "s1", at: "2026-03-06", allowMismatch: true), db: store).receipt
        #expect(allowed.status == .ok && allowed.expenseID == allowed.id && allowed.problems.contains { $0.hasPrefix("the items add up to") })

        let exported = try #require(try await store.withUserData("ann") { try $0.receipts() })
        #expect(exported.map(\.image) == [photo, nil])
        let deletion = try #require(try await store.deleteUser("ann", rewriteFile: false))
        #expect(deletion.rowsByTable.contains(.init(table: "receipts", rows: 2)), "\(deletion.rowsByTable)")
    }

    /// `expenses delete` of a receipt's expense takes the receipt and its price records along.
    @Test(arguments: Kind.allCases)
    func deletingTheExpenseDeletesTheReceipt(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await PriceStoreContractTests.make(kind, scratch)
        let r = try await ReceiptRecording.importReceipt(.init(text: Self.text, name: "r.txt", user: "ann", storeID: "s1", at: nil), db: store).receipt
        let editing = try #require(store as? any ExpenseEditing)
        #expect(try await editing.deleteExpense(id: r.id, userID: "ann", rewrite: .batched) != nil)
        #expect(try await store.receipt(id: r.id, userID: "ann") == nil)
        #expect(try await Self.records(store, user: "ann").isEmpty)
    }
}
