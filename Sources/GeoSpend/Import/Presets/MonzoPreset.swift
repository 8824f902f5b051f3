import Foundation

/// Monzo's transaction export as CSV (app: Account → Export transactions → CSV):
/// `Transaction ID, Date, Time, Type, Name, Emoji, Category, Amount, Currency, Local amount,
/// Local currency, Notes and #tags, Address, Receipt, Description, Category split, Money Out,
/// Money In`; `Date` `01/03/2025` and `Time` `08:15:00` apart, UK local time (Europe/London
/// unless `--timezone` says otherwise), `Amount` signed in the account's currency. Moves to and
/// from pots are transfers. Data/README.md has the mapping.
struct MonzoPreset: DelimitedPreset {
    var name: String { "monzo" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Transaction ID", use: "id (<user>/monzo/<Transaction ID>)", required: true),
            ColumnRole(column: "Date", use: "occurred_at (with Time)", required: true),
            ColumnRole(column: "Time", use: "occurred_at, Europe/London", required: false),
            ColumnRole(column: "Type", use: "kind (Pot transfer → transfer)", required: false),
            ColumnRole(column: "Name", use: "merchant of money out, title", required: false),
            ColumnRole(column: "Category", use: "category", required: false),
            ColumnRole(column: "Amount", use: "amount (negative: expense)", required: true),
            ColumnRole(column: "Currency", use: "currency", required: true),
            ColumnRole(column: "Local amount", use: "notes (when another currency)", required: false),
            ColumnRole(column: "Local currency", use: "notes", required: false),
            ColumnRole(column: "Notes and #tags", use: "notes", required: false),
            ColumnRole(column: "Description", use: "title when Name is empty", required: false),
        ]
    }

    let fieldColumns = [
        "id": "Transaction ID", "occurred_at": "Date", "kind": "Type", "merchant": "Name", "title": "Name",
        "category": "Category", "amount": "Amount", "currency": "Currency", "notes": "Notes and #tags",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ",") }

    /// Monzo is a UK bank and its app shows UK time.
    static let defaultZone = TimeZone(identifier: "Europe/London")

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        let user = conversions.user ?? ""
        let signed = try conversions.signedAmount(try row.required("Amount"), column: "Amount")
        let type = row.text("Type") ?? ""
        let kind: ExpenseKind = type.lowercased() == "pot transfer" ? .transfer : signed.kind
        let date = try row.required("Date")
        let when = row.text("Time").map { "\(date) \($0)" } ?? date
        var fields: [String: String] = [
            "id": "\(user)/monzo/\(try row.required("Transaction ID"))", "user": user, "kind": kind.rawValue,
            "amount": signed.magnitude, "currency": try row.required("Currency"),
            "occurred_at": try conversions.localTime(
                when, pattern: row.text("Time") == nil ? "dd/MM/yyyy" : "dd/MM/yyyy HH:mm:ss", column: "Date", defaultZone: Self.defaultZone),
        ]
        let name = row.text("Name")
        fields["title"] = name ?? row.text("Description")
        if kind == .expense { fields["merchant"] = name ?? row.text("Description") }
        fields["category"] = row.text("Category")
        var notes = [row.text("Notes and #tags")].compactMap { $0 }
        if let local = row.text("Local amount"), let currency = row.text("Local currency"), currency != fields["currency"] {
            notes.append("paid \(local.drop { $0 == "-" }) \(currency)")
        }
        if !notes.isEmpty { fields["notes"] = notes.joined(separator: "\n") }
        return fields
    }
}
