import Foundation

/// A receipt's photo or text made a receipt record (`geospend receipts import|correct|confirm`,
/// the service's `/api/v1/receipts`), shared by the CLI and the service so both answer alike.
///
/// - Read with `ReceiptScan` (a photo's OCR text or the text as given): items, total, the date
///   and time the receipt prints, the store's header.
/// - The store: `--store`, else the store the header names (`StoreMatch` over the user's own
///   added stores first, then every store of the registry). None: `needs_review`, "no store".
/// - The date: `--at`, else the receipt's (a bare day: a till prints local time without an
///   offset, and guessing one would move purchases across days). None: `needs_review`.
/// - Problems: the scan's self-checks, except that a *text* needs no payment line (the
///   payment is a photo's second witness against OCR misreads; a text is what the user says).
/// - `ok`: the receipt, its expense (the receipt's id) and its price records in one
///   transaction. `needs_review`: the receipt alone, until corrected or confirmed.
///   `--allow-mismatch` confirms at once (what it did before receipts were kept: the printed total is stored).
/// - Refused, nothing stored (exit 2 / 400): no item line at all, an item name over 4,096
///   characters, an unknown `--store`, the same receipt again.
public enum ReceiptRecording {
    /// What `receipts import` was given.
    public struct Input: Sendable {
        public var text: String
        /// The file as given (or the upload's name): messages and the expense's notes.
        public var name: String
        public var isPhoto: Bool
        public var imageHash: String?
        /// The photo's bytes, when `--keep-image`.
        public var keptImage: [UInt8]?
        public var user: String
        public var storeID: String?
        public var at: String?
        public var currency: String
        public var category: String?
        public var allowMismatch: Bool
        /// `LINE=YYYY-MM-DD` (`--expires`): lines that become pantry items when the receipt is
        /// stored ok; refused for one that waits for review (give them to `confirm`).
        public var expires: [String] = []

        public init(
            text: String, name: String, isPhoto: Bool = false, imageHash: String? = nil, keptImage: [UInt8]? = nil, user: String,
            storeID: String?, at: String?, currency: String = "EUR", category: String? = nil, allowMismatch: Bool = false
        ) {
            (self.text, self.name, self.isPhoto, self.imageHash, self.keptImage) = (text, name, isPhoto, imageHash, keptImage)
            (self.user, self.storeID, self.at, self.currency, self.category, self.allowMismatch) = (user, storeID, at, currency, category, allowMismatch)
        }
    }

    /// The receipt as stored, and (when it made them) its price records' outcomes.
    public struct Saved: Sendable {
        public let receipt: Receipt
        public let outcomes: [PriceSaveOutcome]
        public let newProducts: [String]
        public let matched: [(line: String, product: String)]
        public let unread: [ReceiptLine]
    }

    public static let noStore = "no store: the header matched no store of the registry or of the user's own; give it with `receipts correct ID --store S`"
    public static let noDate = "no date was read; give it with `receipts correct ID --date YYYY-MM-DD`"

