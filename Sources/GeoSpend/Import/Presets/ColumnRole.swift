/// A column a preset or mapping reads, what it gives, and whether a file must have it.
public struct ColumnRole: Sendable, Equatable {
    public let column: String
    /// What the column becomes, e.g. `amount`, `kind (Withdrawal → expense …)`.
    public let use: String
    public let required: Bool
}
