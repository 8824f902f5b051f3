/// A JSON document built in key order, for output whose layout is a documented contract.
/// Numbers are written from `Double` with a fixed number of decimals, never NaN or Infinity.
public indirect enum JSONOutput: Sendable {
    case null
    case bool(Bool)
    case string(String)
    /// A number written with at most `decimals` decimals (trailing zeros dropped).
    case number(Double, decimals: Int)
    case integer(Int64)
    case array([JSONOutput])
    case object([(String, JSONOutput)])

    /// The document as text; `pretty` indents by two spaces.
    public func serialized(pretty: Bool = true) -> String {
        var out = ""
        write(into: &out, indent: pretty ? 0 : nil)
        return out
    }

    private func write(into out: inout String, indent: Int?) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .string(let s): JSONOutput.writeString(s, into: &out)
        case .number(let d, let decimals): out += d.isFinite ? formatDecimal(d, digits: decimals) : "null"
        case .integer(let i): out += String(i)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (n, item) in items.enumerated() {
                if n > 0 { out += "," }
                JSONOutput.newline(&out, indent.map { $0 + 1 })
                item.write(into: &out, indent: indent.map { $0 + 1 })
            }
            JSONOutput.newline(&out, indent)
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (n, (key, value)) in members.enumerated() {
                if n > 0 { out += "," }
                JSONOutput.newline(&out, indent.map { $0 + 1 })
                JSONOutput.writeString(key, into: &out)
                out += indent == nil ? ":" : ": "
                value.write(into: &out, indent: indent.map { $0 + 1 })
            }
            JSONOutput.newline(&out, indent)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: Int?) {
        guard let indent else { return }
        out += "\n" + String(repeating: "  ", count: indent)
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        // Most strings need no escape and are appended whole: a scalar at a time was most of the
        // cost of large documents. 0xE2 leads U+2028 and U+2029 (and other scalars, which then
        // just take the slow path).
        let plain = !s.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0xE2 }
        if plain {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension JSONOutput {
    /// A string or null.
    static func text(_ s: String?) -> JSONOutput { s.map { .string($0) } ?? .null }
    /// A coordinate component: 7 decimals (≈ 1 cm), as the data's sources give them.
    static func degrees(_ d: Double) -> JSONOutput { .number(d, decimals: 7) }
    /// Metres to the millimetre.
    static func meters(_ m: Double) -> JSONOutput { .number(m, decimals: 3) }
}
