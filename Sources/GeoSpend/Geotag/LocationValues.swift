/// The small value grammars of location histories, each checked: coordinates in range, E7
/// integers that fit, instants that fit in milliseconds. A bad value is a `FieldError` naming
/// the key, which the reader turns into a `RowError` with the JSON path or line.
enum LocationValues {
    /// Google's `"60.1699°, 24.9384°"` (Android) or `"geo:60.1699,24.9384"` (iOS), or a plain
    /// `"60.1699, 24.9384"`.
    static func coordinate(text: String, column: String) throws(FieldError) -> Coordinate {
        var body = Substring(text)
        if body.hasPrefix("geo:") { body = body.dropFirst(4) }
        let parts = body.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw FieldError(column: column, reason: "is not a \"lat, lon\" pair: \(ValueError.quote(String(text.prefix(60))))")
        }
        func degrees(_ s: Substring) -> Double? {
            var t = s.trimmingSpaces()
            if t.hasSuffix("°") { t = t.dropLast() }
            guard !t.isEmpty, t.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }) else { return nil }
            return Double(t)
        }
        guard let lat = degrees(parts[0]), let lon = degrees(parts[1]) else {
            throw FieldError(column: column, reason: "is not a \"lat, lon\" pair: \(ValueError.quote(String(text.prefix(60))))")
        }
        return try checked(latitude: lat, longitude: lon, column: column)
    }

    static func checked(latitude: Double, longitude: Double, column: String) throws(FieldError) -> Coordinate {
        do { return try Coordinate(latitude: latitude, longitude: longitude) } catch {
            throw FieldError(column: column, reason: "is out of range (\(latitude), \(longitude))")
        }
    }

    /// Degrees from an E7 integer (`latitudeE7: 601699000`); a fraction, an exponent or a value
    /// past ±1.8e9 is an error, not rounded.
    static func e7(_ value: JSONValue?, column: String) throws(FieldError) -> Double {
        guard let value else { throw FieldError(column: column, reason: "is missing") }
        let text: String
        switch value {
        case .number(let t): text = t
        case .string(let t): text = t
        default: throw FieldError(column: column, reason: "is \(value.typeName), not an E7 integer")
        }
        guard let n = Int64(text), n.magnitude <= 1_800_000_000 else {
            throw FieldError(column: column, reason: "is not an E7 integer within ±1800000000: \(ValueError.quote(String(text.prefix(40))))")
        }
        return Double(n) / 1e7
    }

    /// A finite number from a JSON number or a numeric string (the iOS export quotes numbers).
    static func number(_ value: JSONValue?, column: String) throws(FieldError) -> Double? {
        guard let value else { return nil }
        switch value {
        case .null: return nil
        case .number(let t), .string(let t):
            guard let d = Double(t), d.isFinite else {
                throw FieldError(column: column, reason: "is not a number: \(ValueError.quote(String(t.prefix(40))))")
            }
            return d
        default: throw FieldError(column: column, reason: "is \(value.typeName), not a number")
        }
    }

    static func string(_ value: JSONValue?) -> String? {
        if case .string(let s)? = value { return s }
        return nil
    }

    /// An accuracy radius in metres: non-negative and below 1000 km, else an error.
    static func accuracy(_ value: JSONValue?, column: String) throws(FieldError) -> Double? {
        guard let d = try number(value, column: column) else { return nil }
        guard d >= 0, d < 1_000_000 else { throw FieldError(column: column, reason: "is not an accuracy in metres: \(d)") }
        return d
    }

    /// An instant: RFC 3339 with an offset or `Z`, or digits of epoch milliseconds
    /// (`timestampMs`) or seconds (`seconds: true`, OwnTracks `tst`), multiplied with overflow
    /// checked.
    static func instant(_ value: JSONValue?, column: String, seconds: Bool = false) throws(FieldError) -> Int64 {
        guard let value else { throw FieldError(column: column, reason: "is missing") }
        switch value {
        case .string(let t):
            if let n = Int64(t) { return try epoch(n, seconds: seconds, column: column) }
            return try instant(text: t, column: column)
        case .number(let t):
            guard let n = Int64(t) else {
                throw FieldError(column: column, reason: "is not a whole number of \(seconds ? "seconds" : "milliseconds"): \(t.prefix(40))")
            }
            return try epoch(n, seconds: seconds, column: column)
        default:
            throw FieldError(column: column, reason: "is \(value.typeName), not a time")
        }
    }

    static func epoch(_ n: Int64, seconds: Bool, column: String) throws(FieldError) -> Int64 {
        guard seconds else { return n }
        let (ms, overflow) = n.multipliedReportingOverflow(by: 1000)
        guard !overflow else { throw FieldError(column: column, reason: "is too large a time in seconds: \(n)") }
        return ms
    }

    /// RFC 3339 text with an offset (`…Z`, `…+02:00`, fractions allowed).
    static func instant(text: String, column: String) throws(FieldError) -> Int64 {
        do {
            let t = try Timestamp(parsing: text)
            guard !t.isDateOnly else {
                throw FieldError(column: column, reason: "is a date without a time: \(ValueError.quote(text))")
            }
            return t.epochMilliseconds
        } catch let e as FieldError {
            throw e
        } catch {
            throw FieldError(column: column, reason: "is not an RFC 3339 time with an offset: \(ValueError.quote(String(text.prefix(60))))")
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}

/// Collects what a reader finds in one file, and the bad records with where they are, so an
/// import writes all of the file or none of it.
struct LocationHistorySink {
    let file: String
    let format: LocationHistoryFormat
    var positions: [Position] = []
    var visits: [Visit] = []
    var errors: [RowError] = []
    var badRecords = 0

    init(file: String, format: LocationHistoryFormat) {
        self.file = file
        self.format = format
    }

    mutating func position(_ ms: Int64, _ c: Coordinate, accuracy: Double?) {
        positions.append(Position(epochMilliseconds: ms, coordinate: c, accuracyMeters: accuracy, source: format))
    }

    /// Runs `body` for one record at `location` (a JSON path or a line), recording its error.
    mutating func record(at location: @autoclosure () -> String, _ body: (inout LocationHistorySink) throws(FieldError) -> Void) {
        do { try body(&self) } catch {
            badRecords += 1
            if errors.count < ImportOptions.maximumListedErrors {
                errors.append(RowError(file: file, location: location(), column: RowError.columnName(error.column), reason: error.reason))
            }
        }
    }

    /// The history, or the rejection listing the bad records.
    func finish() throws(ImportError) -> LocationHistory {
        guard errors.isEmpty else { throw .rejected(errors: errors, badRows: badRecords) }
        return LocationHistory(positions: positions, visits: visits)
    }
}
