import Foundation
import GeoSpendTestSupport
import Testing

/// Receipts kept as records (issue 42 §2) through the built binary on a real SpatiaLite file and
/// real Tesseract: a generated phone photo becomes a receipt, an expense at the store its header
/// names and one price record per line, in one command; a receipt that fails its checks waits
/// for review and stores nothing else until confirmed; `correct` moves the price record with the
/// line; deleting the receipt or its expense takes the others along; another user sees none of it.
@Suite(.serialized) struct ReceiptRecordCLITests {
    static let fixtures = CLITests.repo.appendingPathComponent("Tests/Fixtures/receipts")

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    func inFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-receipts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: d) }
        return try body(d)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// The registry: the photo's shop (matched by its header) and two others.
    func database(_ dir: URL) throws -> String {
        let db = dir.appendingPathComponent("r.sqlite").path, s = dir.appendingPathComponent("s.csv").path
        try """
            id,name,street,postcode,city,country,lat,lon
            fh,Frischmarkt Hoffmann,Hauptstraße 12,10115,Berlin,DE,52.53,13.38
            a,Store A,,,,,60.1709,24.9384
            b,Store B,,,,,60.1689,24.9384

            """.write(toFile: s, atomically: true, encoding: .utf8)
        let r = try geospend(["import", "stores", s, "--db", db])
        #expect(r.status == 0, "\(r.err)")
        return db
    }

    @Test func aPhotoBecomesAReceiptAnExpenseAndPriceRecordsInOneCommand() throws {
        try inFolder { dir in
            let db = try database(dir)
            let photo = Self.fixtures.appendingPathComponent("phone-900-de.jpg").path
            let r = try geospend(["receipts", "import", photo, "--user", "ann", "--keep-image", "--format", "json", "--db", db])
            try #require(r.status == 0, "\(r.err)")
            let j = try json(r.out)
            #expect(j["status"] as? String == "ok", "\(j["problems"] ?? "")")
            #expect(j["store"] as? String == "fh", "matched from the header")
            #expect(j["date"] as? String == "2024-11-03")
            #expect(j["total"] as? String == "18.22")
            #expect(j["price_records"] as? Int == 5)
            let id = try #require(j["receipt_id"] as? String)
            #expect(j["expense_id"] as? String == id)

            let expenses = try geospend(["expenses", "list", "--user", "ann", "--format", "json", "--db", db])
            #expect(expenses.out.contains(id) && expenses.out.contains("18.22"), "\(expenses.out)")
            let shown = try json(try geospend(["receipts", "show", id, "--user", "ann", "--format", "json", "--db", db]).out)
            let items = try #require(shown["items"] as? [[String: Any]])
            #expect(items.map { $0["price"] as? String } == ["2.58", "2.00", "5.65", "5.54", "2.45"])
            #expect(items.allSatisfy { $0["product_id"] is Int }, "each item knows its product")
            #expect(shown["image_kept"] as? Bool == true)
            #expect((shown["image_sha256"] as? String)?.count == 64)

            // The export has the photo's bytes, base64; byte for byte the file.
            let export = try geospend(["users", "export", "ann", "--db", db])
            try #require(export.status == 0, "\(export.err)")
            let receipts = try #require(try json(export.out)["receipts"] as? [[String: Any]])
            let image = try #require(receipts.first?["image_base64"] as? String)
            #expect(Data(base64Encoded: image) == (try Data(contentsOf: URL(fileURLWithPath: photo))))
            // Its price records name it (`receipt_id`).
            let records = try #require(try json(export.out)["price_records"] as? [[String: Any]])
            #expect(records.count == 5 && records.allSatisfy { $0["receipt_id"] as? String == id }, "\(records)")

            let again = try geospend(["receipts", "import", photo, "--user", "ann", "--db", db])
            #expect(again.status == 2 && again.err.contains("stored before"), "\(again.err)")

            // Another user neither sees nor deletes it.
            #expect(try geospend(["receipts", "show", id, "--user", "bob", "--db", db]).status == 2)
            #expect(try geospend(["receipts", "delete", id, "--user", "bob", "--db", db]).status == 2)
            let bobs = try geospend(["receipts", "list", "--user", "bob", "--format", "json", "--db", db])
            #expect(bobs.out.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(bobs.out) \(bobs.err)")

            // Deleting the receipt deletes its expense and price records, and leaves neither the
            // photo's bytes nor the OCR text in the file or its write-ahead log.
            let photoBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
            // 16 pieces of 32 bytes: a longer run may straddle two overflow pages.
            let pieces = (0..<16).map { n in Array(photoBytes[(1_000 + n * 4_000)..<(1_032 + n * 4_000)]) }
            func piecesIn(_ bytes: [UInt8]) -> Int { pieces.filter { Self.contains(bytes, $0) }.count }
            let text = Array(try #require(shown["text"] as? String).utf8)
            func fileBytes() -> [UInt8] { [db, db + "-wal"].flatMap { (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: $0)))) ?? [] } }
            let keptBefore = piecesIn(fileBytes()) >= 12 && Self.contains(fileBytes(), text)
            #expect(keptBefore, "kept in the file before")
            let deleted = try geospend(["receipts", "delete", id, "--user", "ann", "--db", db])
            #expect(deleted.status == 0, "\(deleted.err)")
            #expect(deleted.err.isEmpty, "nothing left to note: \(deleted.err)")
            let (photoLeft, textLeft) = (piecesIn(fileBytes()), Self.contains(fileBytes(), text))
            #expect(photoLeft == 0, "the deleted photo's bytes: \(photoLeft) of 16 pieces")
            #expect(!textLeft, "the deleted receipt's OCR text")
            #expect(!(try geospend(["expenses", "list", "--user", "ann", "--format", "json", "--db", db]).out.contains(id)))
            let history = try geospend(["prices", "history", "--product", "Butter 250g", "--user", "ann", "--db", db, "--format", "csv"])
            #expect(!history.out.contains("5.65"), "\(history.out)")
        }
    }

    /// A receipt printing a wrong total waits for review: no expense, no price record, until
    /// confirmed.
    @Test func aReceiptThatFailsItsChecksWaitsForReview() throws {
        try inFolder { dir in
            let db = try database(dir)
            let photo = Self.fixtures.appendingPathComponent("tampered-phone-903-de.jpg").path
            let r = try geospend(["receipts", "import", photo, "--user", "ann", "--store", "fh", "--format", "json", "--db", db])
            try #require(r.status == 0, "\(r.err)")
            let j = try json(r.out)
            #expect(j["status"] as? String == "needs_review")
            #expect(!((j["problems"] as? [String]) ?? []).isEmpty)
            #expect(j["expense_id"] is NSNull)
            let id = try #require(j["receipt_id"] as? String)
            let none = try geospend(["expenses", "list", "--user", "ann", "--format", "json", "--db", db])
            #expect(!none.out.contains(id), "\(none.out)")
            let confirmed = try json(try geospend(["receipts", "confirm", id, "--user", "ann", "--format", "json", "--db", db]).out)
            #expect(confirmed["status"] as? String == "ok")
            #expect(confirmed["expense_id"] as? String == id)
            #expect(try geospend(["expenses", "list", "--user", "ann", "--format", "json", "--db", db]).out.contains(id))
        }
    }

    /// A text with no store waits; `correct --store` makes it ok; `correct --line --price`
    /// moves its price record; `expenses delete` of its expense takes the receipt and records.
    @Test func correctingALineMovesItsPriceRecord() throws {
        try inFolder { dir in
            let db = try database(dir)
            let file = dir.appendingPathComponent("r.txt").path
            try "Kiosk Nowhere\n16.12.2024 15:53\nMilk 1,29\nBrot Vollkorn 2,49\nSUMME 3,78\n".write(toFile: file, atomically: true, encoding: .utf8)
            let first = try json(try geospend(["receipts", "import", file, "--user", "ann", "--format", "json", "--db", db]).out)
            #expect(first["status"] as? String == "needs_review")
            #expect((first["problems"] as? [String])?.contains { $0.hasPrefix("no store") } == true, "\(first)")
            #expect(first["date"] as? String == "2024-12-16", "the date comes from the text")
            let id = try #require(first["receipt_id"] as? String)
            let stored = try json(try geospend(["receipts", "correct", id, "--user", "ann", "--store", "a", "--format", "json", "--db", db]).out)
            #expect(stored["status"] as? String == "ok", "\(stored)")
            #expect(stored["price_records"] as? Int == 2)

            // Line 3 was misread: 1,29 is 1,39 (and the total with it).
            let fixed = try geospend(["receipts", "correct", id, "--user", "ann", "--line", "3", "--price", "1,39", "--total", "3,88", "--format", "json", "--db", db])
            #expect(fixed.status == 0, "\(fixed.err)")
            #expect(try json(fixed.out)["status"] as? String == "ok")
            let history = try geospend(["prices", "history", "--product", "Milk", "--user", "ann", "--db", db, "--format", "csv"])
            #expect(history.out.contains("1.39") && !history.out.contains("1.29"), "\(history.out)")
            #expect(try geospend(["expenses", "list", "--user", "ann", "--format", "json", "--db", db]).out.contains("3.88"))
            let wrongLine = try geospend(["receipts", "correct", id, "--user", "ann", "--line", "9", "--price", "1", "--db", db])
            #expect(wrongLine.status == 2 && wrongLine.err.contains("lines 3, 4"), "\(wrongLine.err)")

            let gone = try geospend(["expenses", "delete", id, "--user", "ann", "--db", db])
            #expect(gone.status == 0, "\(gone.err)")
            #expect(try geospend(["receipts", "show", id, "--user", "ann", "--db", db]).status == 2)
            let after = try geospend(["prices", "history", "--product", "Milk", "--user", "ann", "--db", db, "--format", "csv"])
            #expect(!after.out.contains("1.39"), "the price records went with the expense: \(after.out)")
        }
    }

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
