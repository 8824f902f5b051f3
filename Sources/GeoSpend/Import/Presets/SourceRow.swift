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
