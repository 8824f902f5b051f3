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
enum StatementReaders {
    /// - Returns: bytes read.
    static func read(
        _ format: StatementFormat, path: String, displayName: String, options: StatementOptions,
        body: (Result<RawRecord, RowError>) throws -> Void
    ) throws -> Int64 {
        // Placeholder for the interface; the statement readers replace it.
        throw ImportError.unreadable(file: displayName, reason: "\(format.rawValue) statements are not readable yet")
    }
}