    /// Reads, checks and stores `input` (see the type's rules).
    public static func importReceipt(_ given: Input, db: some ExpenseStore & ReceiptStore & PriceStore & StoreChoiceStore) async throws -> Saved {
        var input = given
        input.user = Identity.normalized(given.user)
        let code = try Currency(code: input.currency)
        var when: Timestamp?
        if let at = input.at {
            do { when = try Timestamp(parsing: at) } catch { throw UsageError("--at: \(error)") }
        }
        let scan = ReceiptScan.read(input.text, currency: code)
        guard !scan.items.isEmpty else {
            throw UsageError("\(input.name): no item lines like `Milch 1,29`; nothing stored (check it with `geospend receipts \(input.isPhoto ? "scan" : "parse")`)")
        }
        if let long = scan.items.first(where: { $0.name.count > 4096 }) {
            throw UsageError("\(input.name), line \(long.line): the name is \(long.name.count) characters long; a product name has at most 4,096 (is the file a receipt?)")
        }
        var place: StoreEntry?
        if let id = input.storeID {
            place = try await Self.store(id, user: input.user, db: db)
        } else {
            // The user's own added stores first: one they added is the one they shop at, and a
            // chain's name there would often tie with the registry's branches (a tie is no match).
            let own = try await db.storeChoices(userID: input.user).added
            if let hit = StoreMatch.best(for: scan.header, among: own.map(\.store)) {
                place = own.first { $0.id == hit.store.id }
            } else {
                let registry = try await db.read { reader in try reader.allStores(kind: nil) }
                place = StoreMatch.best(for: scan.header, among: registry).map { StoreEntry(store: $0.store) }
            }
        }
        let lines = input.text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        let items = scan.items.map { i in
            Receipt.Item(
                line: i.line, text: i.line <= lines.count ? String(lines[i.line - 1]).trimmingCharacters(in: .whitespaces) : i.name, name: i.name,
                quantity: i.quantity, unit: i.unit, unitPriceMinor: i.quantityLine?.unitMinor, priceMinor: i.priceMinor)
        }
        var problems = scan.problems.filter { input.isPhoto || $0 != ReceiptScan.noPayment }
        if place == nil { problems.append(noStore) }
        if when == nil && scan.date == nil { problems.append(noDate) }
        // The same receipt of the same user (the same photo, or text, store and time given) has
        // the same id: a second import is refused, not doubled.
        let key = [input.user, input.imageHash ?? input.text, input.storeID ?? "", when?.text ?? ""].joined(separator: "\u{0}")
        var receipt = Receipt(
            id: "receipt-" + String(FNV1a.hash(Array(key.utf8)), radix: 16), userID: input.user, storeID: place?.id,
            date: when?.localDate ?? scan.date, time: when.map(Self.clock) ?? scan.time, totalMinor: scan.totalMinor, currency: scan.currency,
            imageHash: input.imageHash, imageName: input.isPhoto ? URL(fileURLWithPath: input.name).lastPathComponent : nil,
            image: input.keptImage, text: input.text, status: .needsReview, problems: problems, items: items, expenseID: nil,
            createdAt: MapExportRequest.now())  // $SOURCE_DATE_EPOCH when set: reproducible exports
        var records: ReceiptRecords?
        if let place, problems.isEmpty || (input.allowMismatch && confirmable(receipt) == nil) {
            receipt.status = .ok
            receipt.expenseID = receipt.id
            records = try Self.records(receipt, place: place, at: when, category: input.category, name: input.name)
        }
        if !input.expires.isEmpty {
            guard records != nil else {
                throw UsageError(
                    "--expires: \(input.name) would wait for review (\(problems.joined(separator: "; "))), so nothing is bought yet; "
                        + "nothing stored. Import it without --expires and give them to `receipts confirm`")
            }
            records?.pantry = try pantryItems(receipt, expires: input.expires)
        }
        let known = try await ProductLookup.productIDs(userID: input.user, in: db)
        let (stored, outcomes) = try await db.addReceipt(receipt, records: records)
        return saved(stored, outcomes: outcomes, records: records, known: known, unread: scan.unread)
    }

    /// What a `correct` changes; nil fields stay.
    public struct Correction: Sendable {
        public var line: Int?
        public var price: String?
        public var storeID: String?
        public var date: String?
        public var total: String?
        public init(line: Int? = nil, price: String? = nil, storeID: String? = nil, date: String? = nil, total: String? = nil) {
            (self.line, self.price, self.storeID, self.date, self.total) = (line, price, storeID, date, total)
        }
    }

