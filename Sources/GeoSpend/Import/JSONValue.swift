/// A JSON value as read by `StrictJSONParser`: numbers keep their literal text so money and
/// coordinates are never rounded through `Double` before they are validated.
///
/// Not `indirect`: arrays and objects are already boxed by their storage, and boxing every
/// string and number too cost an allocation per value (a store import parses ~20 per feature).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in document order; keys are unique (the parser rejects duplicates).
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A short name of the value's type for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// Parses RFC 8259 JSON strictly: duplicate object keys, NaN/Infinity, comments, trailing commas,
/// leading zeros, unpaired surrogates and control characters in strings are errors.
/// (`JSONDecoder` keeps the first of duplicate keys and Python the last: docs/MEASUREMENTS.md
/// § Reading CSV and JSON.)
public struct StrictJSONParser {
    public struct SyntaxError: Error, Sendable, Equatable {
        /// 1-based byte offset into the parsed text.
        public let offset: Int
        public let reason: String
    }

    /// The bytes being parsed, borrowed for the length of a `parse` call (no bounds checks in
    /// a release build, no copy of a feature cut out of `FeatureCollectionReader`'s window).
    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0
    static let maximumDepth = 64

    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        try parse(bytes, depth: 0)
    }

    /// Parses a value found `depth` levels down a document read piece by piece
    /// (`FeatureCollectionReader`), so the nesting limit stays the document's.
    static func parse(_ bytes: [UInt8], depth: Int) throws(SyntaxError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { bytes in
            Result { () throws(SyntaxError) in try parse(bytes, depth: depth) }
        }
        return try result.get()
    }

    /// Parses bytes that stay valid for the call.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int) throws(SyntaxError) -> JSONValue {
        var p = StrictJSONParser(b: bytes)
        p.depth = depth
        p.skipSpace()
        let v = try p.value()
        p.skipSpace()
        guard p.i == bytes.count else { throw p.error("unexpected text after the JSON value") }
        return v
    }

    private init(b: UnsafeBufferPointer<UInt8>) { self.b = b }

    private func error(_ reason: String) -> SyntaxError { SyntaxError(offset: i + 1, reason: reason) }

    private mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    private mutating func value() throws(SyntaxError) -> JSONValue {
        guard i < b.count else { throw error("unexpected end of JSON") }
        switch b[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default:
            throw error("expected a JSON value (NaN, Infinity and comments are not JSON)")
        }
    }

    private mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count, UnsafeBufferPointer(rebasing: b[i..<(i + n)]).elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: n))
        else { throw error("expected \(word)") }
        i += n
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nests deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object() throws(SyntaxError) -> JSONValue {
        try enter()
        i += 1
        var members: [(key: String, value: JSONValue)] = []
        // Duplicates: a look along the members while there are few (a feature's objects have
        // 2–10), a set past that; both compare keys as `String ==` does.
        var keys: Set<String>?
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw error("expected a quoted object key") }
            let keyOffset = i
            let key = try string()
            let duplicate: Bool
            if keys != nil {
                duplicate = !keys!.insert(key).inserted
            } else if members.count < 16 {
                duplicate = members.contains { $0.key == key }
            } else {
                keys = Set(members.map(\.key))
                duplicate = !keys!.insert(key).inserted
            }
            guard !duplicate else {
                throw SyntaxError(offset: keyOffset + 1, reason: "has the key \"\(key)\" twice")
            }
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
            i += 1
            skipSpace()
            members.append((key, try value()))
            skipSpace()
            guard i < b.count else { throw error("unexpected end of JSON inside an object") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; break }
            throw error("expected ',' or '}' in an object")
        }
        depth -= 1
        return .object(members)
    }

    private mutating func array() throws(SyntaxError) -> JSONValue {
        try enter()
        i += 1
        var items: [JSONValue] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard i < b.count else { throw error("unexpected end of JSON inside an array") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; break }
            throw error("expected ',' or ']' in an array")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func number() throws(SyntaxError) -> String {
        let start = i
        func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count, isDigit(b[i]) else { throw error("expected a digit") }
        if b[i] == UInt8(ascii: "0") {
            i += 1
            if i < b.count, isDigit(b[i]) { throw error("has a number with a leading zero") }
        } else {
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard i < b.count, isDigit(b[i]) else { throw error("expected a digit after '.'") }
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, isDigit(b[i]) else { throw error("expected a digit in the exponent") }
            while i < b.count, isDigit(b[i]) { i += 1 }
        }
        return String(decoding: b[start..<i], as: UTF8.self)
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard i + 4 <= b.count else { throw error("has a short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw error("has a bad \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    private mutating func string() throws(SyntaxError) -> String {
        // Most strings have no escape: validated straight from the input, no copy byte by byte.
        // ASCII ones skip `String(validating:)`, whose generic entry point cost ~330 instructions a
        // call in metadata look-ups (18 strings a feature).
        var j = i + 1
        var high: UInt8 = 0
        while j < b.count {
            let c = b[j]
            if c == UInt8(ascii: "\"") {
                let bytes = UnsafeBufferPointer(rebasing: b[(i + 1)..<j])
                i = j + 1
                if high < 0x80 { return String(decoding: bytes, as: UTF8.self) }
                guard let s = String(validating: bytes, as: UTF8.self) else { throw error("is not valid UTF-8") }
                return s
            }
            if c < 0x20 || c == UInt8(ascii: "\\") { break }  // the byte-by-byte path says what is wrong
            high |= c
            j += 1
        }
        return try escapedString()
    }

    private mutating func escapedString() throws(SyntaxError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard i < b.count else { throw error("has an unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw error(c == 0 ? "contains a NUL byte" : "has a control character in a string; escape it") }
            if c == UInt8(ascii: "\\") {
                i += 1
                guard i < b.count else { throw error("has an unterminated string") }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard i + 6 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                            throw error("has an unpaired surrogate escape")
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("has an unpaired surrogate escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("has an unpaired surrogate escape")
                    }
                    if scalar == 0 { throw error("contains a NUL character (\\u0000)") }
                    guard let u = Unicode.Scalar(scalar) else { throw error("has a bad \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw error("has an unknown escape \\\(Character(Unicode.Scalar(e)))")
                }
            } else {
                out.append(c)
                i += 1
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw error("is not valid UTF-8") }
        return s
    }
}
