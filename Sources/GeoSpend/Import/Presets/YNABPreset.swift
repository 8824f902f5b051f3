import Foundation

/// YNAB's register export (web app: Accounts → Export, the `… - Register.csv` in the zip):
/// `Account, Flag, Date, Payee, Category Group/Category, Category Group, Category, Memo,
/// Outflow, Inflow, Cleared`; `Outflow` and `Inflow` in the budget's currency format (`$4.50`,
/// `4,50 €`), dates in the budget's date format. A split transaction is one row per part (memo
/// `Split (1/2) …`), each its own expense. The file names neither its currency nor its date
/// order, so `--currency` is required and `--date-format` for dates that are not ISO.
/// Data/README.md has the mapping.
struct YNABPreset: DelimitedPreset {
    var name: String { "ynab" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Date", use: "occurred_at (--date-format)", required: true),
            ColumnRole(column: "Payee", use: "merchant of an outflow, title", required: true),
            ColumnRole(column: "Category", use: "category", required: false),
            ColumnRole(column: "Memo", use: "notes", required: false),
            ColumnRole(column: "Outflow", use: "amount of an expense", required: true),
            ColumnRole(column: "Inflow", use: "amount of an income", required: true),
        ]
    }

    let fieldColumns = [
        "occurred_at": "Date", "merchant": "Payee", "title": "Payee", "category": "Category", "notes": "Memo", "amount": "Outflow",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ",") }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        let payee = row.text("Payee")
        // The opening balance of an account is not money spent or earned.
        if payee == "Starting Balance" { return nil }
        let currency = try conversions.currencyOption(column: "Outflow")
        let minor = (try? Currency(code: currency))?.minorDigits ?? 2
        let out = try conversions.symbolAmount(row.text("Outflow") ?? "", column: "Outflow", minorDigits: minor)
        let into = try conversions.symbolAmount(row.text("Inflow") ?? "", column: "Inflow", minorDigits: minor)
        let spent = out.magnitude.contains { $0 != "0" && $0 != "." }
        let earned = into.magnitude.contains { $0 != "0" && $0 != "." }
        guard spent != earned else {
            if !spent { return nil }  // a part of nothing (a zero split)
            throw FieldError(column: "Outflow", reason: "and Inflow are both set; a row moves money one way")
        }
        let transfer = payee?.hasPrefix("Transfer : ") == true
        let kind: ExpenseKind = transfer ? .transfer : spent ? .expense : .income
        var fields: [String: String] = [
            "user": conversions.user ?? "", "kind": kind.rawValue, "amount": spent ? out.magnitude : into.magnitude,
            "currency": currency, "occurred_at": try date(try row.required("Date"), conversions),
        ]
        fields["title"] = payee
        if kind == .expense { fields["merchant"] = payee }
        if let category = row.text("Category"), !transfer { fields["category"] = category }
        fields["notes"] = row.text("Memo")
        return fields
    }

    /// ISO dates as they are; any other through `--date-format`.
    private func date(_ text: String, _ conversions: ValueConversions) throws(FieldError) -> String {
        if let pattern = conversions.dateFormat?.description { return try conversions.localTime(text, pattern: pattern, column: "Date") }
        if let iso = try? conversions.localTime(text, pattern: "yyyy-MM-dd", column: "Date") { return iso }
        throw FieldError(column: "Date", reason: "\(ValueError.quote(text)) is in the budget's date format; give it with --date-format (e.g. MM/dd/yyyy or dd.MM.yyyy)")
    }
}
