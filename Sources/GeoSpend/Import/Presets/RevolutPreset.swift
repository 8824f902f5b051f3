import Foundation

/// Revolut's account statement as CSV (app: Accounts → Statement → Excel/CSV): `Type, Product,
/// Started Date, Completed Date, Description, Amount, Fee, Currency, State, Balance`, one row
/// per transaction, `Amount` signed (negative: money out), `Fee` what Revolut charged on top,
/// dates `2025-03-01 08:15:00` local time without offset (so `--timezone` is required).
/// Data/README.md has the mapping.
struct RevolutPreset: DelimitedPreset {
    var name: String { "revolut" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Type", use: "kind (TOPUP, EXCHANGE, TRANSFER → transfer)", required: true),
            ColumnRole(column: "Started Date", use: "occurred_at (with --timezone)", required: true),
            ColumnRole(column: "Description", use: "title, merchant of money out", required: false),
            ColumnRole(column: "Amount", use: "amount (negative: expense)", required: true),
            ColumnRole(column: "Fee", use: "a second expense when not 0", required: false),
            ColumnRole(column: "Currency", use: "currency", required: true),
            ColumnRole(column: "State", use: "rows not COMPLETED left out", required: true),
            ColumnRole(column: "Product", use: "notes", required: false),
        ]
    }

    let fieldColumns = [
        "kind": "Type", "occurred_at": "Started Date", "title": "Description", "merchant": "Description",
        "amount": "Amount", "currency": "Currency", "notes": "Product",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ",") }

    /// Types that move money between the user's own accounts and currencies, or in from a card.
    static let transferTypes: Set<String> = ["TOPUP", "EXCHANGE", "TRANSFER"]

    func missing(from names: Set<String>, _ conversions: ValueConversions) -> [FieldError] {
        needsTimeZone(conversions, column: "Started Date")
    }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        try records(row, conversions).first
    }

    func records(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [[String: String]] {
        // Pending, reverted, declined and failed rows moved no money (yet): the booked row
        // comes in a later statement.
        guard try row.required("State").uppercased() == "COMPLETED" else { return [] }
        let type = try row.required("Type").uppercased()
        let signed = try conversions.signedAmount(try row.required("Amount"), column: "Amount")
        let kind: ExpenseKind = Self.transferTypes.contains(type) ? .transfer : signed.kind
        let time = try conversions.localTime(try row.required("Started Date"), pattern: "yyyy-MM-dd HH:mm:ss", column: "Started Date")
        var fields: [String: String] = [
            "user": conversions.user ?? "", "kind": kind.rawValue, "amount": signed.magnitude,
            "currency": try row.required("Currency"), "occurred_at": time,
        ]
        let description = row.text("Description")
        fields["title"] = description
        if kind == .expense { fields["merchant"] = description }
        fields["notes"] = row.text("Product").map { "Revolut \($0.lowercased()) account, \(type)" }
        var out = [fields]
        if let feeText = row.text("Fee") {
            let fee = try conversions.signedAmount(feeText, column: "Fee").magnitude
            if fee.contains(where: { $0 != "0" && $0 != "." }) {
                var charge = fields
                charge["kind"] = ExpenseKind.expense.rawValue
                charge["amount"] = fee
                // No merchant: the fee was not paid at the place of the purchase.
                charge["title"] = "Revolut fee"
                charge["merchant"] = nil
                charge["notes"] = description.map { "fee on \($0)" }
                out.append(charge)
            }
        }
        return out
    }
}
