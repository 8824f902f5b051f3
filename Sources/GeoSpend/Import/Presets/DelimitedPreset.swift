/// A known export format read from a delimited file (`--preset firefly-iii`, `ezbookkeeping`):
/// which of its columns it reads, and how a row becomes an expense record with the
/// canonical keys of `ExpenseRecord.columns`.
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
}
