import ArgumentParser
import Foundation
import GeoSpend

struct ReceiptsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts",
        abstract: "Read receipt text (from a phone's OCR) and store it as an expense with prices.",
        subcommands: [ReceiptsParseCommand.self])

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

    static func json(_ r: ParsedReceipt) -> JSONOutput {
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
              printf 'REWE Markt\\nMilch 1,5%% 1,29\\nBrot Vollkorn 2,49\\nÄpfel 1kg 3,99\\nSUMME 7,77\\n' > r.txt
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
        case .json: printOut(ReceiptsCommand.json(receipt).serialized() + "\n")
        case .table: printOut(ReceiptsCommand.table(receipt))
        }
        if !receipt.sumMatches { printErr("geospend: \(file): \(receipt.sumCheck)") }
    }
}
