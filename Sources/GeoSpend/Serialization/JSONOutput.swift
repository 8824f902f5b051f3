/// A JSON document built in key order, for output whose layout is a documented contract.
/// Numbers are written from `Double` with a fixed number of decimals, never NaN or Infinity.
public indirect enum JSONOutput: Sendable {
    case null
    case bool(Bool)
    case string(String)
    /// A number written with at most `decimals` decimals (trailing zeros dropped).
    case number(Double, decimals: Int)
    case integer(Int64)
    case array([JSONOutput])
    case object([(String, JSONOutput)])

    /// The document as text; `pretty` indents by two spaces.
    public func serialized(pretty: Bool = true) -> String {
        String(decoding: bytes(pretty: pretty), as: UTF8.self)
    }

    /// The document as UTF-8 bytes, then `terminator` (the CLI's final newline): what a
    /// response body needs, without the copies through `String`.
    public func bytes(pretty: Bool = true, terminator: StaticString = "") -> [UInt8] {
        // 4 KiB at a time: most documents are a few KiB, and the service makes one per request
        // (it was 64 KiB and as much slack, 128 KiB: glibc's threshold for a fresh mmap).
        let sink = ByteSink(descriptor: -1, capacity: 1 << 12)
        write(into: sink, indent: pretty ? 0 : nil)
        sink.ascii(terminator)
        return sink.bytes
    }

    /// Written through `ByteSink`, whose string escaping the map exports use too.
    private func write(into out: ByteSink, indent: Int?) {
        switch self {
        case .null: out.ascii("null")
        case .bool(let b): out.ascii(b ? "true" : "false")
        case .string(let s): out.jsonString(s)
        case .number(let d, let decimals):
            if d.isFinite { out.raw(formatDecimal(d, digits: decimals)) } else { out.ascii("null") }
        case .integer(let i): out.integer(i)
        case .array(let items):
            if items.isEmpty { out.ascii("[]"); return }
            out.byte(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.byte(UInt8(ascii: ",")) }
                JSONOutput.newline(out, indent.map { $0 + 1 })
                item.write(into: out, indent: indent.map { $0 + 1 })
            }
            JSONOutput.newline(out, indent)
            out.byte(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty { out.ascii("{}"); return }
            out.byte(UInt8(ascii: "{"))
            for (n, (key, value)) in members.enumerated() {
                if n > 0 { out.byte(UInt8(ascii: ",")) }
                JSONOutput.newline(out, indent.map { $0 + 1 })
                out.jsonString(key)
                out.ascii(indent == nil ? ":" : ": ")
                value.write(into: out, indent: indent.map { $0 + 1 })
            }
            JSONOutput.newline(out, indent)
            out.byte(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: ByteSink, _ indent: Int?) {
        guard let indent else { return }
        out.byte(UInt8(ascii: "\n"))
        for _ in 0..<indent { out.ascii("  ") }
    }
}

extension JSONOutput {
    /// A string or null.
    public static func text(_ s: String?) -> JSONOutput { s.map { .string($0) } ?? .null }
    /// A coordinate component: 7 decimals (≈ 1 cm), as the data's sources give them.
    static func degrees(_ d: Double) -> JSONOutput { .number(d, decimals: 7) }
    /// Metres to the millimetre.
    static func meters(_ m: Double) -> JSONOutput { .number(m, decimals: 3) }
}