    /// `receipts correct`: the receipt's fields changed, its problems re-checked from its own
    /// items, total, store and date (the scan's payment and VAT checks were about what was
    /// read; the correction is the review of them). A receipt already `ok` stays `ok` and its
    /// expense and price records follow; one waiting for review becomes `ok` (and makes them)
    /// when no problem is left.
    public static func correct(id: String, user given: String, _ c: Correction, db: some ExpenseStore & ReceiptStore & PriceStore & StoreChoiceStore) async throws -> Saved {
        let user = Identity.normalized(given)
        guard var receipt = try await db.receipt(id: id, userID: user) else { throw notFound(id) }
        if let line = c.line {
            guard let price = c.price else { throw UsageError("--line \(line): give the line's right amount with --price, e.g. --price 1,29") }
            guard let index = receipt.items.firstIndex(where: { $0.line == line }) else {
                let lines = receipt.items.map { String($0.line) }.joined(separator: ", ")
                throw UsageError("--line \(line): no item on that line of \(id); its items are on lines \(lines) (see `receipts show \(id)`)")
            }
            receipt.items[index].priceMinor = try minor(price, receipt.currency, option: "--price")
            receipt.items[index].productID = nil
        } else if c.price != nil {
            throw UsageError("--price: say which item with --line N (the line number `receipts show` gives)")
        }
        if let total = c.total { receipt.totalMinor = try minor(total, receipt.currency, option: "--total") }
        if let date = c.date {
            guard let t = try? Timestamp(parsing: date) else { throw UsageError("--date \(date): a day YYYY-MM-DD, or RFC 3339 with its offset") }
            receipt.date = t.localDate
            receipt.time = t.isDateOnly ? receipt.time : Self.clock(t)
        }
        var place: StoreEntry?
        if let storeID = c.storeID ?? receipt.storeID {
            place = try await Self.store(storeID, user: user, db: db)
            receipt.storeID = storeID
        }
        receipt.problems = recheck(receipt)
        var records: ReceiptRecords?
        if let place, receipt.status == .ok || receipt.problems.isEmpty {
            receipt.status = .ok
            receipt.expenseID = receipt.id
            records = try Self.records(receipt, place: place, at: nil, category: nil, name: receipt.imageName ?? "text")
        }
        let known = try await ProductLookup.productIDs(userID: user, in: db)
        let (stored, outcomes) = try await db.replaceReceipt(receipt, records: records)
        return saved(stored, outcomes: outcomes, records: records, known: known, unread: [])
    }

    /// `receipts confirm`: a receipt waiting for review accepted as it is (its problems kept on
    /// record); it makes its expense and price records. It needs a store, a date and a total.
    /// With `expires` (`LINE=YYYY-MM-DD`, `--expires`), the lines named become pantry items
    /// expiring that day, in the same transaction (source `receipt`, the receipt's expense their
    /// purchase).
    public static func confirm(
        id: String, user given: String, expires: [String] = [], db: some ExpenseStore & ReceiptStore & PriceStore & StoreChoiceStore
    ) async throws -> Saved {
        let user = Identity.normalized(given)
        guard var receipt = try await db.receipt(id: id, userID: user) else { throw notFound(id) }
        guard receipt.status == .needsReview else { throw UsageError("\(id) is ok already: its expense and price records are stored") }
        if let missing = confirmable(receipt) { throw UsageError("\(id): \(missing); nothing stored") }
        let pantry = try pantryItems(receipt, expires: expires)
        guard let storeID = receipt.storeID, let place = try await db.store(userID: user, id: storeID) else {
            throw UsageError("\(id): its store \(receipt.storeID ?? "") is gone; give another with `receipts correct \(id) --store S`")
        }
        receipt.status = .ok
        receipt.expenseID = receipt.id
        var records = try Self.records(receipt, place: place, at: nil, category: nil, name: receipt.imageName ?? "text")
        records.pantry = pantry
        let known = try await ProductLookup.productIDs(userID: user, in: db)
        let (stored, outcomes) = try await db.replaceReceipt(receipt, records: records)
        return saved(stored, outcomes: outcomes, records: records, known: known, unread: [])
    }

