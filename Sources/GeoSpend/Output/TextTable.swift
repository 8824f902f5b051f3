/// A plain-text table for people: columns padded to the widest cell, numbers right-aligned;
/// `markdown()` gives the same table as GitHub-flavoured Markdown. Cells are escaped here, for
/// every table (`OutputEscaping`): no stored value can add a row or a column, hide characters
/// or carry live Markdown/HTML.
public struct TextTable: Sendable {
    public var headers: [String]
    public var rows: [[String]]
    /// Columns whose cells are right-aligned (numbers).
    public var rightAligned: Set<Int>

    public init(headers: [String], rows: [[String]] = [], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rows = rows
        self.rightAligned = rightAligned
    }

    public func rendered() -> String {
        let headers = headers.map(OutputEscaping.visible)
        let rows = rows.map { $0.map(OutputEscaping.visible) }
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, cell) in cells.enumerated() {
                let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
                parts.append(rightAligned.contains(i) ? pad + cell : cell + pad)
            }
            var s = parts.joined(separator: "  ")
            while s.hasSuffix(" ") { s.removeLast() }
            return s
        }
        var out = [line(headers), line(widths.map { String(repeating: "-", count: $0) })]
        out += rows.map(line)
        return out.joined(separator: "\n") + "\n"
    }

    /// The table in GitHub-flavoured Markdown, cells escaped by `OutputEscaping.markdown`
    /// (`|`, newlines, HTML, emphasis…); right-aligned columns are marked `---:`.
    public func markdown() -> String {
        func line(_ cells: [String]) -> String {
            "| " + cells.map(OutputEscaping.markdown).joined(separator: " | ") + " |"
        }
        let rule = headers.indices.map { rightAligned.contains($0) ? "---:" : "---" }
        return ([line(headers), line(rule)] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}

/// CSV output (RFC 4180, `\r\n`-free: `\n` line ends), with spreadsheet formula injection
/// defused: user text starting with `= + - @`, tab, carriage return, NUL or a full-width
/// `＝ ＋ － ＠` gets a leading `'` (REFERENCE.md). Text is kept as stored (it is data); any
/// field with a control character or a Unicode line break is quoted, so no reader that splits
/// lines on U+0085, U+2028 or a vertical tab can see a new row.
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

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
