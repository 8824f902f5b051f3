/// Firefly III's transaction export (Options → Export data → transactions CSV), as its
/// `ExportDataGenerator::exportTransactions` writes it: one row per journal, `amount` negative
/// for a withdrawal and positive otherwise, `date` in ISO 8601 with its offset
/// (`2025-03-01T08:15:00+02:00`), tags joined by commas. Data/README.md has the mapping.
struct FireflyIIIPreset: DelimitedPreset {
    var name: String { "firefly-iii" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "journal_id", use: "id (<user>/firefly-iii/<journal_id>)", required: true),
            ColumnRole(column: "type", use: "kind (Withdrawal → expense, Deposit → income, Transfer → transfer)", required: true),
            ColumnRole(column: "currency_code", use: "currency", required: true),
            ColumnRole(column: "amount", use: "amount (its sign dropped)", required: true),
            ColumnRole(column: "description", use: "title", required: false),
            ColumnRole(column: "date", use: "occurred_at", required: true),
            ColumnRole(column: "source_name", use: "merchant of a deposit", required: false),
            ColumnRole(column: "destination_name", use: "merchant of a withdrawal", required: false),
            ColumnRole(column: "category", use: "category", required: false),
            ColumnRole(column: "notes", use: "notes", required: false),
            ColumnRole(column: "tags", use: "notes (\"tags: …\" line)", required: false),
        ]
    }

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ",") }

    let fieldColumns = [
        "id": "journal_id", "kind": "type", "currency": "currency_code", "amount": "amount", "occurred_at": "date",
        "title": "description", "merchant": "destination_name", "category": "category", "notes": "notes",
    ]

    /// Transaction types that move no money in or out: the opening balance of an account and
    /// the corrections of a reconciliation. Left out, counted as skipped.
    static let balanceTypes: Set<String> = ["Opening balance", "Reconciliation", "Liability credit", "Invalid"]

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        let type = try row.required("type")
        let kind: ExpenseKind
        switch type {
        case "Withdrawal": kind = .expense
        case "Deposit": kind = .income
        case "Transfer": kind = .transfer
        case _ where Self.balanceTypes.contains(type): return nil
        default:
            throw FieldError(column: "type", reason: "\(ValueError.quote(type)) is not a Firefly III type (Withdrawal, Deposit, Transfer, Opening balance, Reconciliation)")
        }
        let user = conversions.user ?? ""
        let journal = try row.required("journal_id")
        var fields: [String: String] = [
            "id": "\(user)/firefly-iii/\(journal)", "user": user, "kind": kind.rawValue,
            "currency": try row.required("currency_code"),
        ]
        let amount = try row.required("amount"), date = try row.required("date")
        do { fields["amount"] = try conversions.amount(amount).magnitude } catch {
            throw FieldError(column: "amount", reason: error.description)
        }
        do { fields["occurred_at"] = try conversions.timestamp(date) } catch {
            throw FieldError(column: "date", reason: error.description)
        }
        fields["title"] = row.text("description")
        switch kind {
        case .expense: fields["merchant"] = row.text("destination_name")
        case .income: fields["merchant"] = row.text("source_name")
        case .transfer: break
        }
        fields["category"] = row.text("category")
        let notes = [row.text("notes"), row.text("tags").map { "tags: \($0)" }].compactMap { $0 }
        if !notes.isEmpty { fields["notes"] = notes.joined(separator: "\n") }
        return fields
    }
}
