/// One element of an OFX or ISO 20022 document: its name (namespace prefix dropped), attributes,
/// the text directly inside it, its children, and the line its start tag is on (for errors).
final class MarkupElement {
    let name: String
    let line: Int
    var attributes: [String: String]
    var text = ""
    var children: [MarkupElement] = []

    init(name: String, line: Int, attributes: [String: String] = [:]) {
        self.name = name
        self.line = line
        self.attributes = attributes
    }

    /// Frees the subtree with a loop: the default release is one nested call per level, and a
    /// document 50,000 levels deep overflowed the stack that way (issue 35, item 13). A child
    /// still referenced elsewhere keeps its children.
    deinit {
        var pending = children
        children = []
        while var element = pending.popLast() {
            guard isKnownUniquelyReferenced(&element) else { continue }
            pending.append(contentsOf: element.children)
            element.children = []
        }
    }

    func child(_ name: String) -> MarkupElement? { children.first { $0.name == name } }
    func children(_ name: String) -> [MarkupElement] { children.filter { $0.name == name } }

    /// The trimmed text at a path of child names (`value("Amt")`, `value("BookgDt", "Dt")`);
    /// nil when an element is missing or the text is empty.
    func value(_ path: String...) -> String? {
        var e: MarkupElement? = self
        for name in path { e = e?.child(name) }
        guard let t = e?.text.trimmedWhitespace, !t.isEmpty else { return nil }
        return t
    }

    /// Every element below this one with `name`, in document order (walked with a stack of
    /// its own, not by recursion).
    func descendants(_ name: String) -> [MarkupElement] {
        var found: [MarkupElement] = []
        var pending: [MarkupElement] = children.reversed()
        while let c = pending.popLast() {
            if c.name == name { found.append(c) }
            pending.append(contentsOf: c.children.reversed())
        }
        return found
    }
}

/// A tokenizer for XML and for OFX 1.x's SGML, building a `MarkupElement` tree.
///
/// One tokenizer for both: OFX 1.x leaves the end tags of elements that hold data out
/// (`<TRNAMT>-12.50` then `<FITID>…`), so in `sgml` mode an element that has text is closed by
/// the next start tag or by an end tag of an enclosing element. In XML mode every element must be
/// closed in order. Comments, processing instructions and `<!DOCTYPE>` are skipped; text outside
/// the root (an OFX 1.x header) is ignored.
enum MarkupParser {
    struct SyntaxError: Error {
        let line: Int
        let reason: String
    }

    /// How deep elements may nest. Real statements and GPX files stay under 15 levels (camt.053's
    /// deepest amount path is 10); 50,000 levels overflowed the stack (issue 35, item 13).
    static let maximumDepth = 256

    /// - Returns: a nameless element holding the document's top-level elements.
    static func parse(_ text: String, sgml: Bool) throws(SyntaxError) -> MarkupElement {
        let b = Array(text.utf8)
        let root = MarkupElement(name: "", line: 0)
        var stack = [root]
        var line = 1
        var i = 0

        func count(_ range: Range<Int>) { for k in range where b[k] == UInt8(ascii: "\n") { line += 1 } }
        func find(_ needle: String, from: Int) -> Int? {
            let n = Array(needle.utf8)
            var k = from
            while k + n.count <= b.count {
                if b[k] == n[0] && Array(b[k..<(k + n.count)]) == n { return k }
                k += 1
            }
            return nil
        }
        /// SGML: an element with text and no children is a data element whose end tag was left out.
        func closeOpenDataElement() {
            guard sgml, stack.count > 1, let top = stack.last, top.children.isEmpty,
                !top.text.trimmedWhitespace.isEmpty
            else { return }
            stack.removeLast()
        }

        while i < b.count {
            if b[i] != UInt8(ascii: "<") {
                var j = i
                while j < b.count && b[j] != UInt8(ascii: "<") { j += 1 }
                let startLine = line
                count(i..<j)
                if stack.count > 1 {
                    stack.last!.text += try decodeEntities(String(decoding: b[i..<j], as: UTF8.self), sgml: sgml, line: startLine)
                }
                i = j
                continue
            }
            let rest = b[i...]
            if rest.starts(with: Array("<!--".utf8)) {
                guard let end = find("-->", from: i + 4) else { throw SyntaxError(line: line, reason: "a comment (<!--) is never closed") }
                count(i..<end)
                i = end + 3
                continue
            }
            if rest.starts(with: Array("<![CDATA[".utf8)) {
                guard let end = find("]]>", from: i + 9) else { throw SyntaxError(line: line, reason: "a CDATA section is never closed") }
                if stack.count > 1 { stack.last!.text += String(decoding: b[(i + 9)..<end], as: UTF8.self) }
                count(i..<end)
                i = end + 3
                continue
            }
            if rest.starts(with: Array("<?".utf8)) || rest.starts(with: Array("<!".utf8)) {
                let close = rest.starts(with: Array("<?".utf8)) ? "?>" : ">"
                guard let end = find(close, from: i + 2) else { throw SyntaxError(line: line, reason: "a declaration (<? or <!) is never closed") }
                count(i..<end)
                i = end + close.utf8.count
                continue
            }
            guard let end = find(">", from: i + 1) else { throw SyntaxError(line: line, reason: "a tag (<) is never closed with >") }
            let tagLine = line
            let inner = String(decoding: b[(i + 1)..<end], as: UTF8.self)
            count(i..<end)
            i = end + 1
            if inner.hasPrefix("/") {
                let name = localName(inner.dropFirst().trimmedWhitespace)
                guard stack.count > 1 else { throw SyntaxError(line: tagLine, reason: "</\(name)> closes an element that is not open") }
                if sgml {
                    guard let k = stack.lastIndex(where: { $0.name == name }), k > 0 else {
                        throw SyntaxError(line: tagLine, reason: "</\(name)> closes an element that is not open")
                    }
                    stack.removeSubrange(k...)
                } else {
                    let top = stack.last!
                    guard top.name == name else {
                        throw SyntaxError(line: tagLine, reason: "</\(name)> where </\(top.name)> (opened on line \(top.line)) was expected")
                    }
                    stack.removeLast()
                }
                continue
            }
            var body = Substring(inner)
            let selfClosing = body.hasSuffix("/")
            if selfClosing { body = body.dropLast() }
            let (rawName, attributes) = try tag(body, line: tagLine, sgml: sgml)
            guard !rawName.isEmpty else { throw SyntaxError(line: tagLine, reason: "a tag has no name") }
            closeOpenDataElement()
            let element = MarkupElement(name: localName(rawName), line: tagLine, attributes: attributes)
            // The stack holds the nameless root too: its count is the new element's depth.
            guard stack.count <= maximumDepth else {
                throw SyntaxError(
                    line: tagLine,
                    reason: "<\(element.name)> nests deeper than \(maximumDepth) elements; statements and GPX files nest far less (is the file damaged?)")
            }
            stack.last!.children.append(element)
            if !selfClosing { stack.append(element) }
        }
        closeOpenDataElement()
        if stack.count > 1 {
            let open = stack.last!
            throw SyntaxError(line: open.line, reason: "<\(open.name)> is never closed (the file ends first)")
        }
        return root
    }

