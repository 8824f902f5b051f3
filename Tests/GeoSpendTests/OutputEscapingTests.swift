import GeoSpend
import Testing

/// Hostile stored text in every people-facing format (issue 22, item 12): no value adds a row or
/// a column, carries live HTML or Markdown, or hides characters that make two values look alike.
@Suite struct OutputEscapingTests {
    static let hostile = [
        "<img src=x onerror=alert(1)>", "</script><script>alert(1)</script>", "a\n| injected | row |", "x\u{202E}gnp.exe",
        "bob\u{200B}", "bob\u{00A0}", "bob\u{2028}next", "tab\there", "*bold* [link](http://x) `code` # h & &lt;",
    ]

    @Test func lookAlikesLookDifferentInTextTables() {
        let ids = ["bob", "bob\u{200B}", "bob\u{00A0}", "bob ", " bob", "bob\u{2060}", "bob\u{3164}", "bob\\u{200B}"]
        let out = TextTable(headers: ["user", "expenses"], rows: ids.map { [$0, "1"] }, rightAligned: [1]).rendered()
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.count == 2 + ids.count)
        let shown = lines.dropFirst(2).map { $0.split(separator: " ").first.map(String.init) ?? "" }
        #expect(Set(shown).count == ids.count, "\(shown)")
        #expect(shown.contains("bob\\u{200B}") && shown.contains("bob\\\\u{200B}"))  // a typed escape is not the real one
        for c in out.unicodeScalars { #expect(c == "\n" || (c.value >= 0x20 && c.value < 0x7F), "raw U+\(String(c.value, radix: 16))") }
    }

    @Test func textTablesKeepTheirShape() {
        let out = TextTable(headers: ["name", "n"], rows: Self.hostile.map { [$0, "1"] }).rendered()
        #expect(out.split(separator: "\n").count == 2 + Self.hostile.count)
        #expect(!out.unicodeScalars.contains { ["\u{202E}", "\u{200B}", "\u{00A0}", "\u{2028}", "\t"].contains($0) })
        #expect(out.contains("x\\u{202E}gnp.exe"))
    }

    @Test func markdownTablesKeepRowsAndColumnsAndCarryNoHTML() {
        let md = TextTable(headers: ["name", "category", "n"], rows: Self.hostile.map { [$0, $0, "1"] }).markdown()
        let lines = md.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 2 + Self.hostile.count)
        for line in lines {
            // Cell boundaries: `|` not preceded by an odd run of backslashes.
            var bars = 0, backslashes = 0
            for c in line {
                if c == "|", backslashes % 2 == 0 { bars += 1 }
                backslashes = c == "\\" ? backslashes + 1 : 0
            }
            #expect(bars == 4, "\(line)")
        }
        // No Markdown/HTML syntax character comes through unescaped: no tag, entity, code span, link.
        var escaped = false
        for c in md {
            if "<>&`[]*_".contains(c) { #expect(escaped, "unescaped \(c)") }
            escaped = c == "\\" && !escaped
        }
        #expect(md.contains("\\<img src=x onerror=alert(1)\\>") && md.contains("a\\\\u{A}\\| injected \\| row \\|"))
    }

    @Test func htmlEscapesQuotesToo() {
        for s in Self.hostile {
            let h = OutputEscaping.html(s)
            #expect(!h.contains("<") && !h.contains(">") && !h.contains("\"") && !h.contains("'") && !h.contains("\u{202E}"))
        }
        #expect(OutputEscaping.html("a'b\"c&d") == "a&#39;b&quot;c&amp;d")
        #expect(OutputEscaping.html("Café ☕️ 5 €") == "Café ☕️ 5 €")  // ordinary text, emoji variation selector kept
    }

    @Test func csvQuotesEveryLineBreakAndDefusesFormulas() {
        let csv = CSVTable(headers: ["name"], rows: [["a\u{2028}b"], ["a\u{85}b"], ["a\u{0B}b"], ["\r=1+1"], ["\u{FF1D}SUM(A1)"], ["plain"]],
                           textColumns: [0]).rendered()
        #expect(csv == "name\n\"a\u{2028}b\"\n\"a\u{85}b\"\n\"a\u{0B}b\"\n\"'\r=1+1\"\n'\u{FF1D}SUM(A1)\nplain\n")
    }
}
