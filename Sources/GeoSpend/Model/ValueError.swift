/// Why a single value (an amount, a date, a coordinate, a distance …) was rejected.
///
/// The messages are written for the person who typed the value; the importer adds where it was
/// (file, line, column) in `ImportError`.
public enum ValueError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownCurrency(String, reason: String)
    case invalidAmount(String, reason: String)
    case invalidDate(String, reason: String)
    case invalidNumber(String, reason: String)
    case outOfRange(String, reason: String)
    case invalidDistance(String, reason: String)
    case invalidValue(String, reason: String)

    public var description: String {
        switch self {
        case .unknownCurrency(let v, let r), .invalidAmount(let v, let r), .invalidDate(let v, let r),
            .invalidNumber(let v, let r), .outOfRange(let v, let r), .invalidDistance(let v, let r),
            .invalidValue(let v, let r):
            return "\(ValueError.quote(v)) \(r)"
        }
    }

    /// Quotes a user value for a message, cut to 60 characters so a 64 KiB field stays readable,
    /// control characters escaped.
    static func quote(_ value: String) -> String {
        let shown = value.count > 60 ? String(value.prefix(57)) + "…" : value
        var escaped = ""
        for scalar in shown.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\0": escaped += "\\0"
            // Other control characters would act on the terminal the message is read in.
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"\(escaped)\""
    }
}
