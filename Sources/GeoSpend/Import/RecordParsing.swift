/// Raw field values of one input record, whatever the file format: a CSV row under its
/// header, or a JSON object. Empty strings and JSON `null` both mean "absent".
struct RawRecord {
    let location: String
    private let lookup: (String) -> RawValue?

    enum RawValue {
        case text(String)
        /// A JSON number's literal text.
        case number(String)
        case invalid(String)  // e.g. a JSON array where a string was expected
    }

    init(location: String, lookup: @escaping (String) -> RawValue?) {
        self.location = location
        self.lookup = lookup
    }

    /// A field as the reader gave it (to wrap a record in another).
    func value(_ name: String) -> RawValue? { lookup(name) }

    /// A field as text, or nil when absent/empty. JSON numbers give their literal text.
    func text(_ name: String) throws(FieldError) -> String? {
        switch lookup(name) {
        case nil: return nil
        case .text(let s): return s.isEmpty ? nil : s
        case .number(let s): return s
        case .invalid(let type): throw FieldError(column: name, reason: "is \(type); expected a string")
        }
    }

    func required(_ name: String) throws(FieldError) -> String {
        guard let v = try text(name) else { throw FieldError(column: name, reason: "is empty; this column is required") }
        return v
    }

    /// Free text: at most `maximumTextLength` characters, no control characters but tab/newline.
    func freeText(_ name: String) throws(FieldError) -> String? {
        guard let v = try text(name) else { return nil }
        return try checkText(v, column: name)
    }

    /// A number: strict decimal text or a JSON number; NaN/Infinity rejected.
    func double(_ name: String) throws(FieldError) -> Double? {
        guard let v = try text(name) else { return nil }
        do { return try parseStrictDouble(v) } catch { throw FieldError(column: name, reason: error.description) }
    }
}

/// A problem with one field; the importer adds file and line.
struct FieldError: Error {
    let column: String
    let reason: String
}

let maximumTextLength = 4096

/// Free text (names, titles, notes) as stored: in NFC (`Identity`), at most
/// `maximumTextLength` characters, without control characters but tab and line ends, and
/// without the bidi controls that make text display as something else.
func checkText(_ v: String, column: String) throws(FieldError) -> String {
    // Printable ASCII (most text): already NFC, nothing deceptive, and as many characters as
    // bytes. One pass over the bytes instead of three over the scalars.
    if v.utf8.count <= maximumTextLength, Identity.bytes(of: v, allIn: 0x20...0x7E) { return v }
    if v.unicodeScalars.count > maximumTextLength {
        throw FieldError(column: column, reason: "is longer than \(maximumTextLength) characters")
    }
    let text = Identity.normalized(v)
    if let s = Identity.deceptiveScalar(inText: text) {
        let what = s.value < 0x20 || (0x7F...0x9F).contains(s.value) ? "a control character" : "a bidi control that reorders the text shown after it"
        throw FieldError(column: column, reason: "contains \(Identity.describe(s)), \(what); remove it")
    }
    return text
}

/// An identifier (user, expense, store) as stored: in NFC (`Identity`), 1–128 characters, no
/// invisible characters (controls, bidi and other format characters, zero-width and
/// non-ASCII spaces), no leading or trailing space: two ids that differ there look the same.
func checkIdentifier(_ v: String, column: String) throws(FieldError) -> String {
    // Printable ASCII of at most 128 bytes, without a space at either end (most ids): every
    // check below passes, so skip them (a third of this function was counting characters).
    if v.utf8.count <= 128, v.utf8.first != 0x20, v.utf8.last != 0x20, Identity.bytes(of: v, allIn: 0x20...0x7E) {
        return v
    }
    let id = Identity.normalized(v)
    guard id.count <= 128 else { throw FieldError(column: column, reason: "is longer than 128 characters") }
    if let s = Identity.invisibleScalar(in: id) {
        let what = s.properties.generalCategory == .control ? "a control character" : "an invisible character"
        throw FieldError(column: column, reason: "contains \(Identity.describe(s)), \(what) that makes ids look alike; remove it")
    }
    guard id == id.trimmingSpaces() else { throw FieldError(column: column, reason: "has leading or trailing spaces; remove them") }
    return id
}

