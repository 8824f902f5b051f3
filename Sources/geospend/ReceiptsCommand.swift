import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendOCR
import GeoSpendService

struct ReceiptsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts",
        abstract: "Read a receipt's photo or text; keep it, with its expense and prices.",
        subcommands: [
            ReceiptsScanCommand.self, ReceiptsParseCommand.self, ReceiptsImportCommand.self, ReceiptsListCommand.self,
            ReceiptsShowCommand.self, ReceiptsCorrectCommand.self, ReceiptsConfirmCommand.self, ReceiptsDeleteCommand.self,
        ])

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

    /// `import|correct|confirm`'s answer.
    static func printSaved(_ saved: ReceiptRecording.Saved, format: ReceiptsParseCommand.ReceiptFormat, verb: String) {
        let r = saved.receipt
        switch format {
        case .json: printOut(ReceiptRecording.json(saved).serialized() + "\n")
        case .table:
            var out = "\(verb) receipt \(r.id): \(r.status.rawValue)"
            if let total = r.total { out += ", \(total.decimalString) \(r.currency.code)" }
            if let s = r.storeID { out += " at \(OutputEscaping.visible(s))" }
            if let d = r.date { out += " on \(d)" }
            out += r.status == .ok ? ", expense \(r.expenseID ?? r.id), \(saved.outcomes.count) price records.\n" : "; nothing else stored.\n"
            for m in saved.matched { out += "  \(OutputEscaping.visible(m.line)) → \(OutputEscaping.visible(m.product))\n" }
            for n in saved.newProducts { out += "  \(OutputEscaping.visible(n)): no known product matched; added as a new product (category Other)\n" }
            for p in r.problems { out += "  problem: \(OutputEscaping.visible(p))\n" }
            if r.status == .needsReview { out += "Fix it with `geospend receipts correct \(r.id) …` or accept it with `geospend receipts confirm \(r.id)`.\n" }
            printOut(out)
        }
    }

    /// A receipt in `receipts list --format json`: no text, items or photo.
    static func summary(_ r: Receipt) -> JSONOutput {
        .object([
            ("sequence", .integer(r.sequence)), ("id", .string(r.id)), ("status", .string(r.status.rawValue)),
            ("store", r.storeID.map { .string($0) } ?? .null), ("date", r.date.map { .string($0) } ?? .null),
            ("total", r.total.map { .string($0.decimalString) } ?? .null), ("currency", .string(r.currency.code)),
            ("items", .integer(Int64(r.items.count))), ("problems", .array(r.problems.map { .string($0) })),
            ("expense_id", r.expenseID.map { .string($0) } ?? .null),
        ])
    }

    /// `receipts show`.
    static func table(_ r: Receipt) -> String {
        let digits = r.currency.minorDigits
        func show(_ m: Int64) -> String { Money.decimalString(m, digits: digits) }
        var out = "receipt: \(r.id) (\(r.status.rawValue))\n"
        out += "store: \(r.storeID.map(OutputEscaping.visible) ?? "(none)")\n"
        out += "date: \(r.date ?? "(none)")\(r.time.map { " " + $0 } ?? "")\n"
        out += TextTable(
            headers: ["line", "item", "quantity", "price"],
            rows: r.items.map {
                [String($0.line), OutputEscaping.visible($0.name),
                 $0.unit == "kg" ? Money.decimalString($0.quantity, digits: 3) + " kg" : String($0.quantity), show($0.priceMinor)]
            },
            rightAligned: [0, 2, 3]).rendered()
        out += "total: \(r.totalMinor.map { "\(show($0)) \(r.currency.code)" } ?? "(none)")\n"
        out += "expense: \(r.expenseID ?? "(none until ok)")\n"
        if let hash = r.imageHash { out += "photo: \(r.imageName.map(OutputEscaping.visible) ?? "") sha256 \(hash)\(r.image == nil ? "" : ", kept")\n" }
        for p in r.problems { out += "  problem: \(OutputEscaping.visible(p))\n" }
        return out
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
        abstract: "Keep a receipt (photo or text); when it checks out, its expense and prices.",
        usage: """
            geospend receipts import <file> --user <user> [--store <id>]
              [--at <instant>] [--keep-image] [--lang deu+eng+fin]
              [--currency <code>] [--category <name>] [--allow-mismatch]
              [--expires <line>=<day> …] [--format table|json] [--db <db>]
            """,
        discussion: """
            A JPEG or PNG photo is read as `receipts scan` reads it (Tesseract);
            anything else must be the receipt's UTF-8 text. The receipt is kept
            (list, show, correct, confirm, delete it): store, date and time,
            total, items, the text, the photo's SHA-256 (its bytes too with
            --keep-image).

            The store is --store, else the store whose name, street or postcode
            the header prints; the date is --at, else the receipt's own. When the
            checks hold (items add up to the total; for a photo also the payment
            and VAT lines) and store and date are known, the status is ok and
            one transaction stores the receipt, one expense of its total at the
            store and one price record per line. Otherwise it is needs_review
            with its problems, and nothing else is stored until `receipts
            correct` fixes them or `receipts confirm` accepts it; --allow-mismatch
            confirms at once. --expires LINE=DAY (repeatable) keeps that line's
            item in the pantry, in the same transaction, when the receipt is ok.
            Refused (exit 2, nothing stored): no item line, an unknown store,
            the same receipt again, --expires on a receipt that waits for review.

            Examples:
              geospend receipts import IMG_2041.jpg --user user1 --keep-image
              geospend receipts import r.txt --user user1 --store 4749101654 \\
                  --at 2025-06-01T10:15:00+03:00
            """)

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The receipt: a JPEG or PNG photo, or its UTF-8 text.") var file: String
    @Option(help: "Whose receipt.") var user: String
    @Option(help: "The store's id; else the one the header names.") var store: String?
    @Option(help: "When it was paid (RFC 3339 or a day); else the receipt's date.") var at: String?
    @Flag(help: "Keep the photo's bytes with the receipt (users export has them).") var keepImage = false
    @Option(help: "Tesseract's languages for a photo, joined by +.") var lang: String = "deu+eng+fin"
    @Option(help: "The currency when the receipt names none (ISO 4217).") var currency: String = "EUR"
    @Option(help: "The expense's category (one of the user's expense categories).") var category: String?
    @Flag(help: "Confirm at once even when the checks fail (store and date needed).") var allowMismatch = false
    @Option(help: "A line's item to keep in the pantry: LINE=YYYY-MM-DD.") var expires: [String] = []
    @Option(help: "table or json.") var format: ReceiptsParseCommand.ReceiptFormat = .table

    func run() async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch let error as CocoaError {
            if error.code == .fileReadNoSuchFile { throw ValidationError("\(file): no such file; check the path") }
            throw ValidationError(FileErrors.describe(error))
        }
        let bytes = [UInt8](data)
        if ReceiptInput.isImage(bytes) { ReceiptScanner.restartSingleThreaded() }
        var input: ReceiptRecording.Input
        do {
            input = try ReceiptInput.input(
                bytes: bytes, path: file, name: file, keepImage: keepImage, user: user, storeID: store, at: at, currency: currency,
                category: category, allowMismatch: allowMismatch, languages: lang)
        } catch let error as UsageError { throw ValidationError(error.message) }
        input.expires = expires
        let db = try await database.openBackend(writable: true)
        let saved = try await ReceiptRecording.importReceipt(input, db: db)
        ReceiptsCommand.printSaved(saved, format: format, verb: "Stored")
        for u in saved.unread { printErr("geospend: \(file), line \(u.line): not read: \(OutputEscaping.visible(u.text))") }
    }
}

