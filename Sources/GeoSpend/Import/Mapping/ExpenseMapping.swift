/// How the columns of a delimited file become expense fields, in one of three layouts:
/// - canonical: the header uses GeoSpend's own names (`ExpenseRecord.columns`); an unknown
///   column is an error, and amounts keep their sign rule (positive, `kind` gives direction);
/// - mapped (`--map FIELD=COLUMN`): the named columns, plus any column already called by a
///   field's name; every other column is ignored; without a `kind` column a negative amount
///   is an expense and a positive one income, with one the sign is dropped;
/// - a preset's (`DelimitedPreset`).
///
/// `resolve` checks the header once and reports every problem in it together.
struct ExpenseMapping {
    enum Layout {
        case canonical
        case mapped([String: String])  // field → column
        case preset(any DelimitedPreset)
    }

    let layout: Layout
    let conversions: ValueConversions
    /// `--where`: rows they do not keep give no record.
    var filters: [RowFilter] = []

    /// The file's columns behind a `--map` value: the column of that name, else `Date+Time`'s
    /// parts, whose values are joined with a space.
    static func parts(of column: String, among names: Set<String>) -> [String] {
        if names.contains(column) || !column.contains("+") { return [column] }
        return column.split(separator: "+").map { String($0).trimmingSpaces() }
    }

    /// The columns a header must hold for `--map` and `--where`: how a header below lines of
    /// account information is recognised.
    var namedColumns: Set<String> {
        var columns = Set(filters.map(\.column))
        if case .mapped(let mapping) = layout {
            for column in mapping.values { columns.formUnion(column.split(separator: "+").map { String($0).trimmingSpaces() }) }
        }
        return columns
    }

    /// A header checked against the layout: what each column is used for, and the row reader.
    struct Resolved {
        var uses: [ColumnUse]
        /// The canonical fields of the records a row gives (none: a row the preset leaves out;
        /// two: a purchase and its fee). `FieldError.column` names the file's column.
        var records: (SourceRow) throws(FieldError) -> [[String: String]]
        /// The file's column behind a canonical field, for the errors `ExpenseRecord` finds.
        let column: (String) -> String
        /// The file's own columns are the fields and nothing converts them: the importer reads
        /// rows as they are, without building `record`'s dictionary (15 % of a 100k import's CPU).
        var direct = false
    }

