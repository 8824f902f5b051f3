/// Reads a GeoJSON FeatureCollection one feature at a time from a byte stream, so a store
/// import holds one feature, not the document: parsing a 154 MB file whole into `JSONValue`s
/// peaked at 1.48 GB in the attacker's run, 1,256 MiB in ours (issue 22, item 13; now 284 MiB).
///
/// The top-level object is walked here; each member value and each feature is cut out of the
/// stream by bracket depth and parsed by `StrictJSONParser`, with the same rules (duplicate
/// keys, nesting limit, …) and byte offsets counted from the start of the file. The file is
/// read into a window of a few MiB that is scanned in place and parsed from without a copy:
/// a byte-by-byte read with an array built per feature made the import slower than parsing the
/// whole document (release, 154 MB: 10.1 s against 9.2 s). Members may
/// come in any order, so "is this a FeatureCollection" is known only at the end: the caller
/// has then seen the features already and must throw the document error over them (an import
/// rolls back).
struct FeatureCollectionReader {
    /// The largest feature or member value, in bytes (a store is a few hundred).
    static let maximumValueBytes = 16 << 20

    private let source: ByteSource
    /// The window: `window[0..<end]` holds the file's bytes from offset `base`; `next` is the
    /// first not taken. Grows only for a value longer than it (up to `maximumValueBytes`).
    private var window: [UInt8]
    private var end = 0
    private var next = 0
    private var base = 0
    private var exhausted = false
    private let limit: Int
    /// The 0-based offset in the file of the next byte not taken.
    private var position: Int { base + next }

