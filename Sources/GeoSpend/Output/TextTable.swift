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
