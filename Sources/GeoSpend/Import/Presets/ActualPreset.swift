/// Actual Budget's transaction export (an account → Export, CSV): `Account, Date, Payee, Notes,
/// Category, Amount[, Cleared]`; `Date` `2025-03-01`, `Amount` signed with `.` (negative: money
/// out), a transfer's payee `Transfer: <account>`. The file names no currency, so `--currency`
/// is required. Data/README.md has the mapping.
struct ActualPreset: DelimitedPreset {
    var name: String { "actual" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Date", use: "occurred_at (a date)", required: true),
            ColumnRole(column: "Payee", use: "merchant of money out, title", required: true),
            ColumnRole(column: "Notes", use: "notes", required: false),
            ColumnRole(column: "Category", use: "category", required: false),
            ColumnRole(column: "Amount", use: "amount (negative: expense)", required: true),
        ]
    }

    let fieldColumns = ["occurred_at": "Date", "merchant": "Payee", "title": "Payee", "notes": "Notes", "category": "Category", "amount": "Amount"]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ",") }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        let signed = try conversions.signedAmount(try row.required("Amount"), column: "Amount")
        let payee = row.text("Payee")
        let transfer = payee?.hasPrefix("Transfer: ") == true
        let kind: ExpenseKind = transfer ? .transfer : signed.kind
        var fields: [String: String] = [
            "user": conversions.user ?? "", "kind": kind.rawValue, "amount": signed.magnitude,
            "currency": try conversions.currencyOption(column: "Amount"),
            "occurred_at": try conversions.localTime(try row.required("Date"), pattern: "yyyy-MM-dd", column: "Date"),
        ]
        fields["title"] = payee
        if kind == .expense { fields["merchant"] = payee }
        fields["category"] = transfer ? nil : row.text("Category")
        fields["notes"] = row.text("Notes")
        return fields
    }
}
