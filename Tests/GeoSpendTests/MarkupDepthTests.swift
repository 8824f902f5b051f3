import Foundation
import PropertyBased
import Testing

@testable import GeoSpend

/// Issue 35 (hardening round 2), item 13: OFX, camt.053 and GPX nested 50,000 deep (about
/// 350 KB) crashed with a stack overflow when the tree was freed, one nested release per level.
/// Now nesting past `MarkupParser.maximumDepth` is a `badFile` error with the file, the line and
/// the reason, and a tree is freed with a loop. (Without the fix these tests crash the run.)
@Suite struct MarkupDepthTests {
    static let depth = 50_000

    static func refusal(_ bytes: String, _ read: (String) throws -> Void) -> String? {
        do {
            try Fixtures.withFile(Array(bytes.utf8)) { try read($0) }
            return nil
        } catch { return "\(error)" }
    }

    static func readStatement(_ format: StatementFormat) -> (String) throws -> Void {
        { path in _ = try StatementReaders.read(format, path: path, displayName: "deep", options: StatementOptions()) { _ in } }
    }

    /// The reason and line of the first element past the limit: line 2 + the limit, each level
    /// on a line of its own after the prolog.
    static func expectRefused(_ message: String?, line: Int) {
        #expect(
            message == "deep:\(line): document: <x> nests deeper than 256 elements; statements and GPX files nest far less (is the file damaged?)",
            "\(message ?? "accepted")")
    }

    @Test func deepOFXIsRefusedWithItsLine() {
        let xml = "<?xml version=\"1.0\"?>\n<OFX>\n" + String(repeating: "<x>\n", count: Self.depth) + String(repeating: "</x>", count: Self.depth) + "</OFX>\n"
        // <OFX> is at depth 1 on line 2: the 256th <x> is depth 257, on line 2 + 256.
        Self.expectRefused(Self.refusal(xml, Self.readStatement(.ofx)), line: 258)
        let sgml = "OFXHEADER:100\nDATA:OFXSGML\n\n<OFX>\n" + String(repeating: "<x>\n", count: Self.depth) + "</OFX>\n"
        Self.expectRefused(Self.refusal(sgml, Self.readStatement(.ofx)), line: 260)
    }

    @Test func deepCamtIsRefusedWithItsLine() {
        let camt = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">

            """ + String(repeating: "<x>\n", count: Self.depth) + String(repeating: "</x>", count: Self.depth) + "</Document>\n"
        Self.expectRefused(Self.refusal(camt, Self.readStatement(.camt053)), line: 258)
    }

    @Test func deepGPXIsRefusedWithItsLine() {
        let gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\">\n" + String(repeating: "<x>\n", count: Self.depth) + String(repeating: "</x>", count: Self.depth) + "</gpx>\n"
        let message = Self.refusal(gpx) { path in _ = try RecordReaders.gpxStores(path: path, displayName: "deep") { _ in } }
        Self.expectRefused(message, line: 258)
    }

    /// Just under the limit still parses (the bound refuses only what no statement holds).
    @Test func nestingUpToTheLimitParses() throws {
        let depth = MarkupParser.maximumDepth
        let text = String(repeating: "<x>", count: depth) + "v" + String(repeating: "</x>", count: depth)
        var e = try MarkupParser.parse(text, sgml: false)
        for _ in 0..<depth { e = try #require(e.children.first) }
        #expect(e.text == "v")
        #expect(throws: MarkupParser.SyntaxError.self) { try MarkupParser.parse("<x>" + text + "</x>", sgml: false) }
    }

    /// Any run of start tags, end tags, self-closing tags, text and entities, in XML and in
    /// SGML mode: a tree or a syntax error with a line in the text, never a trap.
    @Test func anyTagSoupIsATreeOrAnError() async {
        let run = String(repeating: "<d>", count: 100)
        let piece = Boundary.pick(["<a>", "</a>", "<b>", "</b>", "<c/>", "x", "\n", "&amp;", "&#x0;", "<!-- c -->", "<", ">", run, "</d>"])
        await propertyCheck(count: 300, input: piece.array(of: 0...60), Gen.bool()) { pieces, sgml in
            let text = pieces.joined()
            do {
                _ = try MarkupParser.parse(text, sgml: sgml)
            } catch let error as MarkupParser.SyntaxError {
                let lines = text.count(where: { $0 == "\n" }) + 1
                #expect(error.line >= 1 && error.line <= lines, "\(error.line): \(error.reason)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// Well-formed documents of any depth, with text or without, in both modes: read when no
    /// deeper than the limit, else refused on the line of the first element past it.
    @Test func anyDepthIsReadUpToTheLimitAndRefusedPastIt() async {
        let depth = Boundary.pick([0, 1, 2, 255, 256, 257, 258, 300, 1_000, 5_000])
        await propertyCheck(count: 100, input: depth, Gen.bool(), Gen.bool()) { n, sgml, withText in
            let open = withText ? "<d>\n" : "<d>"
            let text = String(repeating: open, count: n) + (withText ? "" : "v") + String(repeating: "</d>", count: n)
            do {
                _ = try MarkupParser.parse(text, sgml: sgml && !withText)
                #expect(n <= MarkupParser.maximumDepth, "\(n) levels read")
            } catch let error as MarkupParser.SyntaxError {
                #expect(n > MarkupParser.maximumDepth, "\(n) levels: \(error.reason)")
                #expect(error.line == (withText ? MarkupParser.maximumDepth + 1 : 1) && error.reason.contains("nests deeper than 256"), "\(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// A tree far deeper than the stack allows is freed (built by hand: the parser refuses it),
    /// and an element kept elsewhere keeps its children.
    @Test func deepTreesAreFreedWithoutRecursion() {
        var kept: MarkupElement?
        do {
            let root = MarkupElement(name: "", line: 0)
            var last = root
            for n in 1...500_000 {
                let e = MarkupElement(name: "x", line: n)
                last.children.append(e)
                last = e
                if n == 10 { kept = e }
            }
            #expect(root.descendants("x").count == 500_000)
        }
        #expect(kept?.children.first?.line == 11)
    }
}