    /// The pantry items `--expires LINE=YYYY-MM-DD` (repeatable) names: each line's item, its
    /// quantity (pieces, or the kilograms weighed), expiring that day.
    /// - Throws: `UsageError` naming the value: not `LINE=DAY`, no item on that line, a line given
    ///   twice, a day that is not one.
    public static func pantryItems(_ r: Receipt, expires: [String]) throws -> [PantryFields] {
        var seen: Set<Int> = []
        return try expires.map { spec in
            let parts = spec.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let line = Int(parts[0].trimmingCharacters(in: .whitespaces)) else {
                throw UsageError("--expires \(spec): give the item's line and the day it expires, e.g. --expires 3=2025-06-30 (lines: `receipts show \(r.id)`)")
            }
            guard let item = r.items.first(where: { $0.line == line }) else {
                let lines = r.items.map { String($0.line) }.joined(separator: ", ")
                throw UsageError("--expires \(spec): no item on line \(line) of \(r.id); its items are on lines \(lines) (see `receipts show \(r.id)`)")
            }
            guard seen.insert(line).inserted else { throw UsageError("--expires \(spec): line \(line) is given twice; give each line once") }
            // Receipts weigh in grams (`unit` kg); PackSize counts thousandths of a gram.
            var want: BasketItem.Want?
            if item.unit == "kg" {
                let (grams, overflow) = item.quantity.multipliedReportingOverflow(by: 1000)
                if !overflow && item.quantity > 0 { want = .amount(PackSize(dimension: .mass, thousandths: grams)) }
            } else if item.quantity > 0 {
                want = .packs(item.quantity)
            }
            return try PantryFields.purchase(name: item.name, want: want, expires: String(parts[1]), option: "--expires \(line)=…")
        }
    }

    /// Why the receipt cannot make an expense yet, or nil.
    static func confirmable(_ r: Receipt) -> String? {
        if r.storeID == nil { return "no store; give it with `receipts correct \(r.id) --store S`" }
        if r.date == nil { return "no date; give it with `receipts correct \(r.id) --date YYYY-MM-DD`" }
        guard let total = r.totalMinor, total > 0 else { return "no positive total; give it with `receipts correct \(r.id) --total 7,77`" }
        return nil
    }

    /// A stored receipt's own checks: items add up to a positive total, a store and a date.
    static func recheck(_ r: Receipt) -> [String] {
        let digits = r.currency.minorDigits
        func show(_ m: Int64) -> String { Money.decimalString(m, digits: digits) }
        var problems: [String] = []
        let (sum, overflow) = r.items.reduce((Int64(0), false)) { acc, i in
            let (s, o) = acc.0.addingReportingOverflow(i.priceMinor)
            return (s, acc.1 || o)
        }
        if overflow { problems.append("the items' sum is out of range") }
        if let total = r.totalMinor {
            if total <= 0 { problems.append("the total \(show(total)) is not positive") }
            if !overflow && sum != total { problems.append("the items add up to \(show(sum)), not the total \(show(total))") }
        } else {
            problems.append("no total; give it with `receipts correct \(r.id) --total 7,77`")
        }
        if r.storeID == nil { problems.append(noStore) }
        if r.date == nil { problems.append(noDate) }
        return problems
    }

    /// The expense (the total at the store, on the receipt's day or `at`) and one price record
    /// per item with a positive amount (a deposit's refund or a discount is no price).
    /// The store `id` as `user` sees it: their own `mine-N`, else the registry's (another user's
    /// `mine-N` is none). - Throws: `UsageError` for none.
    static func store(_ id: String, user: String, db: some StoreChoiceStore) async throws -> StoreEntry {
        guard let found = try await db.store(userID: user, id: id) else {
            throw UsageError("--store \(id): no such store; find its id with `geospend nearest-stores --lat … --lon …` or `geospend stores list`")
        }
        return found
    }

