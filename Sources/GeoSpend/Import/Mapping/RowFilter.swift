/// Which rows of a delimited file are read (`--where State=COMPLETED`, `--where State!=PENDING`):
/// a row is kept when, for every column named, its value is one of that column's `=` values
/// (if any) and none of its `!=` values. Values are compared as written, spaces trimmed. Rows
/// left out are counted, not written, like the rows a preset leaves out.
public struct RowFilter: Sendable, Equatable {
    public let column: String
    public let value: String
    /// `=` (keep rows with this value) or `!=` (leave them out).
    public let equal: Bool

    /// Reads `COLUMN=VALUE` or `COLUMN!=VALUE`; nil when it is neither.
    public init?(_ text: String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { return nil }
        let before = text[..<eq]
        equal = before.last != "!"
        column = String(equal ? before : before.dropLast())
        value = String(text[text.index(after: eq)...]).trimmingSpaces()
        if column.isEmpty { return nil }
    }

    /// Whether `filters` keep a row whose column values `text` gives.
    static func keeps(_ filters: [RowFilter], _ text: (String) -> String?) -> Bool {
        var allowed: [String: Bool] = [:]  // column → one of its `=` values matched
        for f in filters {
            let v = (text(f.column) ?? "").trimmingSpaces()
            if f.equal {
                allowed[f.column] = allowed[f.column] == true || v == f.value
            } else if v == f.value {
                return false
            }
        }
        return allowed.values.allSatisfy { $0 }
    }

    public var description: String { "\(column)\(equal ? "=" : "!=")\(value)" }
}
