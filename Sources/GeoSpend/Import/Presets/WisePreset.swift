/// Wise's statement of one currency balance as CSV (Balances → a currency → Statements →
/// CSV): `TransferWise ID, Date, Amount, Currency, Description, Payment Reference, Running
/// Balance, Exchange From, Exchange To, Exchange Rate, Payer Name, Payee Name, Payee Account
/// Number, Merchant, …, Note, Total fees`; `Date` `01-03-2025`, `Amount` the signed change of
/// the balance, fees included (`Total fees` says how much of it they were). Data/README.md has
/// the mapping.
struct WisePreset: DelimitedPreset {
    var name: String { "wise" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "TransferWise ID", use: "id (<user>/wise/<ID>/<Currency>)", required: true),
            ColumnRole(column: "Date", use: "occurred_at (a date)", required: true),
            ColumnRole(column: "Amount", use: "amount (negative: expense)", required: true),
            ColumnRole(column: "Currency", use: "currency", required: true),
            ColumnRole(column: "Description", use: "title when no party is named", required: false),
            ColumnRole(column: "Payment Reference", use: "notes", required: false),
            ColumnRole(column: "Payer Name", use: "title of money in", required: false),
            ColumnRole(column: "Payee Name", use: "merchant of a transfer out", required: false),
            ColumnRole(column: "Merchant", use: "merchant of a card payment", required: false),
            ColumnRole(column: "Note", use: "notes", required: false),
            ColumnRole(column: "Total fees", use: "notes (included in Amount)", required: false),
        ]
    }

    let fieldColumns = [
        "id": "TransferWise ID", "occurred_at": "Date", "amount": "Amount", "currency": "Currency", "title": "Description",
        "merchant": "Merchant", "notes": "Note",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ",") }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        let user = conversions.user ?? ""
        let id = try row.required("TransferWise ID"), currency = try row.required("Currency")
        let signed = try conversions.signedAmount(try row.required("Amount"), column: "Amount")
        // A conversion between two of the user's own balances (it appears in both statements,
        // hence the currency in the id).
        let kind: ExpenseKind = id.uppercased().hasPrefix("BALANCE") ? .transfer : signed.kind
        var fields: [String: String] = [
            "id": "\(user)/wise/\(id)/\(currency)", "user": user, "kind": kind.rawValue, "amount": signed.magnitude,
            "currency": currency,
            "occurred_at": try conversions.localTime(try row.required("Date"), pattern: "dd-MM-yyyy", column: "Date"),
        ]
        let party = kind == .income ? row.text("Payer Name") : row.text("Merchant") ?? row.text("Payee Name")
        fields["title"] = party ?? row.text("Description")
        if kind == .expense { fields["merchant"] = party }
        var notes = [party == nil ? nil : row.text("Description"), row.text("Payment Reference"), row.text("Note")].compactMap { $0 }
        if let fees = row.text("Total fees"), fees.contains(where: { $0 != "0" && $0 != "." }) {
            notes.append("fees \(fees) \(currency) included")
        }
        if !notes.isEmpty { fields["notes"] = notes.joined(separator: "\n") }
        return fields
    }
}
