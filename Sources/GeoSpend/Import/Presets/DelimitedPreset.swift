/// A known export format read from a delimited file (`--preset firefly-iii`, `revolut`, …):
/// which of its columns it reads, and how a row becomes expense records with the canonical
/// keys of `ExpenseRecord.columns`.
protocol DelimitedPreset: Sendable {
    var name: String { get }
    /// The columns read, in the order the dry run lists them. Columns not listed are ignored
    /// (exports gain columns from version to version).
    var columns: [ColumnRole] { get }
    /// The file's column behind each canonical field, for errors the expense rules find.
    var fieldColumns: [String: String] { get }
    /// The delimiter when `--delimiter` is not given.
    func defaultDelimiter(path: String) -> UInt8
    /// The row as canonical fields (text, as `ExpenseRecord.parse` reads it), or nil for a
    /// row the preset leaves out (a balance correction is not spending). `FieldError.column`
    /// names the file's column.
    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]?
    /// The row as any number of records: none for a row left out, two for a purchase with a
    /// fee the export keeps beside it (Revolut). The default is `record`'s one or none.
    func records(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [[String: String]]
    /// Header problems that options can fix (a missing `--timezone`), reported with the others.
    func missing(from names: Set<String>, _ conversions: ValueConversions) -> [FieldError]
    /// Exports that put lines of account information above the header (DKB, ING) find it
    /// among the first lines: the first row holding every required column.
    var headerMayFollowPreamble: Bool { get }
    /// The encoding of a file that is not UTF-8 when `--encoding` is not given (German banks
    /// still write ISO 8859-1); nil: such a file is an error, as for any CSV.
    var legacyEncoding: SourceEncoding? { get }
}

extension DelimitedPreset {
    func records(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [[String: String]] {
        try record(row, conversions).map { [$0] } ?? []
    }

    func missing(from names: Set<String>, _ conversions: ValueConversions) -> [FieldError] { [] }

    var headerMayFollowPreamble: Bool { false }

    var legacyEncoding: SourceEncoding? { nil }

    /// The columns a file must have.
    var requiredColumns: [String] { columns.filter(\.required).map(\.column) }
}
