/// MONO's transactions (the budget seed 002/004, its Core Data entity L43–57), exported as CSV or
/// as JSON (an array of objects, or one object per line) with the entity's attribute names:
/// `name, amount, type, category, date, location, latitude, longitude, notes, reminderDate`.
/// `type` is `expense`, `income` or `transfer` (any case); `latitude` 0 and `longitude` 0
/// together are Core Data's unset `Double`s, so "no position", not a point in the Gulf of Guinea
/// (docs/DOMAIN.md, "MONO's transactions"). The entity has no currency and no user: `--currency` and `--user`
/// are required. `reminderDate` has no import column; it is kept in the notes
/// (`reminder: …`), and `expenses edit --remind-at` makes it a reminder.
struct MonoPreset: DelimitedPreset {
    var name: String { "mono" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "name", use: "title", required: false),
            ColumnRole(column: "amount", use: "amount (its sign dropped)", required: true),
            ColumnRole(column: "type", use: "kind (expense, income, transfer)", required: false),
            ColumnRole(column: "category", use: "category", required: false),
            ColumnRole(column: "date", use: "occurred_at", required: true),
            ColumnRole(column: "location", use: "merchant", required: false),
            ColumnRole(column: "latitude", use: "lat (0 with longitude 0: none)", required: false),
            ColumnRole(column: "longitude", use: "lon (0 with latitude 0: none)", required: false),
            ColumnRole(column: "notes", use: "notes", required: false),
            ColumnRole(column: "reminderDate", use: "notes (\"reminder: …\")", required: false),
        ]
    }

    let fieldColumns = [
        "title": "name", "amount": "amount", "kind": "type", "category": "category", "occurred_at": "date",
        "merchant": "location", "lat": "latitude", "lon": "longitude", "notes": "notes",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ",") }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        var fields: [String: String] = ["user": conversions.user ?? ""]
        let type = row.text("type")?.trimmingSpaces().lowercased() ?? "expense"
        guard let kind = ExpenseKind(rawValue: type) else {
            throw FieldError(column: "type", reason: "\(ValueError.quote(type)) is not a MONO type (expense, income, transfer)")
        }
        fields["kind"] = kind.rawValue
        let amount = try row.required("amount")
        do { fields["amount"] = try conversions.amount(amount).magnitude } catch {
            throw FieldError(column: "amount", reason: error.description)
        }
        fields["currency"] = try conversions.currencyOption(column: "amount")
        fields["occurred_at"] = try Self.date(try row.required("date"), conversions, column: "date")
        fields["title"] = row.text("name")
        fields["category"] = row.text("category")
        fields["merchant"] = row.text("location")
        let (lat, lon) = (row.text("latitude"), row.text("longitude"))
        if !(Self.isZero(lat) && Self.isZero(lon)) {
            fields["lat"] = lat
            fields["lon"] = lon
        }
        var notes = row.text("notes").map { [$0] } ?? []
        if let reminder = row.text("reminderDate") { notes.append("reminder: \(try Self.date(reminder, conversions, column: "reminderDate"))") }
        fields["notes"] = notes.isEmpty ? nil : notes.joined(separator: "\n")
        return fields
    }

    /// Core Data's unset coordinate: the number 0 however written (`0`, `0.0`, `-0`).
    static func isZero(_ text: String?) -> Bool {
        guard let text, let value = Double(text.trimmingSpaces()) else { return false }
        return value == 0
    }

    /// Seconds since 2001-01-01T00:00:00Z to the Unix epoch (`NSDate`'s reference date).
    static let referenceDateOffset: Int64 = 978_307_200

    /// A MONO date: RFC 3339 (or a bare date), Swift's `Date` description `2025-03-01 10:00:00
    /// +0000`, a number of seconds since 2001-01-01 UTC (how Core Data stores a `Date`), or a
    /// local date-time with `--timezone`.
    static func date(_ raw: String, _ conversions: ValueConversions, column: String) throws(FieldError) -> String {
        let text = raw.trimmingSpaces()
        let bytes = Array(text.utf8)
        if !bytes.isEmpty, bytes.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }),
            let seconds = Double(text), seconds.isFinite, abs(seconds) < 1e11
        {
            let unix = Int64(seconds.rounded(.down)) + referenceDateOffset
            let (day, inDay) = (unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400, ((unix % 86_400) + 86_400) % 86_400)
            let date = Timestamp(localDay: day).localDate
            func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "\(date)T\(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60))Z"
        }
        // `Date.description`: `yyyy-MM-dd HH:mm:ss ±hhmm`.
        if bytes.count == 25, bytes[10] == 0x20, bytes[19] == 0x20, bytes[20] == UInt8(ascii: "+") || bytes[20] == UInt8(ascii: "-") {
            let offset = String(decoding: bytes[20...22], as: UTF8.self) + ":" + String(decoding: bytes[23...24], as: UTF8.self)
            let rfc = String(decoding: bytes[0..<10], as: UTF8.self) + "T" + String(decoding: bytes[11..<19], as: UTF8.self) + offset
            if let t = try? Timestamp(parsing: rfc) { return t.text }
        }
        do { return try conversions.timestamp(text) } catch { throw FieldError(column: column, reason: error.description) }
    }
}

