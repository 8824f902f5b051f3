/// Stored text (user ids, store names, categories) escaped for each output format for people.
/// Whatever an import let through — control characters, bidi overrides, zero-width or other
/// invisible characters, trailing spaces — must neither break a table's rows and columns nor
/// make two different values look the same (`bob` and `bob\u{200B}` in `users list`).
///
/// ```swift
/// OutputEscaping.visible("bob\u{200B}")    // bob\u{200B}  (shown as typed here)
/// OutputEscaping.markdown("a\n| x |")      // a\\u{A}\| x \|  (renders as one cell: a\u{A}| x |)
/// OutputEscaping.html("<img onerror=x>")   // &lt;img onerror=x&gt;
/// ```
///
/// CSV and JSON carry the stored text unchanged (they are data; `CSVTable` quotes and defuses,
/// JSON escapes).
public enum OutputEscaping {
    /// Invisible or layout-changing characters as `\u{HEX}` (Swift's escape), a backslash as
    /// `\\` so an escape cannot be faked, and leading/trailing whitespace escaped too.
    /// Escaped: control (Cc), format (Cf: bidi controls U+202A–202E and U+2066–2069, zero-width
    /// U+200B–200D, U+FEFF…), line/paragraph separators, unassigned code points, spaces other
    /// than U+0020 (NBSP, U+2000–200A, U+3000…) and other default-ignorable characters
    /// (U+3164 HANGUL FILLER…) except the emoji variation selectors U+FE00–FE0F.
    public static func visible(_ s: String) -> String {
        // Most cells are printable ASCII without a backslash or an edge space: leave them be.
        let bytes = s.utf8
        if bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") || $0 == 0x20 }),
            bytes.first != 0x20, bytes.last != 0x20
        {
            return s
        }
        let scalars = Array(s.unicodeScalars)
        // Leading and trailing whitespace: "bob " must not look like "bob".
        let lead = scalars.prefix { $0.properties.isWhitespace }.count
        let trail = lead == scalars.count ? 0 : scalars.reversed().prefix { $0.properties.isWhitespace }.count
        var out = ""
        for (n, c) in scalars.enumerated() {
            if c == "\\" {
                out += "\\\\"
            } else if n < lead || n >= scalars.count - trail || isInvisible(c) {
                out += "\\u{" + String(c.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func isInvisible(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate: return true
        case .spaceSeparator: return c != " "
        default: return c.properties.isDefaultIgnorableCodePoint && !(0xFE00...0xFE0F).contains(c.value)
        }
    }

    /// Text for a Markdown line or table cell: `visible`, then every character Markdown (GFM)
    /// gives a meaning inline backslash-escaped — `\ ` * _ [ ] < > | # & ~` — so no HTML tag,
    /// entity, link syntax, emphasis or cell boundary can come from the data (a bare URL in a name
    /// may still be shown as a link by GFM's autolink extension). Newlines are already
    /// `\u{A}`: a value never starts a new line or table row.
    public static func markdown(_ s: String) -> String {
        let v = visible(s)
        guard v.utf8.contains(where: { markdownSpecial.contains($0) }) else { return v }
        var out = ""
        for c in v.unicodeScalars {
            if c.isASCII, markdownSpecial.contains(UInt8(c.value)) { out += "\\" }
            out.unicodeScalars.append(c)
        }
        return out
    }

    private static let markdownSpecial: Set<UInt8> = Set("\\`*_[]<>|#&~".utf8)

    /// Text for HTML element content or a quoted attribute: `visible`, then `& < > " '` as
    /// entities.
    public static func html(_ s: String) -> String {
        let v = visible(s)
        guard v.utf8.contains(where: { [0x26, 0x3C, 0x3E, 0x22, 0x27].contains($0) }) else { return v }
        var out = ""
        for c in v.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
