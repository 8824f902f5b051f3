import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// Receipts kept as records (issue 42 §2, `ReceiptStore`) promise the same on the file, the
/// memory store and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server), through `ReceiptRecording` and
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
        #expect(try await store.deleteReceipt(id: r.id, userID: "bob", rewrite: .now) == nil)

        // A misread line: its price record follows, the total with --total.
        let fixed = try await ReceiptRecording.correct(id: r.id, user: "ann", .init(line: 3, price: "1,39", total: "3,88"), db: store)
        #expect(fixed.receipt.status == .ok && fixed.receipt.totalMinor == 388)
        #expect(try await Self.records(store, user: "ann").map(\.price.minorUnits).sorted() == [139, 249])
        #expect(try await store.read { try $0.spendingPoints(ExpenseFilter(userID: "ann")).map(\.amountMinor) } == [388])
        let listed = try await store.receipts(userID: "ann", after: nil, limit: 10)
        #expect(listed.map(\.id) == [r.id] && listed[0].image == nil)
        #expect(try await store.receipts(userID: "ann", after: listed[0].sequence, limit: 10).isEmpty, "the next page is empty")

        #expect(try await store.deleteReceipt(id: r.id, userID: "ann", rewrite: .now) != nil)
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

    /// `users export`'s price records name the receipt each came from (`receipt_id`, the id in
    /// its `receipts`), null for a record imported on its own; the keys stay `prices import`'s.
    @Test(arguments: Kind.allCases)
    func exportedPriceRecordsCarryTheirReceiptID(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await PriceStoreContractTests.make(kind, scratch)
        let r = try await ReceiptRecording.importReceipt(.init(text: Self.text, name: "r.txt", user: "ann", storeID: "s1", at: nil), db: store).receipt
        _ = try await store.savePrices(
            [try PriceStoreContractTests.entry("Butter", "2.49", "2026-03-05T10:00:00+02:00", .id("s1"), nil, nil, 1, .pcs)], userID: "ann")
        // bob's receipt of the same text is his: its id is never in ann's export.
        let bobs = try await ReceiptRecording.importReceipt(.init(text: Self.text, name: "r.txt", user: "bob", storeID: "s1", at: nil), db: store).receipt
        #expect(bobs.id != r.id)
        let text = try #require(try await store.withUserData("ann") { data in
            let sink = ByteSink()
            _ = try UserExport.write(data, generatedAt: "2026-01-01T00:00:00Z", to: sink)
            return String(decoding: sink.bytes, as: UTF8.self)
        })
        let export = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let records = try #require(export["price_records"] as? [[String: Any]])
        let byProduct = Dictionary(records.map { ($0["product"] as? String ?? "?", $0["receipt_id"]) }, uniquingKeysWith: { a, _ in a })
        #expect(byProduct.count == 3 && records.count == 3, "\(records)")
        #expect(byProduct["Milk"] as? String == r.id && byProduct["Brot Vollkorn"] as? String == r.id)
        #expect(byProduct["Butter"].map { $0 is NSNull } == true, "a record of no receipt: null")
        #expect(records.allSatisfy { Set($0.keys) == Set(PriceImport.columns) })
        let receipts = try #require(export["receipts"] as? [[String: Any]])
        #expect(receipts.map { $0["id"] as? String } == [r.id])
        #expect(!text.contains(bobs.id))
    }
}

/// `receipts delete` on the file leaves nothing of the receipt readable (issue 42 §2, as
/// `expenses delete`): the kept photo's bytes and the OCR text are in the file (or its
/// write-ahead log) once stored, and in neither once deleted.
@Suite struct ReceiptDeletionScrubTests {
    /// The database file's bytes and its write-ahead log's.
    static func fileBytes(_ path: String) -> [UInt8] {
        [path, path + "-wal"].flatMap { p in (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: p)))) ?? [] }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }

    @Test(arguments: [true, false])
    func aDeletedReceiptLeavesNoPhotoOrTextInTheFile(ok: Bool) async throws {
        let scratch = Scratch()
        let store = try await PriceStoreContractTests.make(.spatiaLite, scratch) as! SpatiaLiteStore
        let path = scratch.path("test.sqlite")
        // A photo of 40 KB (overflow pages), bytes no other row holds.
        var generator = SystemRandomNumberGenerator()
        let photo: [UInt8] = [0xFF, 0xD8, 0xFF] + (0..<40_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let marker = "Zuckerwatte-\(UUID().uuidString)"
        // ok: with its store, an expense and price records; else waiting for review (no store).
        let text = "\(ok ? "Kiosk" : "Nowhere Shop")\n16.12.2024 15:53\n\(marker) 1,29\nSUMME 1,29\n"
        let input = ReceiptRecording.Input(
            text: text, name: "IMG_2.jpg", isPhoto: true, imageHash: "cd", keptImage: photo, user: "ann", storeID: ok ? "s1" : nil, at: nil,
            allowMismatch: true)
        let r = try await ReceiptRecording.importReceipt(input, db: store).receipt
        #expect((r.status == .ok) == ok, "\(r.problems)")
        // 16 pieces of 32 bytes: a longer run may straddle two overflow pages.
        let pieces = (0..<16).map { n in Array(photo[(1_000 + n * 2_400)..<(1_032 + n * 2_400)]) }
        func piecesIn(_ bytes: [UInt8]) -> Int { pieces.filter { Self.contains(bytes, $0) }.count }
        let before = Self.fileBytes(path)
        let (photoIn, textIn) = (piecesIn(before), Self.contains(before, Array(text.utf8)))
        #expect(photoIn >= 12, "the stored photo is in the file: \(photoIn) of 16 pieces")
        #expect(textIn, "the stored text is in the file")

        let notes = try #require(try await store.deleteReceipt(id: r.id, userID: "ann", rewrite: .now))
        #expect(notes.isEmpty, "\(notes)")
        let after = Self.fileBytes(path)
        let photoLeft = piecesIn(after), textLeft = Self.contains(after, Array(marker.utf8))
        #expect(photoLeft == 0, "the deleted photo's bytes: \(photoLeft) of 16 pieces")
        #expect(!textLeft, "the deleted receipt's text (also its line's product, which no record names now)")
        #expect(try store.pendingScrubSince() == nil, "the clean-up is done")
    }
}
