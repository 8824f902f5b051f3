/// A signed decimal as statements write it: an optional sign, digits, and one `.` or `,` as the
/// decimal mark (OFX allows either; no digit grouping).
struct SignedDecimal {
    let negative: Bool
    /// The digits with `.` as the decimal mark, no sign: `12.50`.
    let magnitude: String

    init(_ text: String, column: String) throws(FieldError) {
        var s = Substring(text.trimmedWhitespace)
        func fail() -> FieldError { FieldError(column: column, reason: "\(ValueError.quote(text)) is not a decimal number") }
        negative = s.first == "-"
        if s.first == "-" || s.first == "+" { s = s.dropFirst() }
        var seenMark = false
        var digits = 0
        var out = ""
        for c in s {
            if c.isASCII && c.isNumber {
                digits += 1
                out.append(c)
            } else if (c == "." || c == ",") && !seenMark {
                seenMark = true
                out.append(".")
            } else {
                throw fail()
            }
        }
        guard digits > 0 else { throw fail() }
        if out.hasPrefix(".") { out = "0" + out }
        if out.hasSuffix(".") { out.removeLast() }
        magnitude = out
    }
}