    /// `ns:Name` → `Name`: elements are matched by local name; the readers check the namespace.
    private static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    /// A start tag's name and attributes (`name="value"` or `name='value'`).
    private static func tag(_ s: Substring, line: Int, sgml: Bool) throws(SyntaxError) -> (String, [String: String]) {
        let chars = Array(s)
        var i = 0
        func skipSpace() { while i < chars.count && chars[i].isWhitespace { i += 1 } }
        func word() -> String {
            let start = i
            while i < chars.count && !chars[i].isWhitespace && chars[i] != "=" { i += 1 }
            return String(chars[start..<i])
        }
        let name = word()
        var attributes: [String: String] = [:]
        while true {
            skipSpace()
            guard i < chars.count else { break }
            let key = word()
            skipSpace()
            guard i < chars.count, chars[i] == "=" else {
                throw SyntaxError(line: line, reason: "attribute \(key) of <\(name)> has no value")
            }
            i += 1
            skipSpace()
            guard i < chars.count, chars[i] == "\"" || chars[i] == "'" else {
                throw SyntaxError(line: line, reason: "attribute \(key) of <\(name)> is not quoted")
            }
            let quote = chars[i]
            i += 1
            let start = i
            while i < chars.count && chars[i] != quote { i += 1 }
            guard i < chars.count else { throw SyntaxError(line: line, reason: "attribute \(key) of <\(name)> has no closing quote") }
            attributes[key] = try decodeEntities(String(chars[start..<i]), sgml: sgml, line: line)
            i += 1
        }
        return (name, attributes)
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;` and numeric references. In SGML an
    /// `&` that starts no known entity stays as it is (banks write `AT&T` unescaped); in XML it
    /// is an error.
    static func decodeEntities(_ s: String, sgml: Bool, line: Int) throws(SyntaxError) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        var rest = Substring(s)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(12).firstIndex(of: ";") {
                let entity = after[..<semi]
                var scalar: Unicode.Scalar?
                switch entity {
                case "amp": scalar = "&"
                case "lt": scalar = "<"
                case "gt": scalar = ">"
                case "quot": scalar = "\""
                case "apos": scalar = "'"
                case "nbsp": scalar = "\u{A0}"
                default:
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                        scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                    } else if entity.hasPrefix("#") {
                        scalar = UInt32(entity.dropFirst()).flatMap(Unicode.Scalar.init)
                    }
                }
                if let scalar {
                    out.unicodeScalars.append(scalar)
                    rest = after[after.index(after: semi)...]
                    continue
                }
            }
            guard sgml else {
                throw SyntaxError(line: line, reason: "\"&\" starts no known entity; write &amp; for a literal ampersand")
            }
            out += "&"
            rest = after
        }
        return out + rest
    }
}
