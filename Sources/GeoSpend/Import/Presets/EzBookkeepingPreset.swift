/// ezBookkeeping's transaction export (Data Management → Export Data, CSV or TSV): `Time` as
/// `2025-03-01 08:15:00` local time with `Timezone` `+02:00` beside it, `Type` one of
/// Expense, Income, Transfer, Balance Modification, `Geographic Location` as
/// "longitude latitude". Data/README.md has the mapping.
struct EzBookkeepingPreset: DelimitedPreset {
    var name: String { "ezbookkeeping" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Time", use: "occurred_at (with Timezone)", required: true),
            ColumnRole(column: "Timezone", use: "occurred_at's offset", required: false),
            ColumnRole(column: "Type", use: "kind (Expense, Income, Transfer)", required: true),
            ColumnRole(column: "Category", use: "category when Sub Category is empty", required: false),
            ColumnRole(column: "Sub Category", use: "category", required: false),
            ColumnRole(column: "Account Currency", use: "currency", required: false),
            ColumnRole(column: "Amount", use: "amount (its sign dropped)", required: true),
            ColumnRole(column: "Geographic Location", use: "lon lat", required: false),
            ColumnRole(column: "Tags", use: "notes (\"tags: …\")", required: false),
            ColumnRole(column: "Description", use: "title", required: false),
        ]
    }

    let fieldColumns = [
        "occurred_at": "Time", "kind": "Type", "category": "Sub Category", "currency": "Account Currency",
        "amount": "Amount", "lat": "Geographic Location", "lon": "Geographic Location", "notes": "Tags",
        "title": "Description",
    ]

    /// TSV for `.tsv` and `.txt` files, else CSV.
    func defaultDelimiter(path: String) -> UInt8 {
        let lower = path.lowercased()
        return lower.hasSuffix(".tsv") || lower.hasSuffix(".txt") ? UInt8(ascii: "\t") : UInt8(ascii: ",")
    }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        let type = try row.required("Type")
        let kind: ExpenseKind
        switch type {
        case "Expense": kind = .expense
        case "Income": kind = .income
        case "Transfer": kind = .transfer
        // A correction of an account's balance, not money spent or earned.
        case "Balance Modification": return nil
        default:
            throw FieldError(column: "Type", reason: "\(ValueError.quote(type)) is not an ezBookkeeping type (Expense, Income, Transfer, Balance Modification)")
        }
        var fields: [String: String] = ["kind": kind.rawValue]
        fields["user"] = conversions.user
        fields["currency"] = row.text("Account Currency") ?? conversions.currency
        let amount = try row.required("Amount")
        do { fields["amount"] = try conversions.amount(amount).magnitude } catch {
            throw FieldError(column: "Amount", reason: error.description)
        }
        let time = try row.required("Time")
        if let zone = row.text("Timezone") {
            guard zone.count == 6, zone.first == "+" || zone.first == "-" else {
                throw FieldError(column: "Timezone", reason: "\(ValueError.quote(zone)) is not an offset like +02:00")
            }
            fields["occurred_at"] = String(time.map { $0 == " " ? "T" : $0 }) + zone
        } else {
            do { fields["occurred_at"] = try conversions.timestamp(time) } catch {
                throw FieldError(column: "Time", reason: error.description + " (the file has no Timezone column: give --timezone)")
            }
        }
        fields["category"] = row.text("Sub Category") ?? row.text("Category")
        fields["title"] = row.text("Description")
        if let tags = row.text("Tags") { fields["notes"] = "tags: \(tags)" }
        if let position = row.text("Geographic Location") {
            let parts = position.split(separator: " ")
            guard parts.count == 2 else {
                throw FieldError(column: "Geographic Location", reason: "\(ValueError.quote(position)) is not \"longitude latitude\"")
            }
            fields["lon"] = String(parts[0])
            fields["lat"] = String(parts[1])
        }
        return fields
    }
}

extension EzBookkeepingPreset {
    /// Columns an export may leave out when an option stands in for them.
    func missing(from names: Set<String>, _ conversions: ValueConversions) -> [FieldError] {
        var problems: [FieldError] = []
        if !names.contains("Timezone") && conversions.timeZone == nil {
            problems.append(FieldError(column: "Timezone", reason: "is not in the header, so times have no offset; give --timezone (e.g. Europe/Helsinki)"))
        }
        if !names.contains("Account Currency") && conversions.currency == nil {
            problems.append(FieldError(column: "Account Currency", reason: "is not in the header; give --currency"))
        }
        return problems
    }
}
