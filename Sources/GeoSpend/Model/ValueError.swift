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

    /// Quotes a user value for a message, control characters escaped, cut to 60 characters of
    /// output so a 64 KiB field (or one of a thousand control characters) stays readable.
    static func quote(_ value: String) -> String {
        var pieces: [String] = []  // the escaped form of each character, until 60 are exceeded
        var length = 0
        for character in value {
            var piece = ""
            for scalar in character.unicodeScalars {
                switch scalar {
                case "\"": piece += "\\\""
                case "\n": piece += "\\n"
                case "\r": piece += "\\r"
                case "\t": piece += "\\t"
                case "\0": piece += "\\0"
                // Other control characters would act on the terminal the message is read in;
                // bidi overrides and other invisible characters would disguise the value.
                case _ where OutputEscaping.isInvisible(scalar):
                    piece += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                default: piece.unicodeScalars.append(scalar)
                }
            }
            pieces.append(piece)
            length += piece.count
            if length > 60 { break }
        }
        guard length > 60 else { return "\"" + pieces.joined() + "\"" }
        var shown = "", count = 0
        for piece in pieces {
            if count + piece.count > 57 { break }
            shown += piece
            count += piece.count
        }
        return "\"" + shown + "…\""
    }
}