    /// - Throws: every problem with the header together: `ImportError.badFile` for one,
    ///   `.badHeader` for several.
    func resolve(header raw: [String], file: String, line: Int, delimiter: UInt8) throws(ImportError) -> Resolved {
        let names = raw.map { $0.trimmingSpaces() }
        var errors: [RowError] = []
        func fail(_ column: String, _ reason: String) {
            errors.append(RowError(file: file, line: line, column: column, reason: reason))
        }
        // A known app's export read as GeoSpend's own CSV (in whatever delimiter): name its preset.
        if case .canonical = layout {
            let columns = names.count == 1 ? names[0].split(whereSeparator: { "\t;|".contains($0) }).map(String.init) : names
            if let preset = ImportPreset.recognised(path: "", header: columns) { throw .badFile(ImportPreset.hint(preset, file: file)) }
        }
        // One column holding another delimiter: the whole header is one name, so say that once.
        if names.count == 1 {
            for (c, name, option) in [(";", "semicolon", "';'"), ("\t", "tab", "tab"), ("|", "bar", "'|'"), (",", "comma", "','")]
            where UInt8(ascii: Unicode.Scalar(c)!) != delimiter && names[0].contains(c) {
                fail("header", "the header looks \(name)-separated: try --delimiter \(option)")
                throw .badFile(errors[0])
            }
        }
        var index: [String: Int] = [:]
        var duplicates: Set<String> = []
        for (i, name) in names.enumerated() {
            if name.isEmpty {
                if case .canonical = layout { fail("column \(i + 1)", "the header has an empty column name") }
                continue
            }
            if index[name] != nil { duplicates.insert(name) } else { index[name] = i }
        }
        let conversions = self.conversions
        let uses: [ColumnUse]
        let resolved: Resolved
        switch layout {
        case .canonical:
            let known = ExpenseRecord.fields
            for name in names where !name.isEmpty && !known.contains(name) {
                if let guess = ColumnSuggestion.field(for: name, among: known) {
                    fail(RowError.columnName(name), "unknown column — did you mean \"\(guess)\"?")
                } else {
                    fail(RowError.columnName(name), "unknown column; known columns are \(known.joined(separator: ", ")) (other names: --map FIELD=COLUMN)")
                }
            }
            for name in duplicates where known.contains(name) { fail(name, "the header names this column twice") }
            if index["user"] != nil, conversions.user != nil {
                fail("user", "the file names its users and --user was given; drop one of them")
            }
            for field in ExpenseRecord.required where index[field] == nil {
                if field == "user" && conversions.user != nil { continue }
                if field == "currency" && conversions.currency != nil { continue }
                let hint = field == "user" ? "; add it or give --user" : field == "currency" ? "; add it or give --currency" : ""
                fail(field, "required column is missing from the header\(hint)")
            }
            uses = names.map { ColumnUse(column: $0, use: known.contains($0) ? $0 : "ignored") }
            resolved = Resolved(
                uses: uses,
                records: { row throws(FieldError) in
                    var fields: [String: String] = [:]
                    for name in known { if let v = row.text(name) { fields[name] = v } }
                    try Self.convert(&fields, conversions, signGivesKind: false, column: { $0 })
                    return [fields]
                },
                column: { $0 },
                direct: conversions.isIdentity)
        case .mapped(let mapping):
            var effective: [String: String] = [:]  // field → column
            for field in ExpenseRecord.fields where index[field] != nil { effective[field] = field }
            var joined: [String: [String]] = [:]  // column spec → its parts
            for (field, column) in mapping.sorted(by: { $0.key < $1.key }) {
                let parts = Self.parts(of: column, among: Set(index.keys))
                var found = true
                for part in parts where index[part] == nil {
                    let guess = ColumnSuggestion.nearest(part, among: names.filter { !$0.isEmpty })
                    fail(RowError.columnName(part), "--map \(field)=\(column): the header has no such column" + (guess.map { " — did you mean \"\($0)\"?" } ?? ""))
                    found = false
                }
                guard found else { continue }
                for part in parts where duplicates.contains(part) {
                    fail(part, "the header names this column twice, so --map \(field)= cannot tell which")
                }
                if parts.count > 1 { joined[column] = parts }
                effective[field] = column
            }
            let split = effective["outflow"] != nil || effective["inflow"] != nil
            if split, let amount = mapping["amount"] {
                fail(RowError.columnName(amount), "--map amount= and --map outflow=/inflow= both give the amount; keep one")
            }
            if split, let kind = mapping["kind"] {
                fail(RowError.columnName(kind), "--map outflow=/inflow= give each row's kind (out: expense, in: income); drop --map kind=")
            }
            if effective["user"] != nil, conversions.user != nil {
                fail(effective["user"]!, "the file names its users and --user was given; drop one of them")
            }
            for field in ExpenseRecord.required where effective[field] == nil {
                if field == "user" && conversions.user != nil { continue }
                if field == "amount" && split { continue }
                if field == "currency" && conversions.currency != nil { continue }
                let option = field == "user" ? " or give --user" : field == "currency" ? " or give --currency" : ""
                let guess = names.first { ColumnSuggestion.aliases[ColumnSuggestion.key($0)] == field }
                fail(field, "no column gives this required field; add --map \(field)=COLUMN\(option)" + (guess.map { " (\"\($0)\" looks like it)" } ?? ""))
            }
            let signGivesKind = effective["kind"] == nil
            uses = names.map { name in
                let fields = effective.filter { $0.value == name || joined[$0.value]?.contains(name) == true }.map(\.key).sorted()
                if fields.isEmpty { return ColumnUse(column: name, use: "ignored") }
                return ColumnUse(column: name, use: fields.map { f in
                    switch f {
                    case "amount": signGivesKind ? "amount (negative: expense, positive: income)" : "amount (sign dropped; kind gives direction)"
                    case "outflow": "amount of an expense"
                    case "inflow": "amount of an income"
                    default: joined[effective[f]!] != nil ? "\(f) (joined: \(effective[f]!))" : f
                    }
                }.joined(separator: ", "))
            }
            let columns = effective
            resolved = Resolved(
                uses: uses,
                records: { row throws(FieldError) in
                    var fields: [String: String] = [:]
                    for (field, column) in columns {
                        if let parts = joined[column] {
                            let values = parts.compactMap { row.text($0)?.trimmingSpaces() }.filter { !$0.isEmpty }
                            if !values.isEmpty { fields[field] = values.joined(separator: " ") }
                        } else if let v = row.text(column) {
                            fields[field] = v
                        }
                    }
                    if split { try Self.splitAmount(&fields, conversions) { columns[$0] ?? $0 } }
                    try Self.convert(&fields, conversions, signGivesKind: signGivesKind && !split, dropSign: !signGivesKind, amountRead: split) {
                        columns[$0] ?? $0
                    }
                    return [fields]
                },
                column: { columns[$0] ?? $0 })
        case .preset(let preset):
            if conversions.user == nil { fail("user", "the \(preset.name) preset needs --user: the rows' user") }
            for role in preset.columns where role.required && index[role.column] == nil {
                let guess = ColumnSuggestion.nearest(role.column, among: names)
                fail(role.column, "required column of a \(preset.name) export is missing from the header" + (guess.map { " — did you mean \"\($0)\"?" } ?? ""))
            }
            for role in preset.columns where duplicates.contains(role.column) { fail(role.column, "the header names this column twice") }
            for problem in preset.missing(from: Set(names), conversions) { fail(problem.column, problem.reason) }
            uses = names.map { name in ColumnUse(column: name, use: preset.columns.first { $0.column == name }?.use ?? "ignored") }
            resolved = Resolved(
                uses: uses,
                records: { row throws(FieldError) in try preset.records(row, conversions) },
                column: { preset.fieldColumns[$0] ?? $0 })
        }
        for filter in filters where index[filter.column] == nil {
            let guess = ColumnSuggestion.nearest(filter.column, among: names.filter { !$0.isEmpty })
            fail(RowError.columnName(filter.column), "--where \(filter.description): the header has no such column" + (guess.map { " — did you mean \"\($0)\"?" } ?? ""))
        }
        if errors.count == 1 { throw .badFile(errors[0]) }
        if errors.count > 1 { throw .badHeader(errors) }
        guard !filters.isEmpty else { return resolved }
        var filtered = resolved
        let filters = self.filters, records = resolved.records
        filtered.records = { row throws(FieldError) in RowFilter.keeps(filters, row.text) ? try records(row) : [] }
        filtered.direct = false
        let filterColumns = Set(filters.map(\.column))
        filtered.uses = resolved.uses.map { u in
            filterColumns.contains(u.column) ? ColumnUse(column: u.column, use: u.use == "ignored" ? "--where" : u.use + ", --where") : u
        }
        return filtered
    }

