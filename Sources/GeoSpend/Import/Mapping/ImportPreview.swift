/// What `Importer.previewExpenses` found (the dry run): nothing is written.
public struct ImportPreview: Sendable {
    /// Each column of the file and what it is used for (empty for JSON Lines and statements).
    public var columns: [ColumnUse] = []
    public var conversions: [String] = []
    /// The first rows as they would be stored, ids included.
    public var rows: [Expense] = []
    public var good = 0
    public var bad = 0
    /// Rows a preset leaves out on purpose.
    public var skipped = 0
    /// The first `ImportOptions.maximumListedErrors` bad rows.
    public var errors: [RowError] = []
    public init() {}
}
