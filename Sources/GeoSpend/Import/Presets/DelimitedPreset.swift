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

/// A column a preset or mapping reads, what it gives, and whether a file must have it.
public struct ColumnRole: Sendable, Equatable {
    public let column: String
    /// What the column becomes, e.g. `amount`, `kind (Withdrawal → expense …)`.
    public let use: String
    public let required: Bool
}

/// One data row of a delimited file, read by column name; an empty field is absent.
struct SourceRow {
    let location: String
    let lookup: (String) -> String?

    func text(_ column: String) -> String? {
        guard let v = lookup(column), !v.isEmpty else { return nil }
        return v
    }

    func required(_ column: String) throws(FieldError) -> String {
        guard let v = text(column) else { throw FieldError(column: column, reason: "is empty; this column is required") }
        return v
    }
}
