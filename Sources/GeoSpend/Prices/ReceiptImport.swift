import Foundation

/// Storing a receipt's text (`geospend receipts import`, the service's POST
/// `/api/v1/receipts/import`): one expense of its total at its store and one price record per
/// item line, all or nothing, refused with the CLI's words when the text does not add up.
public enum ReceiptImport {
    /// What was stored.
    public struct Stored: Sendable {
        public let receipt: ParsedReceipt
        public let expenseID: String
        public let total: Money
        public let store: Store
        public let outcomes: [PriceSaveOutcome]
        /// Item lines that became new products, and those matched to a known one.
        public let newProducts: [String]
        public let matched: [(line: String, product: String)]
    }

    /// A receipt's text read and checked, before anything is stored.
    public struct Checked: Sendable {
        public let text: String
        public let receipt: ParsedReceipt
        public let when: Timestamp
        public let total: Money
    }

    /// `text` checked as `receipts import` checks it; `name` names it in messages (the file as
    /// given) and, its last path component, in the expense's notes.
    public static func check(text: String, name: String, at: String, currency: String, allowMismatch: Bool) throws -> Checked {
        let code = try Currency(code: currency)
        let when: Timestamp
        do { when = try Timestamp(parsing: at) } catch { throw UsageError("--at: \(error)") }
        let receipt = ReceiptText.parse(text, currency: code)
        guard !receipt.items.isEmpty else {
            throw UsageError("\(name): no item lines like `Milch 1,29`; nothing stored (check it with `geospend receipts parse`)")
        }
        guard let total = receipt.total else {
            throw UsageError("\(name): \(receipt.sumCheck); add the total line, e.g. SUMME 7,77; nothing stored")
        }
        if !receipt.sumMatches && !allowMismatch {
            throw UsageError("\(name), line \(receipt.totalLine ?? 0): \(receipt.sumCheck); correct the text or pass --allow-mismatch; nothing stored")
        }
        if let long = receipt.items.first(where: { $0.name.count > 4096 }) {
            throw UsageError("\(name), line \(long.line): the name is \(long.name.count) characters long; a product name has at most 4,096 (is the file a receipt?)")
        }
        return Checked(text: text, receipt: receipt, when: when, total: total)
    }

    /// Stores a checked receipt of `user` at store `storeID`, in one transaction.
    public static func store(
        _ checked: Checked, name: String, user: String, storeID: String, category: String?, db: some ExpenseStore & ReceiptStore & PriceStore
    ) async throws -> Stored {
        let (text, receipt, when, total) = (checked.text, checked.receipt, checked.when, checked.total)
        guard let place = try await db.read({ reader in try reader.stores(withIDs: [storeID]) })[storeID] else {
            throw UsageError("--store \(storeID): no such store; find its id with `geospend nearest-stores --lat … --lon …`")
        }
        // The same receipt of the same user at the same store and time has the same id: a second
        // import is refused, not doubled.
        let key = [Identity.normalized(user), storeID, when.text, text].joined(separator: "\u{0}")
        let id = "receipt-" + String(FNV1a.hash(Array(key.utf8)), radix: 16)
        let expense = Expense(
            id: id, userID: user, amount: total, occurredAt: when, title: receipt.store ?? place.name, category: category,
            merchant: receipt.store ?? place.name, location: ExpenseLocation(coordinate: place.coordinate), storeID: storeID,
            notes: "receipt \(URL(fileURLWithPath: name).lastPathComponent), \(receipt.items.count) lines")
        let entries = receipt.items.map { item in
            PriceEntry(
                productName: item.name, store: .id(storeID), price: item.price, quantity: Double(item.quantity), unit: .pcs,
                recordedAt: when, source: .receipt)
        }
        let known = try await ProductLookup.productIDs(userID: user, in: db)
        let outcomes = try await db.saveReceipt(expense, prices: entries)
        var newProducts: [String] = []
        var matched: [(line: String, product: String)] = []
        for (item, outcome) in zip(receipt.items, outcomes) {
            // New to this user (see `PriceImport.Report.newProducts`), not to the catalogue.
            if case .inserted(let record, _) = outcome {
                if !known.contains(record.product.id) { newProducts.append(item.name) } else { matched.append((item.name, record.product.name)) }
            }
        }
        return Stored(receipt: receipt, expenseID: id, total: total, store: place, outcomes: outcomes, newProducts: newProducts, matched: matched)
    }

    /// `receipts import --format json`.
    public static func json(_ s: Stored) -> JSONOutput {
        .object([
            ("expense_id", .string(s.expenseID)), ("total", .string(s.total.decimalString)), ("currency", .string(s.total.currency.code)),
            ("store", .string(s.store.id)), ("price_records", .integer(Int64(s.outcomes.count))),
            ("matched", .array(s.matched.map { .object([("line", .string($0.line)), ("product", .string($0.product))]) })),
            ("new_products", .array(s.newProducts.map { .string($0) })),
            ("unread", .array(s.receipt.unread.map { .object([("line", .integer(Int64($0.line))), ("text", .string($0.text))]) })),
            ("sum_matches", .bool(s.receipt.sumMatches)),
        ])
    }

    /// `receipts parse --format json`: what the text holds, nothing stored.
    public static func json(_ r: ParsedReceipt) -> JSONOutput {
        .object([
            ("store", r.store.map { .string($0) } ?? .null),
            ("items", .array(r.items.map { i in
                .object([("name", .string(i.name)), ("quantity", .integer(Int64(i.quantity))), ("price", .string(i.price.decimalString)), ("line", .integer(Int64(i.line)))])
            })),
            ("total", r.total.map { .string($0.decimalString) } ?? .null),
            ("currency", .string(r.currency.code)),
            ("items_sum", .string(Money.decimalString(r.itemsSumMinor, digits: r.currency.minorDigits))),
            ("sum_matches", .bool(r.sumMatches)),
            ("sum_check", .string(r.sumCheck)),
            ("unread", .array(r.unread.map { .object([("line", .integer(Int64($0.line))), ("text", .string($0.text)), ("reason", .string($0.reason ?? ""))]) })),
        ])
    }
}
