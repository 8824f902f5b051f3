import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendOCR

struct ReceiptsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts",
        abstract: "Read a receipt's photo or text; store it as an expense with prices.",
        subcommands: [ReceiptsScanCommand.self, ReceiptsParseCommand.self, ReceiptsImportCommand.self])

    /// The receipt's text; bad UTF-8 is refused with the file's name, never guessed at.
    static func readText(_ path: String) throws -> String {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch let error as CocoaError {
            if error.code == .fileReadNoSuchFile { throw ValidationError("\(path): no such file; check the path") }
            throw ValidationError(FileErrors.describe(error))
        }
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ValidationError("\(path) is not UTF-8 text; save the OCR output as UTF-8 (most phones do) and try again")
        }
        return text
    }

    /// The store a purchase was made at (`--store`), or a usage error saying how to find an id.
    static func store(_ id: String, in db: some ExpenseStore) async throws -> Store {
        guard let place = try await db.read({ reader in try reader.stores(withIDs: [id]) })[id] else {
            throw ValidationError("--store \(id): no such store; find its id with `geospend nearest-stores --lat … --lon …`")
        }
        return place
    }

    static func table(_ r: ParsedReceipt) -> String {
        var out = "store: \(r.store.map(OutputEscaping.visible) ?? "(none)")\n"
        out += TextTable(
            headers: ["line", "item", "quantity", "price"],
            rows: r.items.map { [String($0.line), OutputEscaping.visible($0.name), String($0.quantity), $0.price.decimalString] },
            rightAligned: [0, 2, 3]).rendered()
        out += "total: \(r.total.map { "\($0.decimalString) \(r.currency.code)" } ?? "(none)")\n"
        out += "check: \(r.sumCheck)\n"
        for u in r.unread { out += "not read, line \(u.line): \(OutputEscaping.visible(u.text)) (\(u.reason ?? ""))\n" }
        return out
    }
}

struct ReceiptsParseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Print the store, items and total a receipt's text holds, and check the sum.",
        usage: "geospend receipts parse <file> [--currency <code>] [--format table|json]",
        discussion: """
            Reads lines like `Milch 1,5% 1,29`, `2x Joghurt 1,98`, `Product Name 2.99`
            (decimal comma or point; the price is the line's amount), a total line
            starting with SUMME, TOTAL or GESAMT, and the store name on the first
            line. Lines after the total (payment, change) are not items; any other
            line that is not read is listed with its number. Says whether the items
            add up to the total. Nothing is stored: see `receipts import`.

            Example:
              printf '%s\\n' 'REWE Markt' 'Milch 1,5% 1,29' 'Brot Vollkorn 2,49' \\
                  'Äpfel 1kg 3,99' 'SUMME 7,77' > r.txt
              geospend receipts parse r.txt --format json
            """)

    @Argument(help: "The receipt's text, UTF-8.") var file: String
    @Option(help: "The receipt's currency (ISO 4217).") var currency: String = "EUR"
    @Option(help: "table or json.") var format: ReceiptFormat = .table

    enum ReceiptFormat: String, ExpressibleByArgument, CaseIterable { case table, json }

    func run() async throws {
        let code = try Currency(code: currency)
        let receipt = ReceiptText.parse(try ReceiptsCommand.readText(file), currency: code)
        switch format {
        case .json: printOut(ReceiptImport.json(receipt).serialized() + "\n")
        case .table: printOut(ReceiptsCommand.table(receipt))
        }
        if !receipt.sumMatches { printErr("geospend: \(file): \(receipt.sumCheck)") }
    }
}

struct ReceiptsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store a receipt: one expense (its total, at its store) and a price record per line.",
        usage: """
            geospend receipts import <file> --user <user> --store <id> --at <instant>
              [--currency <code>] [--category <name>] [--allow-mismatch]
              [--format table|json] [--db <db>]
            """,
        discussion: """
            Reads the receipt as `receipts parse` does, then in one transaction
            stores one expense of the total (linked to the store and placed at it,
            so it shows in insights and maps) and one price record per item line,
            each matched to a known product by name (similarity above 0.85) or
            added as a new product. All or nothing. Refused (exit 2, nothing
            stored): no item lines, no total line, items not adding up to the total
            (unless --allow-mismatch: the printed total is stored), an unknown
            store, the same receipt again. Lines not read are listed.

            Example:
              geospend receipts import r.txt --user user1 --store 4749101654 \\
                  --at 2025-06-01T10:15:00+03:00
            """)

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The receipt's text, UTF-8.") var file: String
    @Option(help: "Whose receipt.") var user: String
    @Option(help: "The store's id (see `geospend nearest-stores`).") var store: String
    @Option(help: "When it was paid, RFC 3339 with its offset, or a bare date.") var at: String
    @Option(help: "The receipt's currency (ISO 4217).") var currency: String = "EUR"
    @Option(help: "The expense's category (one of the user's expense categories).") var category: String?
    @Flag(help: "Store the printed total even when the items do not add up to it.") var allowMismatch = false
    @Option(help: "table or json.") var format: ReceiptsParseCommand.ReceiptFormat = .table

    func run() async throws {
        let checked = try ReceiptImport.check(
            text: try ReceiptsCommand.readText(file), name: file, at: at, currency: currency, allowMismatch: allowMismatch)
        let db = try await database.openPrices(writable: true)
        let stored = try await ReceiptImport.store(checked, name: file, user: user, storeID: store, category: category, db: db)
        let receipt = stored.receipt
        switch format {
        case .json: printOut(ReceiptImport.json(stored).serialized() + "\n")
        case .table:
            let (total, code) = (stored.total, stored.total.currency)
            var out = "Stored expense \(stored.expenseID): \(total.decimalString) \(code.code) at \(OutputEscaping.visible(stored.store.name ?? store)), \(stored.outcomes.count) price records.\n"
            for m in stored.matched { out += "  \(OutputEscaping.visible(m.line)) → \(OutputEscaping.visible(m.product))\n" }
            for n in stored.newProducts { out += "  \(OutputEscaping.visible(n)): no known product matched; added as a new product (category Other)\n" }
            printOut(out)
        }
        for u in receipt.unread { printErr("geospend: \(file), line \(u.line): not read: \(u.text)") }
        if !receipt.sumMatches { printErr("geospend: \(file): \(receipt.sumCheck)") }
    }
}

