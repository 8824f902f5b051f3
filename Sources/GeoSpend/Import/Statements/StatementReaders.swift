/// Bank-statement formats `import expenses --preset` reads besides delimited files.
public enum StatementFormat: String, Sendable, CaseIterable {
    case ofx, qif, camt053
}

/// How to read a statement where the format leaves a choice to the user.
public struct StatementOptions: Sendable {
    /// QIF only: the order of its dates' day, month and year, as a pattern (`MM/dd/yy`,
    /// `dd.MM.yyyy`); nil lets the reader decide from the file.
    public var dateFormat: String?

    public init(dateFormat: String? = nil) {
        self.dateFormat = dateFormat
    }
}

/// Reads bank statements into canonical expense records, one per transaction.
///
/// Keys of each record: `id` (the statement's own transaction id; absent when the format has
/// none), `kind` (`expense` for money out, `income` for money in, `transfer`), `amount` (positive
/// decimal text with `.`), `currency` (ISO 4217; absent when the file does not say), `occurred_at`
/// (RFC 3339 with offset, or a bare date), `title`, `merchant`, `notes`, `category`. There is no
/// `user`: the importer adds the one given with `--user`.
///
/// Each record is located at the line its transaction starts on. A file that cannot be read as
/// its format at all throws `ImportError.badFile`; a transaction with a bad field is handed to
/// `body` as a `RowError`, so the importer reports all of them.
enum StatementReaders {
    /// - Returns: bytes read.
    static func read(
        _ format: StatementFormat, path: String, displayName: String, options: StatementOptions,
        body: (Result<RawRecord, RowError>) throws -> Void
    ) throws -> Int64 {
        let bytes = try StatementText.read(path: path)
        let transactions: [Result<StatementTransaction, RowError>]
        switch format {
        case .ofx: transactions = try OFXReader.read(bytes, file: displayName)
        case .qif: transactions = try QIFReader.read(bytes, file: displayName, dateFormat: options.dateFormat)
        case .camt053: transactions = try CamtReader.read(bytes, file: displayName)
        }
        for t in transactions {
            try body(t.map { t in
                let fields = t.fields
                return RawRecord(location: String(t.line)) { key in fields[key].map { .text($0) } }
            })
        }
        return Int64(bytes.count)
    }

    /// A markup file parsed, or `badFile` at the line the syntax broke.
    static func parseMarkup(_ text: String, sgml: Bool, file: String) throws(ImportError) -> MarkupElement {
        do { return try MarkupParser.parse(text, sgml: sgml) } catch {
            throw .badFile(RowError(file: file, line: error.line, column: "document", reason: error.reason))
        }
    }
}

/// One transaction read from a statement: the canonical record keys and the line it starts on.
struct StatementTransaction: Equatable {
    let line: Int
    var fields: [String: String]

    /// Sets `kind`, `amount` and the counterparty: `title` always, `merchant` only for money out
    /// (the payer of an income is not a merchant).
    init(line: Int, kind: ExpenseKind, amount: String, counterparty: String?) {
        self.line = line
        fields = ["kind": kind.rawValue, "amount": amount]
        if let counterparty, !counterparty.isEmpty {
            fields["title"] = counterparty
            if kind == .expense { fields["merchant"] = counterparty }
        }
    }

    subscript(key: String) -> String? {
        get { fields[key] }
        set { fields[key] = newValue?.isEmpty == true ? nil : newValue }
    }
}

/// A signed decimal as statements write it: an optional sign, digits, and one `.` or `,` as the
/// decimal mark (OFX allows either; no digit grouping).
struct SignedDecimal {
    let negative: Bool
    /// The digits with `.` as the decimal mark, no sign: `12.50`.
    let magnitude: String

    init(_ text: String, column: String) throws(FieldError) {
        var s = Substring(text.trimmedWhitespace)
        func fail() -> FieldError { FieldError(column: column, reason: "\(ValueError.quote(text)) is not a decimal number") }
        negative = s.first == "-"
        if s.first == "-" || s.first == "+" { s = s.dropFirst() }
        var seenMark = false
        var digits = 0
        var out = ""
        for c in s {
            if c.isASCII && c.isNumber {
                digits += 1
                out.append(c)
            } else if (c == "." || c == ",") && !seenMark {
                seenMark = true
                out.append(".")
            } else {
                throw fail()
            }
        }
        guard digits > 0 else { throw fail() }
        if out.hasPrefix(".") { out = "0" + out }
        if out.hasSuffix(".") { out.removeLast() }
        magnitude = out
    }
}
