/// CSV output (RFC 4180, `\r\n`-free: `\n` line ends), with spreadsheet formula injection
/// defused: user text starting with `= + - @`, tab, carriage return, NUL or a full-width
/// `＝ ＋ － ＠` gets a leading `'` (docs/MEASUREMENTS.md § CSV that spreadsheets read). Text is
/// kept as stored (it is data); any field with a control character or a Unicode line break is
/// quoted, so no reader that splits lines on U+0085, U+2028 or a vertical tab can see a new row.
public struct CSVTable: Sendable {
    public var headers: [String]
    public var rows: [[String]]
    /// Columns that hold user text (defused); numeric columns are written as they are.
    public var textColumns: Set<Int>

    public init(headers: [String], rows: [[String]] = [], textColumns: Set<Int> = []) {
        self.headers = headers
        self.rows = rows
        self.textColumns = textColumns
    }

    public func rendered() -> String {
        // Cells are appended straight into one string: joining a temporary array per row cost
        // ~13,000 instructions a row (a 6,357-row insights CSV).
        var out = ""
        func line(_ cells: [String], defusing: Bool) {
            for (i, cell) in cells.enumerated() {
                if i > 0 { out += "," }
                out += CSVTable.escape(defusing && textColumns.contains(i) ? CSVTable.defuse(cell) : cell)
            }
            out += "\n"
        }
        line(headers, defusing: false)
        for row in rows { line(row, defusing: true) }
        return out
    }

    static func defuse(_ s: String) -> String {
        guard let first = s.unicodeScalars.first else { return s }
        return ["=", "+", "-", "@", "\t", "\r", "\0", "\u{FF1D}", "\u{FF0B}", "\u{FF0D}", "\u{FF20}"].contains(first) ? "'" + s : s
    }

    static func escape(_ s: String) -> String {
        // Bytes, not Characters: grapheme breaking made this the costliest step of a CSV.
        // 0xC2: U+0085 (NEL) is C2 85; 0xE2: U+2028/2029 are E2 80 A8/A9. Quoting more than
        // needed is harmless.
        guard s.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 })
        else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
