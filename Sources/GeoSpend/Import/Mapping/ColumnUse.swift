/// What one column of a file is used for, as the dry run shows it.
public struct ColumnUse: Sendable, Equatable {
    public let column: String
    /// The field(s) it gives, or `ignored`.
    public let use: String
}
