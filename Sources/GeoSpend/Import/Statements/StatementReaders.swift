/// Bank-statement formats `import expenses --preset` reads besides delimited files.
public enum StatementFormat: String, Sendable, CaseIterable {
    case ofx, qif, camt053, mt940
    case monzoAPI = "monzo-api"

    /// The word in the ids of the format's transactions, `<user>/<word>/<id>`: the Monzo API's
    /// transactions take the ids the Monzo CSV preset gives them, so one transaction from both
    /// files is one id.
    var idPrefix: String { self == .monzoAPI ? "monzo" : rawValue }
}

/// How to read a statement where the format leaves a choice to the user.
public struct StatementOptions: Sendable {
    /// QIF only: the order of its dates' day, month and year, as a pattern (`MM/dd/yy`,
    /// `dd.MM.yyyy`); nil lets the reader decide from the file.
    public var dateFormat: String?
    /// QIF only: the currency the import gives (`--currency`), whose minor digits say how an
    /// amount like `-1,234` reads (1.234 in KWD, 1234 in EUR); nil reads it as two digits.
    public var currency: Currency?

    public init(dateFormat: String? = nil, currency: Currency? = nil) {
        self.dateFormat = dateFormat
        self.currency = currency
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
        case .qif:
            transactions = try QIFReader.read(
                bytes, file: displayName, dateFormat: options.dateFormat, minorDigits: options.currency?.minorDigits ?? 2)
        case .camt053: transactions = try CamtReader.read(bytes, file: displayName)
        case .mt940: transactions = try MT940Reader.read(bytes, file: displayName)
        case .monzoAPI: transactions = try MonzoAPIReader.read(bytes, file: displayName)
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