extension MonoPreset {
    /// The entity names no currency.
    func missing(from names: Set<String>, _ conversions: ValueConversions) -> [FieldError] {
        conversions.currency == nil ? [FieldError(column: "amount", reason: "MONO's export names no currency; give --currency (e.g. EUR)")] : []
    }
}

extension MonoPreset {
    /// The largest JSON array file read whole (JSON Lines streams, and has no limit).
    static let maximumArrayBytes = 256 << 20

    /// MONO's JSON: an array of transaction objects (each located as `item N`), or one object a
    /// line (located by line). Each object's values (strings, numbers, null) by attribute name.
    /// - Returns: the bytes read.
    static func readJSON(path: String, body: (Result<SourceRow, RowError>) throws -> Void) throws -> Int64 {
        let source = try ByteSource(path: path)
        let start = source.peek(4096).drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        guard start.first == UInt8(ascii: "[") else {
            return try RecordReaders.jsonLines(path: path, displayName: path, known: nil) { raw in
                switch raw {
                case .failure(let e): try body(.failure(e))
                case .success(let r):
                    try body(.success(SourceRow(location: r.location) { column in try? r.text(column) }))
                }
            }
        }
        var bytes: [UInt8] = []
        while let b = source.next() {
            bytes.append(b)
            if bytes.count > maximumArrayBytes {
                throw ImportError.unreadable(file: path, reason: "is a JSON array over 256 MiB; write it as JSON Lines (one object a line)")
            }
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let document: JSONValue
        do { document = try StrictJSONParser.parse(bytes) } catch {
            throw ImportError.badFile(RowError(file: path, location: "byte \(error.offset)", column: "file", reason: "is not valid JSON: \(error.reason)"))
        }
        guard case .array(let items) = document else {
            throw ImportError.badFile(RowError(file: path, line: 1, column: "file", reason: "is \(document.typeName); MONO's JSON is an array of transactions"))
        }
        for (i, item) in items.enumerated() {
            let location = "item \(i + 1)"
            guard case .object(let members) = item else {
                try body(.failure(RowError(file: path, location: location, column: "row", reason: "is \(item.typeName); each item must be an object")))
                continue
            }
            var values: [String: String] = [:]
            var bad: RowError?
            for (key, value) in members {
                switch value {
                case .null: continue
                case .string(let s): values[key] = s
                case .number(let n): values[key] = n
                case .bool(let b): values[key] = b ? "true" : "false"
                case .array, .object:
                    bad = bad ?? RowError(file: path, location: location, column: RowError.columnName(key), reason: "is \(value.typeName); expected a string or a number")
                }
            }
            if let bad { try body(.failure(bad)); continue }
            try body(.success(SourceRow(location: location) { values[$0] }))
        }
        return Int64(bytes.count)
    }
}
