/// Amounts as exports write them in any locale: `-12.50`, `€4.50`, `-1.234,56 €`,
/// `CHF 1'234.50`, `$1,234.50`, `(12.50)`, `1 234,56 kr`. A currency symbol or code before or
/// after the number is dropped (the row's currency comes from its column or `--currency`);
/// `'`, `’` and spaces always group thousands; `.` is the decimal mark and `,` groups
/// thousands, or the other way round with `decimalComma`. Groups must be of three digits, so a
/// `1,50` read without `--decimal-comma` is refused rather than read as 150.
extension ValueConversions {
    /// A signed amount as its magnitude in the `12.50` form `Money` reads, and its sign.
    /// - Throws: `ValueError.invalidAmount` naming the option that would read it.
    /// - Complexity: O(n) in the text's length.
    public func amount(_ raw: String) throws(ValueError) -> (magnitude: String, negative: Bool) {
        var text = Substring(raw.trimmingSpaces())
        var negative = false
        var signs = 0
        if text.first == "(" && text.last == ")" {  // accounting style
            (negative, signs) = (true, 1)
            text = text.dropFirst().dropLast()
        }
        // Peel signs and currency decoration off both ends; a trailing sign is SAP's and some
        // banks' `1.234,56-`.
        for fromStart in [true, false] {
            while let c = fromStart ? text.first : text.last, !(c.isASCII && c.isNumber) {
                let n: Int
                if c == "-" || c == "+" || c == "\u{2212}" {
                    (signs, negative, n) = (signs + 1, c != "+", 1)
                } else if let length = Self.decorationLength(text, fromStart: fromStart) {
                    n = length
                } else {
                    break
                }
                if fromStart { text.removeFirst(n) } else { text.removeLast(n) }
            }
        }
        guard signs <= 1 else { throw .invalidAmount(raw, reason: "has more than one sign") }
        let (decimal, group): (Character, Character) = decimalComma ? (",", ".") : (".", ",")
        // Every other grouping mark reads as this locale's.
        let body = String(text.map { "'’ \u{A0}\u{202F}".contains($0) ? group : $0 })
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && $0.isNumber || $0 == decimal || $0 == group }) else {
            throw .invalidAmount(raw, reason: "is not an amount like -1234.50, €4.50 or CHF 1'234.50")
        }
        let parts = body.split(separator: decimal, omittingEmptySubsequences: false)
        guard parts.count <= 2, !(parts.count == 2 && parts[1].isEmpty), !parts[0].isEmpty || parts.count == 2 else {
            throw .invalidAmount(raw, reason: decimalComma ? "is not a decimal-comma number like -1.234,56" : "is not a number like -1234.50")
        }
        if parts.count == 2 && parts[1].contains(group) {
            throw .invalidAmount(raw, reason: decimalComma
                ? "has a \".\" after the decimal comma; with --decimal-comma \".\" groups thousands"
                : "has a comma after the decimal point; if the comma is the decimal separator, add --decimal-comma")
        }
        let groups = parts[0].split(separator: group, omittingEmptySubsequences: false)
        let wellGrouped = groups.count == 1
            || (1...3).contains(groups[0].count) && groups.dropFirst().allSatisfy { $0.count == 3 }
        guard wellGrouped else {
            throw .invalidAmount(raw, reason: decimalComma
                ? "has a \".\" that does not group thousands; with --decimal-comma the decimal separator is \",\""
                : "has a comma that does not group thousands; if it is the decimal separator, add --decimal-comma")
        }
        let integer = groups.joined()
        return ((integer.isEmpty ? "0" : integer) + (parts.count == 2 ? "." + parts[1] : ""), negative)
    }

    /// The length of the currency decoration at one end of `text`: spaces, a currency sign
    /// (`€`, `$`, `£`), a three-letter code (`CHF`) or `kr`; nil when that end is none of these,
    /// so `12abc` stays an error rather than becoming 12.
    private static func decorationLength(_ text: Substring, fromStart: Bool) -> Int? {
        guard let c = fromStart ? text.first : text.last else { return nil }
        if c.isWhitespace || c.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .currencySymbol }) { return 1 }
        let letters = fromStart ? String(text.prefix { $0.isLetter }) : String(text.reversed().prefix { $0.isLetter }.reversed())
        if letters.count == 3 && letters.allSatisfy({ $0.isASCII && $0.isUppercase }) || letters.lowercased() == "kr" {
            return letters.count
        }
        return nil
    }
}
