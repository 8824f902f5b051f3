/// N26's transaction export (web app: Transactions → Export → CSV): `Booking Date, Value Date,
/// Partner Name, Partner Iban, Type, Payment Reference, Account Name, Amount (EUR), Original
/// Amount, Original Currency, Exchange Rate`; dates `2025-03-01`, `Amount (EUR)` signed
/// (negative: money out), the original amount of a card payment abroad beside it. The export
/// has no transaction ids: rows get the derived id. Data/README.md has the mapping.
struct N26Preset: DelimitedPreset {
    var name: String { "n26" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Booking Date", use: "occurred_at (a date)", required: true),
            ColumnRole(column: "Partner Name", use: "title, merchant of money out", required: false),
            ColumnRole(column: "Type", use: "notes", required: false),
            ColumnRole(column: "Payment Reference", use: "notes", required: false),
            ColumnRole(column: "Amount (EUR)", use: "amount (negative: expense), EUR", required: true),
            ColumnRole(column: "Original Amount", use: "notes (with Original Currency)", required: false),
            ColumnRole(column: "Original Currency", use: "notes", required: false),
        ]
    }

    let fieldColumns = [
        "occurred_at": "Booking Date", "title": "Partner Name", "merchant": "Partner Name", "amount": "Amount (EUR)",
        "notes": "Payment Reference",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ",") }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        let signed = try conversions.signedAmount(try row.required("Amount (EUR)"), column: "Amount (EUR)")
        var fields: [String: String] = [
            "user": conversions.user ?? "", "kind": signed.kind.rawValue, "amount": signed.magnitude, "currency": "EUR",
            "occurred_at": try conversions.localTime(try row.required("Booking Date"), pattern: "yyyy-MM-dd", column: "Booking Date"),
        ]
        let partner = row.text("Partner Name")
        fields["title"] = partner
        if signed.kind == .expense { fields["merchant"] = partner }
        var notes = [row.text("Type"), row.text("Payment Reference")].compactMap { $0 }
        if let original = row.text("Original Amount"), let currency = row.text("Original Currency"), currency != "EUR" {
            notes.append("paid \(original.drop { $0 == "-" }) \(currency)")
        }
        if !notes.isEmpty { fields["notes"] = notes.joined(separator: "\n") }
        return fields
    }
}