struct ReceiptsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List a user's receipts, oldest first.",
        usage: """
            geospend receipts list --user <user> [--after <n>] [--limit <n>]
              [--format table|json]
            """,
        discussion: """
            One line a receipt: its id, status, date, store, total and number of
            items. --after takes the last `sequence` of a page (json) for the next.

            Example:
              geospend receipts list --user user1
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Whose receipts.") var user: String
    @Option(help: "Only receipts after this sequence number.") var after: Int64?
    @Option(help: "At most this many (1-1000).") var limit: Int = 100
    @Option(help: "table or json.") var format: ReceiptsParseCommand.ReceiptFormat = .table

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit \(limit): give 1 to 1000") }
    }

    func run() async throws {
        let db = try await database.openBackend()
        let receipts = try await db.receipts(userID: Identity.normalized(user), after: after, limit: limit)
        switch format {
        case .json: printOut(JSONOutput.array(receipts.map(ReceiptsCommand.summary)).serialized() + "\n")
        case .table:
            printOut(TextTable(
                headers: ["sequence", "id", "status", "date", "store", "total", "items"],
                rows: receipts.map { r in
                    [String(r.sequence), r.id, r.status.rawValue, r.date ?? "-", r.storeID.map(OutputEscaping.visible) ?? "-",
                     r.total.map { "\($0.decimalString) \(r.currency.code)" } ?? "-", String(r.items.count)]
                },
                rightAligned: [0, 5, 6]).rendered())
        }
    }
}

struct ReceiptsShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one receipt: what was read, its status and problems.",
        usage: "geospend receipts show <id> --user <user> [--format table|json]",
        discussion: """
            The items with their line numbers (what `receipts correct --line`
            takes), the total, the status and its problems, and the expense the
            receipt made.

            Example:
              geospend receipts show receipt-1f2e3d --user user1 --format json
            """)

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The receipt's id (see `receipts list`).") var id: String
    @Option(help: "Whose receipt.") var user: String
    @Option(help: "table or json.") var format: ReceiptsParseCommand.ReceiptFormat = .table

    func run() async throws {
        let db = try await database.openBackend()
        guard let r = try await db.receipt(id: id, userID: Identity.normalized(user)) else {
            throw ValidationError(ReceiptRecording.notFound(id).message)
        }
        switch format {
        case .json: printOut(r.json().serialized() + "\n")
        case .table: printOut(ReceiptsCommand.table(r))
        }
    }
}

struct ReceiptsCorrectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "correct",
        abstract: "Put right what was misread: a line's price, the store, date or total.",
        usage: """
            geospend receipts correct <id> --user <user>
              [--line <n> --price <amount>] [--store <id>] [--date <day>]
              [--total <amount>] [--format table|json]
            """,
        discussion: """
            Changes the receipt and checks it again: the items must add up to
            the total, and store and date be known. A receipt already ok stays
            ok and its expense and price records follow the correction; one
            waiting for review becomes ok (and makes them) when no problem is
            left. All in one transaction.

            Example:
              geospend receipts correct receipt-1f2e3d --user user1 \\
                  --line 6 --price 2,00
            """)

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The receipt's id (see `receipts list`).") var id: String
    @Option(help: "Whose receipt.") var user: String
    @Option(help: "The item's line number (see `receipts show`).") var line: Int?
    @Option(help: "The line's right amount, e.g. 1,29.") var price: String?
    @Option(help: "The store's id.") var store: String?
    @Option(help: "The receipt's day, YYYY-MM-DD (or RFC 3339).") var date: String?
    @Option(help: "The receipt's right total.") var total: String?
    @Option(help: "table or json.") var format: ReceiptsParseCommand.ReceiptFormat = .table

    func run() async throws {
        guard line != nil || price != nil || store != nil || date != nil || total != nil else {
            throw ValidationError("say what to correct: --line N --price P, --store, --date or --total")
        }
        let db = try await database.openBackend(writable: true)
        let saved = try await ReceiptRecording.correct(
            id: id, user: user, .init(line: line, price: price, storeID: store, date: date, total: total), db: db)
        ReceiptsCommand.printSaved(saved, format: format, verb: "Corrected")
    }
}

struct ReceiptsConfirmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Accept a receipt waiting for review; store its expense and prices.",
        usage: """
            geospend receipts confirm <id> --user <user> [--expires <line>=<day> …]
              [--format table|json]
            """,
        discussion: """
            The receipt's problems are kept on record; it becomes ok and, in one
            transaction, makes its expense and price records. It needs a store, a
            date and a total (give them with `receipts correct`). --expires
            LINE=DAY (repeatable; lines as `receipts show` numbers them) keeps
            that line's item in the pantry until DAY, in the same transaction.

            Example:
              geospend receipts confirm receipt-1f2e3d --user user1 \\
                  --expires 3=2025-06-10 --expires 5=2025-06-14
            """)

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The receipt's id (see `receipts list`).") var id: String
    @Option(help: "Whose receipt.") var user: String
    @Option(help: "A line's item to keep in the pantry: LINE=YYYY-MM-DD.") var expires: [String] = []
    @Option(help: "table or json.") var format: ReceiptsParseCommand.ReceiptFormat = .table

    func run() async throws {
        let db = try await database.openBackend(writable: true)
        let saved = try await ReceiptRecording.confirm(id: id, user: user, expires: expires, db: db)
        ReceiptsCommand.printSaved(saved, format: format, verb: "Confirmed")
    }
}

struct ReceiptsDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a receipt with its expense and price records.",
        usage: "geospend receipts delete <id> --user <user> [--no-vacuum]",
        discussion: """
            One transaction deletes the receipt, its photo, the expense it made
            and its price records. (`expenses delete` of a receipt's expense
            deletes the receipt and its price records the same way.) Then, as
            `expenses delete`, the file is rewritten (VACUUM) so no copy of the
            photo or its text stays in unused space.

            Example:
              geospend receipts delete receipt-1f2e3d --user user1
            """)

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "The receipt's id (see `receipts list`).") var id: String
    @Option(help: "Whose receipt.") var user: String
    @Flag(help: "Skip rewriting the file (VACUUM) afterwards.") var noVacuum = false

    func run() async throws {
        let db = try await database.openBackend(writable: true)
        guard let notes = try await db.deleteReceipt(id: id, userID: Identity.normalized(user), rewrite: noVacuum ? .skipped : .now) else {
            throw ValidationError(ReceiptRecording.notFound(id).message)
        }
        printOut("Deleted receipt \(id), its expense and its price records.\n")
        for note in notes { printErr("note: \(note)") }
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
            if case .library = error { throw error }  // not the photo's fault: a runtime failure (exit 1)
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
