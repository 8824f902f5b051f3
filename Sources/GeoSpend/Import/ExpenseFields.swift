/// An expense from named text fields, checked exactly as an import row is (`ExpenseRecord`):
/// what `geospend expenses add` and `expenses edit` build from their options, so a value the
/// importer refuses is refused there too, for the same reason.
public enum ExpenseFields {
    /// The field names: the import columns (`id`, `user`, `amount`, `occurred_at`, …).
    public static var names: [String] { ExpenseRecord.columns }

    /// Parses `fields` (absent or empty: no value) into an expense.
    /// - Throws: `FieldProblem` naming the field at fault.
    public static func parse(_ fields: [String: String]) throws(FieldProblem) -> Expense {
        let record = RawRecord(location: "options") { name in fields[name].map { .text($0) } }
        do { return try ExpenseRecord.parse(record) } catch { throw FieldProblem(field: error.column, reason: error.reason) }
    }

    /// The fields of a stored expense, as `parse` reads them back (money as a decimal string,
    /// coordinates with their shortest exact digits).
    public static func fields(of e: Expense) -> [String: String] {
        var f: [String: String] = [
            "id": e.id, "user": e.userID, "kind": e.kind.rawValue, "amount": e.amount.decimalString,
            "currency": e.amount.currency.code, "occurred_at": e.occurredAt.text,
        ]
        f["title"] = e.title
        f["category"] = e.category
        f["merchant"] = e.merchant
        f["lat"] = e.location.map { "\($0.coordinate.latitude)" }
        f["lon"] = e.location.map { "\($0.coordinate.longitude)" }
        f["accuracy_m"] = e.location?.accuracyMeters.map { "\($0)" }
        f["store_id"] = e.storeID
        f["notes"] = e.notes
        return f
    }
}

/// A field `ExpenseFields.parse` refused, and why.
public struct FieldProblem: Error, Sendable, Equatable {
    public let field: String
    public let reason: String
}
