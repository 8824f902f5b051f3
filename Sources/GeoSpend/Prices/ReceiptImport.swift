import Foundation

/// A receipt's text checked as the service's older POST `/api/v1/receipts/import` always
/// checked it (refused with the CLI's words when the text does not add up); what is stored is
/// `ReceiptRecording`'s receipt record. Also `receipts parse --format json`.
public enum ReceiptImport {
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