    /// The expense and price records of a receipt at `place`. An expense names the registry's
    /// stores only: at the user's own added store it keeps the store's position, not its id.
    static func records(_ r: Receipt, place entry: StoreEntry, at: Timestamp?, category: String?, name: String) throws -> ReceiptRecords {
        let place = entry.store
        guard let total = r.total, let day = r.date else { throw UsageError("\(r.id): \(confirmable(r) ?? "no total or date")") }
        let when: Timestamp
        if let at { when = at } else {
            do { when = try Timestamp(parsing: day) } catch { throw UsageError("\(r.id): the date \(day) is not a day: \(error)") }
        }
        let title = place.name ?? place.id
        let expense = Expense(
            id: r.id, userID: r.userID, amount: total, occurredAt: when, title: title, category: category, merchant: title,
            location: ExpenseLocation(coordinate: place.coordinate), storeID: entry.expenseStoreID,
            notes: "receipt \(URL(fileURLWithPath: name).lastPathComponent), \(r.items.count) lines")
        var prices: [(item: Int, entry: PriceEntry)] = []
        for (index, item) in r.items.enumerated() where item.priceMinor > 0 {
            let kg = item.unit == "kg"
            prices.append((index, PriceEntry(
                productName: item.name, store: .id(place.id), price: Money(minorUnits: item.priceMinor, currency: r.currency),
                quantity: kg ? Double(item.quantity) / 1000 : Double(item.quantity), unit: kg ? .kg : .pcs, recordedAt: when, source: .receipt)))
        }
        return ReceiptRecords(expense: expense, prices: prices)
    }

    static func saved(_ r: Receipt, outcomes: [PriceSaveOutcome], records: ReceiptRecords?, known: Set<Int64>, unread: [ReceiptLine]) -> Saved {
        var newProducts: [String] = []
        var matched: [(line: String, product: String)] = []
        for (entry, outcome) in zip(records?.prices ?? [], outcomes) {
            // New to this user (see `PriceImport.Report.newProducts`), not to the catalogue.
            if case .inserted(let record, _) = outcome {
                if !known.contains(record.product.id) { newProducts.append(entry.entry.productName) } else { matched.append((entry.entry.productName, record.product.name)) }
            }
        }
        return Saved(receipt: r, outcomes: outcomes, newProducts: newProducts, matched: matched, unread: unread)
    }

    static func minor(_ text: String, _ currency: Currency, option: String) throws -> Int64 {
        do { return try Money(parsing: text.replacingOccurrences(of: ",", with: "."), currency: currency).minorUnits } catch {
            throw UsageError("\(option) \(text): \(error) (an amount like 1,29 or 1.29)")
        }
    }

    public static func notFound(_ id: String) -> UsageError {
        UsageError("no receipt \(id) of this user; list them with `geospend receipts list --user U`")
    }

    /// `HH:MM` of an instant as recorded, nil for a bare day.
    static func clock(_ t: Timestamp) -> String? { t.isDateOnly ? nil : String(t.text.dropFirst(11).prefix(5)) }


    /// `receipts import|correct|confirm --format json`, the service's answer: the old import's
    /// fields (`expense_id` null while the receipt waits for review) and the receipt.
    public static func json(_ s: Saved) -> JSONOutput {
        let r = s.receipt
        return .object([
            ("receipt_id", .string(r.id)), ("status", .string(r.status.rawValue)), ("problems", .array(r.problems.map { .string($0) })),
            ("expense_id", r.expenseID.map { .string($0) } ?? .null), ("total", r.total.map { .string($0.decimalString) } ?? .null),
            ("currency", .string(r.currency.code)), ("store", r.storeID.map { .string($0) } ?? .null),
            ("date", r.date.map { .string($0) } ?? .null),
            ("price_records", .integer(Int64(s.outcomes.count))),
            ("matched", .array(s.matched.map { .object([("line", .string($0.line)), ("product", .string($0.product))]) })),
            ("new_products", .array(s.newProducts.map { .string($0) })),
            ("unread", .array(s.unread.map { .object([("line", .integer(Int64($0.line))), ("text", .string($0.text))]) })),
            ("sum_matches", .bool(!r.problems.contains { $0.hasPrefix("the items add up to") })),
        ])
    }
}
