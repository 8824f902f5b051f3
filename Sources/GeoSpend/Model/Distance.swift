/// A length in metres, finite and ≥ 0. Parsed from `500m`, `1.5km` or a bare number of metres.
public struct Distance: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let meters: Double

    public init(meters: Double) { self.meters = meters }
    public static func meters(_ m: Double) -> Distance { Distance(meters: m) }
    public static func kilometers(_ km: Double) -> Distance { Distance(meters: km * 1000) }
    public static func < (a: Distance, b: Distance) -> Bool { a.meters < b.meters }

    /// Parses `500m`, `500 m`, `1.5km`, `2 km` or `750` (metres).
    /// - Throws: `ValueError.invalidDistance` for other units, negative, zero, NaN or infinite values.
    public init(parsing input: String) throws(ValueError) {
        var text = input.trimmingSpaces().lowercased()
        var factor = 1.0
        if text.hasSuffix("km") {
            factor = 1000
            text.removeLast(2)
        } else if text.hasSuffix("m") {
            text.removeLast()
        }
        text = text.trimmingSpaces()
        let value: Double
        do { value = try parseStrictDouble(text) } catch {
            throw .invalidDistance(input, reason: "is not a distance like 500m or 1.5km")
        }
        let metres = value * factor
        guard metres.isFinite, metres > 0 else {
            throw .invalidDistance(input, reason: "must be a positive, finite distance")
        }
        self.meters = metres
    }

    public var description: String {
        meters >= 1000 ? "\(formatDecimal(meters / 1000, digits: 3)) km" : "\(formatDecimal(meters, digits: 1)) m"
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

/// Formats a double with at most `digits` decimals, dropping trailing zeros: `12.5`, `0.001`, `3`.
/// Exact decimal digits through `Int64`; a value too large for that (|value|·10^digits ≥ 9·10¹⁵,
/// far beyond any coordinate, distance or amount here) falls back to Swift's shortest form.
/// Callers pass finite values, so NaN and infinity never appear.
public func formatDecimal(_ value: Double, digits: Int) -> String {
    precondition(value.isFinite)
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (value * scale).rounded()
    if scaled.magnitude >= 9e15 { return "\(value)" }
    let n = Int64(scaled)
    var s = Money.decimalString(n, digits: digits)
    // Byte tests: `contains(".")` with a String argument goes through Foundation's substring
    // search, which was most of a 6,000-row CSV's formatting time.
    if s.utf8.contains(UInt8(ascii: ".")) {
        while s.utf8.last == UInt8(ascii: "0") { s.removeLast() }
        if s.utf8.last == UInt8(ascii: ".") { s.removeLast() }
    }
    return s == "-0" ? "0" : s
}