    /// Applies `conversions` to a row's canonical fields in place: user and currency defaults,
    /// the decimal comma and sign convention, the date format and zone.
    static func convert(
        _ fields: inout [String: String], _ conversions: ValueConversions, signGivesKind: Bool, dropSign: Bool = false,
        amountRead: Bool = false, column: (String) -> String
    ) throws(FieldError) {
        for (field, map) in conversions.valueMaps {
            if let v = fields[field], let to = map[v.trimmingSpaces()] { fields[field] = to }
        }
        // An export's own kinds (CARD_PAYMENT) need a value map; say which.
        if let kind = fields["kind"], ExpenseKind(rawValue: kind) == nil {
            throw FieldError(column: column("kind"), reason: "\(ValueError.quote(kind)) is not one of expense, income, transfer; map it, e.g. --map-value kind:\(kind)=expense")
        }
        if let user = conversions.user { fields["user"] = user }

        if fields["currency"] == nil, let currency = conversions.currency { fields["currency"] = currency }
        if let amount = fields["amount"], !amountRead, signGivesKind || dropSign || conversions.decimalComma {
            let parsed: (magnitude: String, negative: Bool)
            do { parsed = try conversions.amount(amount) } catch { throw FieldError(column: column("amount"), reason: error.description) }
            if signGivesKind {
                fields["kind"] = parsed.negative ? ExpenseKind.expense.rawValue : ExpenseKind.income.rawValue
                fields["amount"] = parsed.magnitude
            } else {
                fields["amount"] = dropSign || !parsed.negative ? parsed.magnitude : "-" + parsed.magnitude
            }
        }
        if let time = fields["occurred_at"], conversions.dateFormat != nil || conversions.timeZone != nil {
            do { fields["occurred_at"] = try conversions.timestamp(time) } catch {
                throw FieldError(column: column("occurred_at"), reason: error.description)
            }
        }
    }

    /// `outflow` and `inflow` as the amount and kind: a row holds one of them (a zero is
    /// empty); its sign is dropped, the column gives the direction.
    static func splitAmount(_ fields: inout [String: String], _ conversions: ValueConversions, column: (String) -> String) throws(FieldError) {
        var found: [(field: String, magnitude: String)] = []
        for field in ["outflow", "inflow"] {
            guard let text = fields.removeValue(forKey: field) else { continue }
            let magnitude: String
            do { magnitude = try conversions.amount(text).magnitude } catch { throw FieldError(column: column(field), reason: error.description) }
            if magnitude.contains(where: { $0 != "0" && $0 != "." }) { found.append((field, magnitude)) }
        }
        guard found.count == 1 else {
            let reason = found.isEmpty
                ? "and \(column("inflow")) are both empty or zero; each row is money out or money in"
                : "and \(column("inflow")) both hold an amount; each row is money out or money in"
            throw FieldError(column: column("outflow"), reason: reason)
        }
        fields["amount"] = found[0].magnitude
        fields["kind"] = found[0].field == "outflow" ? ExpenseKind.expense.rawValue : ExpenseKind.income.rawValue
    }
}
