/// Reads a GeoJSON FeatureCollection one feature at a time from a byte stream, so a store
/// import holds one feature, not the document: parsing a 154 MB file whole into `JSONValue`s
/// peaked at 1.48 GB (issue 22, item 13).
///
/// The top-level object is walked here; each member value and each feature is cut out of the
/// stream by bracket depth and parsed by `StrictJSONParser`, with the same rules (duplicate
/// keys, nesting limit, …) and byte offsets counted from the start of the file. Members may
/// come in any order, so "is this a FeatureCollection" is known only at the end: the caller
/// has then seen the features already and must throw the document error over them (an import
/// rolls back).
struct FeatureCollectionReader {
    /// The largest feature or member value, in bytes (a store is a few hundred).
    static let maximumValueBytes = 16 << 20

    private let source: ByteSource
    private var peeked: UInt8?
    /// Bytes consumed, `peeked` included.
    private var offset = 0
    /// The 0-based offset of the next byte not taken.
    private var position: Int { offset - (peeked == nil ? 0 : 1) }

    init(_ source: ByteSource) { self.source = source }

    /// What the walk found besides the features.
    struct Document {
        var type: JSONValue?
        /// Whether `features` was there and an array.
        var hasFeatureArray = false
    }

    /// Calls `body` with each element of `features` and its 0-based index.
    /// - Throws: `StrictJSONParser.SyntaxError` with the offset in the file, or what `body` throws.
    mutating func read(_ body: (JSONValue, Int) throws -> Void) throws -> Document {
        var document = Document()
        if peek() == 0xEF {  // one UTF-8 byte-order mark
            for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
                guard peek() == expected else { throw error("is not valid UTF-8") }
                _ = take()
            }
        }
        skipSpace()
        guard peek() == UInt8(ascii: "{") else {
            // Not an object: parsed whole for the error (bounded), no feature to read.
            let start = position
            let value = try Self.parse(try capture(), at: start, depth: 0)
            skipSpace()
            guard peek() == nil else { throw error("unexpected text after the JSON value") }
            _ = value
            return document
        }
        _ = take()
        var keys = Set<String>()
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            _ = take()
        } else {
            while true {
                skipSpace()
                guard peek() == UInt8(ascii: "\"") else { throw error("expected a quoted object key") }
                let keyStart = position
                guard case .string(let key) = try Self.parse(try capture(), at: keyStart, depth: 1) else {
                    throw error("expected a quoted object key")
                }
                guard keys.insert(key).inserted else {
                    throw StrictJSONParser.SyntaxError(offset: keyStart + 1, reason: "has the key \"\(key)\" twice")
                }
                skipSpace()
                guard take() == UInt8(ascii: ":") else { throw error("expected ':' after an object key", back: 1) }
                skipSpace()
                if key == "features", peek() == UInt8(ascii: "[") {
                    try readFeatures(body)
                    document.hasFeatureArray = true
                } else {
                    let start = position
                    let value = try Self.parse(try capture(), at: start, depth: 1)
                    if key == "type" { document.type = value }
                }
                skipSpace()
                guard let c = take() else { throw error("unexpected end of JSON inside an object") }
                if c == UInt8(ascii: ",") { continue }
                if c == UInt8(ascii: "}") { break }
                throw error("expected ',' or '}' in an object", back: 1)
            }
        }
        skipSpace()
        guard peek() == nil else { throw error("unexpected text after the JSON value") }
        return document
    }

    private mutating func readFeatures(_ body: (JSONValue, Int) throws -> Void) throws {
        _ = take()  // [
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            _ = take()
            return
        }
        var n = 0
        while true {
            skipSpace()
            let start = position
            try body(try Self.parse(try capture(), at: start, depth: 2), n)
            n += 1
            skipSpace()
            guard let c = take() else { throw error("unexpected end of JSON inside an array") }
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { return }
            throw error("expected ',' or ']' in an array", back: 1)
        }
    }

    private static func parse(_ bytes: [UInt8], at start: Int, depth: Int) throws(StrictJSONParser.SyntaxError) -> JSONValue {
        do { return try StrictJSONParser.parse(bytes, depth: depth) } catch {
            throw StrictJSONParser.SyntaxError(offset: start + error.offset, reason: error.reason)
        }
    }

    /// The bytes of the value that starts here: up to its closing bracket or quote (strings and
    /// escapes skipped), or for a number or literal up to the next delimiter. Whether they are
    /// valid JSON is `StrictJSONParser`'s to say.
    private mutating func capture() throws(StrictJSONParser.SyntaxError) -> [UInt8] {
        var out: [UInt8] = []
        guard let first = peek() else { throw error("unexpected end of JSON") }
        func append(_ b: UInt8) throws(StrictJSONParser.SyntaxError) {
            guard out.count < Self.maximumValueBytes else {
                throw error("has a value longer than \(Self.maximumValueBytes >> 20) MiB (a feature of a store is a few hundred bytes)")
            }
            out.append(b)
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") {
            var depth = 0, inString = false, escaped = false
            while let b = take() {
                try append(b)
                if inString {
                    if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 0 { break }
                    }
                    continue
                }
                switch b {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                if depth <= 0 && !inString { break }
            }
        } else {
            while let b = peek(), ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(b) {
                try append(b)
                _ = take()
            }
            // A delimiter where a value belongs: the parser's own message for it.
            if out.isEmpty { _ = try Self.parse([first], at: position, depth: 0) }
        }
        return out
    }

    private func error(_ reason: String, back: Int = 0) -> StrictJSONParser.SyntaxError {
        StrictJSONParser.SyntaxError(offset: position - back + 1, reason: reason)
    }

    private mutating func peek() -> UInt8? {
        if peeked == nil, let b = source.next() {
            peeked = b
            offset += 1
        }
        return peeked
    }

    private mutating func take() -> UInt8? {
        let b = peek()
        peeked = nil
        return b
    }

    private mutating func skipSpace() {
        while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { peeked = nil }
    }
}