    /// `windowBytes` and `limit` are for tests that put every boundary between two reads and
    /// refuse a value without 16 MiB of them.
    init(_ source: ByteSource, windowBytes: Int = 4 << 20, limit: Int = Self.maximumValueBytes) {
        self.source = source
        self.limit = limit
        window = [UInt8](repeating: 0, count: max(1, windowBytes))
    }

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
        try skipToTheValue()
        guard peek() == UInt8(ascii: "{") else {
            // Not an object: parsed whole for the error (bounded), no feature to read.
            _ = try parseValue(depth: 0)
            try expectEnd()
            return document
        }
        try forEachMember { reader, key in
            if key == "features", reader.peek() == UInt8(ascii: "[") {
                try reader.readFeatures(body)
                document.hasFeatureArray = true
            } else {
                let value = try reader.parseValue(depth: 1)
                if key == "type" { document.type = value }
            }
        }
        try expectEnd()
        return document
    }

    /// Walks any top-level JSON value, streaming arrays without holding them: a top-level array's
    /// elements go to `body` with the key `""`; for a top-level object, the elements of each member
    /// named in `keys` whose value is an array go to `body(key, element, index)`, and the other
    /// members are returned parsed (bounded by `maximumValueBytes` each). Location histories
    /// (`locations`, `semanticSegments`, `rawSignals`, `timelineObjects`) are read through it.
    /// - Returns: the members not streamed, in document order (empty for a top-level array).
    /// - Throws: `StrictJSONParser.SyntaxError` with the offset in the file, or what `body` throws;
    ///   a top-level value that is neither an object nor an array is a syntax error.
    mutating func readArrays(
        named keys: Set<String>, _ body: (String, JSONValue, Int) throws -> Void
    ) throws -> [(key: String, value: JSONValue)] {
        try skipToTheValue()
        var members: [(key: String, value: JSONValue)] = []
        if peek() == UInt8(ascii: "[") {
            try readFeatures { try body("", $0, $1) }
        } else if peek() == UInt8(ascii: "{") {
            try forEachMember { reader, key in
                if keys.contains(key), reader.peek() == UInt8(ascii: "[") {
                    try reader.readFeatures { try body(key, $0, $1) }
                } else {
                    members.append((key, try reader.parseValue(depth: 1)))
                }
            }
        } else {
            _ = try parseValue(depth: 0)
            throw error("expected a JSON object or array at the top")
        }
        try expectEnd()
        return members
    }

    /// Past one UTF-8 byte-order mark, if there, and white space.
    private mutating func skipToTheValue() throws {
        if peek() == 0xEF {
            for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
                guard peek() == expected else { throw error("is not valid UTF-8") }
                _ = take()
            }
        }
        skipSpace()
    }

    private mutating func expectEnd() throws {
        skipSpace()
        guard peek() == nil else { throw error("unexpected text after the JSON value") }
    }

    /// The top-level object at `{`: each key (once only) and then `value`, which reads the
    /// member's value from the reader it is given.
    private mutating func forEachMember(_ value: (inout Self, String) throws -> Void) throws {
        _ = take()  // {
        var seen = Set<String>()
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            _ = take()
            return
        }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a quoted object key") }
            let keyStart = position
            guard case .string(let key) = try parseValue(depth: 1) else {
                throw error("expected a quoted object key")
            }
            guard seen.insert(key).inserted else {
                throw StrictJSONParser.SyntaxError(offset: keyStart + 1, reason: "has the key \"\(key)\" twice")
            }
            skipSpace()
            guard take() == UInt8(ascii: ":") else { throw error("expected ':' after an object key", back: 1) }
            skipSpace()
            try value(&self, key)
            skipSpace()
            guard let c = take() else { throw error("unexpected end of JSON inside an object") }
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "}") { return }
            throw error("expected ',' or '}' in an object", back: 1)
        }
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
            try body(try parseValue(depth: 2), n)
            n += 1
            skipSpace()
            guard let c = take() else { throw error("unexpected end of JSON inside an array") }
            if c == UInt8(ascii: ",") { continue }
            if c == UInt8(ascii: "]") { return }
            throw error("expected ',' or ']' in an array", back: 1)
        }
    }

    /// Takes the value that starts here and parses it where it lies in the window, its error
    /// offsets moved to the file's.
    private mutating func parseValue(depth: Int) throws(StrictJSONParser.SyntaxError) -> JSONValue {
        let start = position
        let range = try capture()
        let result = window.withUnsafeBufferPointer { w in
            Result { () throws(StrictJSONParser.SyntaxError) in
                try StrictJSONParser.parse(UnsafeBufferPointer(rebasing: w[range]), depth: depth)
            }
        }
        do { return try result.get() } catch {
            throw StrictJSONParser.SyntaxError(offset: start + error.offset, reason: error.reason)
        }
    }

    /// Takes the bytes of the value that starts here and says where they are in the window: up
    /// to its closing bracket or quote (strings and escapes skipped), or for a number or literal
    /// up to the next delimiter. Whether they are valid JSON is `StrictJSONParser`'s to say.
    private mutating func capture() throws(StrictJSONParser.SyntaxError) -> Range<Int> {
        guard let first = peek() else { throw error("unexpected end of JSON") }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") {
            // Scanned a window at a time; the state carries over a refill.
            var depth = 0, inString = false, escaped = false
            var i = next
            while true {
                let scanEnd = end
                let (stop, closed) = window.withUnsafeBufferPointer { w -> (Int, Bool) in
                    var i = i
                    while i < scanEnd {
                        let b = w[i]
                        i += 1
                        if inString {
                            if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") {
                                inString = false
                                if depth == 0 { return (i, true) }
                            }
                            continue
                        }
                        switch b {
                        case UInt8(ascii: "\""): inString = true
                        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                        case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                        default: break
                        }
                        if depth <= 0 && !inString { return (i, true) }
                    }
                    return (i, false)
                }
                let taken = stop - next
                if taken > limit {
                    // The byte past the limit was taken: offsets as when it was read singly.
                    next += limit + 1
                    throw error("has a value longer than \(Self.maximumValueBytes >> 20) MiB (a feature of a store is a few hundred bytes)")
                }
                if closed {
                    defer { next = stop }
                    return next..<stop
                }
                // Refilling moves the value to the window's start; at the end of the file it
                // is what there is, for the parser's error.
                let before = next
                let more = refill()
                i = stop - (before - next)
                if !more {
                    defer { next = end }
                    return next..<end
                }
            }
        } else {
            var i = next
            while true {
                let scanEnd = end
                let stop = window.withUnsafeBufferPointer { w -> Int in
                    var i = i
                    while i < scanEnd {
                        switch w[i] {
                        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return i
                        default: i += 1
                        }
                    }
                    return i
                }
                if stop - next > limit {
                    next += limit
                    throw error("has a value longer than \(Self.maximumValueBytes >> 20) MiB (a feature of a store is a few hundred bytes)")
                }
                var last = stop
                if stop == end {
                    let before = next
                    let more = refill()
                    last = stop - (before - next)
                    if more {
                        i = last
                        continue
                    }
                }
                // A delimiter where a value belongs: the parser's own message for it.
                if last == next { _ = try Self.parseOne(first, at: position) }
                defer { next = last }
                return next..<last
            }
        }
    }

    private static func parseOne(_ byte: UInt8, at start: Int) throws(StrictJSONParser.SyntaxError) -> JSONValue {
        do { return try StrictJSONParser.parse([byte], depth: 0) } catch {
            throw StrictJSONParser.SyntaxError(offset: start + error.offset, reason: error.reason)
        }
    }

    /// Reads more of the file after the bytes not yet taken, which move to the window's start
    /// (a value being captured is not taken yet). Doubles the window when they fill it.
    /// - Returns: false at the end of the file.
    private mutating func refill() -> Bool {
        guard !exhausted else { return false }
        if next > 0 {
            let (from, kept) = (next, end - next)
            window.withUnsafeMutableBufferPointer { w in
                if kept > 0 { w.baseAddress!.update(from: w.baseAddress! + from, count: kept) }
            }
            base += next
            end = kept
            next = 0
        }
        if end == window.count { window.append(contentsOf: repeatElement(0, count: window.count)) }
        let (source, free) = (source, end)
        let n = window.withUnsafeMutableBufferPointer { w in source.fill(UnsafeMutableBufferPointer(rebasing: w[free...])) }
        if n == 0 {
            exhausted = true
            return false
        }
        end += n
        return true
    }

    private func error(_ reason: String, back: Int = 0) -> StrictJSONParser.SyntaxError {
        StrictJSONParser.SyntaxError(offset: position - back + 1, reason: reason)
    }

    private mutating func peek() -> UInt8? {
        if next == end, !refill() { return nil }
        return window[next]
    }

    private mutating func take() -> UInt8? {
        let b = peek()
        if b != nil { next += 1 }
        return b
    }

    private mutating func skipSpace() {
        while true {
            while next < end {
                let b = window[next]
                guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { return }
                next += 1
            }
            if !refill() { return }
        }
    }
}