/// Both or neither of lat/lon, each strictly parsed and in range.
func parseCoordinate(_ r: RawRecord, latitude: String, longitude: String) throws(FieldError) -> Coordinate? {
    let lat = try r.double(latitude)
    let lon = try r.double(longitude)
    switch (lat, lon) {
    case (nil, nil): return nil
    case (.some, nil): throw FieldError(column: longitude, reason: "is empty but \(latitude) is given; give both or neither")
    case (nil, .some): throw FieldError(column: latitude, reason: "is empty but \(longitude) is given; give both or neither")
    case (.some(let la), .some(let lo)):
        guard (-90.0...90.0).contains(la) else {
            throw FieldError(column: latitude, reason: "\(ValueError.quote(String(la))) is outside [-90, 90]")
        }
        guard (-180.0...180.0).contains(lo) else {
            throw FieldError(column: longitude, reason: "\(ValueError.quote(String(lo))) is outside [-180, 180]")
        }
        return Coordinate(uncheckedLatitude: la, longitude: lo)
    }
}

/// Turns a raw record into an `Expense`, or says which field is wrong.
enum ExpenseRecord {
    static let columns = [
        "id", "user", "kind", "amount", "currency", "occurred_at", "title", "category", "merchant", "lat", "lon",
        "accuracy_m", "store_id", "notes",
    ]
    /// Every column an import reads: `columns` (what `generate` writes) and `period`, the
    /// user's period to assign each row to (an id or a name; `PeriodReference`).
    static let fields = columns + ["period"]
    static let required = ["user", "amount", "currency", "occurred_at"]

    static func parse(_ r: RawRecord) throws(FieldError) -> Expense {
        let user = try checkIdentifier(try r.required("user"), column: "user")
        let kind: ExpenseKind
        if let k = try r.text("kind") {
            guard let parsed = ExpenseKind(rawValue: k) else {
                throw FieldError(column: "kind", reason: "\(ValueError.quote(k)) is not one of expense, income, transfer")
            }
            kind = parsed
        } else {
            kind = .expense
        }
        let currencyText = try r.required("currency")
        let currency: Currency
        do { currency = try Currency(code: currencyText) } catch { throw FieldError(column: "currency", reason: error.description) }
        guard let amountText = try r.text("amount") else {
            throw FieldError(column: "amount", reason: "is empty; an amount is required")
        }
        let amount: Money
        do { amount = try Money(parsing: amountText, currency: currency) } catch {
            throw FieldError(column: "amount", reason: error.description)
        }
        let occurred: Timestamp
        let occurredText = try r.required("occurred_at")
        do { occurred = try Timestamp(parsing: occurredText) } catch {
            throw FieldError(column: "occurred_at", reason: error.description)
        }
        var location: ExpenseLocation?
        if let c = try parseCoordinate(r, latitude: "lat", longitude: "lon") {
            var accuracy: Double?
            if let a = try r.double("accuracy_m") {
                guard a >= 0 else { throw FieldError(column: "accuracy_m", reason: "is negative") }
                accuracy = a
            }
            location = ExpenseLocation(coordinate: c, accuracyMeters: accuracy)
        } else if try r.text("accuracy_m") != nil {
            throw FieldError(column: "accuracy_m", reason: "is given but lat and lon are not")
        }
        return Expense(
            id: try r.text("id").map { v throws(FieldError) in try checkIdentifier(v, column: "id") } ?? "",
            userID: user, kind: kind, amount: amount, occurredAt: occurred,
            title: try r.freeText("title"), category: try r.freeText("category"),
            merchant: try r.freeText("merchant"), location: location,
            storeID: try r.text("store_id").map { v throws(FieldError) in try checkIdentifier(v, column: "store_id") },
            notes: try r.freeText("notes"),
            period: try r.freeText("period").map { $0.trimmingSpaces() })
    }
}

/// Turns a raw CSV record (or GeoJSON properties) into a `Store`.
enum StoreRecord {
    static let columns = ["id", "name", "kind", "brand", "street", "postcode", "city", "country", "lat", "lon"]
    static let required = ["id", "name", "lat", "lon"]

    /// - Parameter nameRequired: CSV rows must name the store; OpenStreetMap features may not.
    static func parse(
        _ r: RawRecord, coordinate given: Coordinate? = nil, sourceID: String? = nil, nameRequired: Bool = true
    ) throws(FieldError) -> Store {
        let name = nameRequired ? try r.required("name") : try r.text("name")
        let id = try checkIdentifier(try r.required("id"), column: "id")
        var coordinate = given
        if coordinate == nil { coordinate = try parseCoordinate(r, latitude: "lat", longitude: "lon") }
        guard let coordinate else {
            throw FieldError(column: "lat", reason: "is empty; a store needs lat and lon")
        }
        return Store(
            id: id, name: try name.map { v throws(FieldError) in try checkText(v, column: "name") },
            kind: try r.freeText("kind"), brand: try r.freeText("brand"), street: try r.freeText("street"),
            postcode: try r.freeText("postcode"), city: try r.freeText("city"), country: try r.freeText("country"),
            coordinate: coordinate, sourceID: sourceID)
    }
}