struct ReceiptsScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Read a photo of a receipt (OCR) and check it; nothing is stored.",
        usage: """
            geospend receipts scan <image> [--lang deu+eng+fin] [--currency <code>]
              [--stores <file>] [--format table|json]
            """,
        discussion: """
            Turns a JPEG or PNG photo upright as its Exif orientation says, finds
            the paper in it, corrects its perspective and rotation, evens out the
            light, scales the text to the size Tesseract reads best, sharpens and
            binarises it, and reads it (Tesseract OCR, the languages of --lang). Then
            reads the store (name, street, postcode, phone), the date and time,
            the items (with `2 x 0,99` and `0,512 kg x 2,99 EUR/kg` lines, deposits,
            discounts), the total, the payment and the VAT table.

            The status is ok only when the self-checks hold: the items add up to
            the total, the card payment (or cash less change) equals it, and the
            VAT table agrees with both. Otherwise it is needs_review and the
            problems are listed: check those receipts by hand. The currency is
            the one the receipt prints (€, EUR, £, GBP), else --currency. With
            --stores, the header (name, street, postcode) is matched into that
            registry of stores and the match's name and id are given.

            Examples:
              geospend receipts scan IMG_2041.jpg
              geospend receipts scan kuitti.png --lang fin+eng --format json
              geospend receipts scan IMG_2041.jpg --stores my-stores.csv
            """)

    @Argument(help: "The photo, JPEG or PNG (at most 50 megapixels).") var image: String
    @Option(help: "Tesseract's languages, joined by +.") var lang: String = "deu+eng+fin"
    @Option(help: "The currency when the receipt names none (ISO 4217).") var currency: String = "EUR"
    @Option(help: "table or json.") var format: ReceiptsParseCommand.ReceiptFormat = .table
    @Option(help: "The store registry: a stores file as `import stores` reads.") var stores: String?
    @Option(help: .hidden) var steps: String = "all"

    func validate() throws {
        guard PreparationSteps(names: steps) != nil else { throw ValidationError("--steps \(steps): unknown step") }
        guard lang.range(of: "^[a-z_]+(\\+[a-z_]+)*$", options: .regularExpression) != nil else {
            throw ValidationError("--lang \(lang): language codes like deu+eng+fin")
        }
    }

    func run() async throws {
        ReceiptScanner.restartSingleThreaded()
        let code = try Currency(code: currency)
        // The registry first: a bad stores file is said before the OCR's second of work.
        let registry = try stores.map { try Importer.readStores(from: $0) }
        let text: String
        do {
            text = try ReceiptScanner.text(ofPhoto: image, languages: lang, steps: PreparationSteps(names: steps) ?? .all)
        } catch let error as ScanError {
            throw ValidationError(error.description)
        }
        var scan = ReceiptScan.read(text, currency: code)
        if let registry { scan.store = StoreMatch.best(for: scan.header, among: registry)?.store }
        switch format {
        case .json: printOut(scan.json.serialized() + "\n")
        case .table: printOut(Self.table(scan))
        }
    }

    static func table(_ s: ReceiptScan) -> String {
        let digits = s.currency.minorDigits
        func show(_ m: Int64) -> String { Money.decimalString(m, digits: digits) }
        var out = "store: \((s.store?.name ?? s.header.name).map(OutputEscaping.visible) ?? "(none)")"
        if let id = s.store?.id { out += " (id \(OutputEscaping.visible(id)))" }
        let place = [s.header.street, [s.header.postcode, s.header.city].compactMap { $0 }.joined(separator: " ")]
            .compactMap { $0 }.filter { !$0.isEmpty }
        if !place.isEmpty { out += ", " + OutputEscaping.visible(place.joined(separator: ", ")) }
        out += "\ndate: \(s.date ?? "(none)")\(s.time.map { " " + $0 } ?? "")\n"
        out += TextTable(
            headers: ["line", "item", "quantity", "price"],
            rows: s.items.map {
                [String($0.line), OutputEscaping.visible($0.name),
                 $0.unit == "kg" ? Money.decimalString($0.quantity, digits: 3) + " kg" : String($0.quantity), show($0.priceMinor)]
            },
            rightAligned: [0, 2, 3]).rendered()
        out += "total: \(s.totalMinor.map { "\(show($0)) \(s.currency.code)" } ?? "(none)")\n"
        out += "status: \(s.status.rawValue)\n"
        for p in s.problems { out += "  problem: \(p)\n" }
        return out
    }
}
