/// A strict RFC 4180 CSV reader that reports every problem instead of guessing.
///
/// Unlike the CSV libraries on this platform (which swallow every row after an unterminated
/// quote, see REFERENCE.md), it:
/// - reports an unterminated quote at the line where the quote opened;
/// - rejects a quote inside an unquoted field and text after a closing quote;
/// - rejects NUL bytes, invalid UTF-8 and fields over `maximumFieldBytes`;
/// - strips one UTF-8 byte-order mark at the start of the file;
/// - accepts `\n`, `\r\n` and a lone `\r` as line ends, and skips empty lines.
/// After a bad record it resumes at the next line, so one run lists every bad row.
/// Counting which fields a row has (ragged rows) is the caller's job: it knows the header.
///
/// ```swift
/// let reader = try CSVReader(path: "expenses.csv")
/// while let result = reader.next() {
///     switch result {
///     case .success(let row): print(row.line, row.fields)
///     case .failure(let error): print(error)
///     }
/// }
/// ```
public final class CSVReader {
    /// A record and the physical line it started on (1-based).
    public struct Row: Sendable, Equatable {
        public let line: Int
        public let fields: [String]
    }

    /// A record the reader could not read, with the 0-based index of the field at fault.
    public struct SyntaxError: Error, Sendable, Equatable {
        public let line: Int
        public let fieldIndex: Int
        public let reason: String
        /// True when reading cannot go on (an unterminated quote ate the rest of the file).
        public let isFatal: Bool
    }

    public static let maximumFieldBytes = 64 * 1024

    private let source: ByteSource
    private var line = 1
    private var finished = false
    private var field: [UInt8] = []

    public convenience init(path: String) throws(ImportError) {
        self.init(source: try ByteSource(path: path))
    }

    public convenience init(bytes: [UInt8]) {
        self.init(source: ByteSource(bytes: bytes))
    }

    private init(source: ByteSource) {
        self.source = source
        field.reserveCapacity(256)
        // One byte-order mark at the very start is an encoding label, not data.
        if source.peek() == 0xEF {
            _ = source.next()
            if source.peek() == 0xBB {
                _ = source.next()
                if source.peek() == 0xBF { _ = source.next(); return }
            }
            // Not a BOM after all: restart is impossible on a stream, so treat as invalid UTF-8.
            finished = false
            pendingError = SyntaxError(
                line: 1, fieldIndex: 0, reason: "starts with invalid UTF-8 bytes", isFatal: true)
        }
    }

    private var pendingError: SyntaxError?

    /// Bytes read so far (for progress bars).
    public var bytesRead: Int64 { source.bytesRead }

    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","),
        lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")

    /// The next record, a syntax error, or nil at the end of the input.
    public func next() -> Result<Row, SyntaxError>? {
        if let pendingError {
            self.pendingError = nil
            finished = true
            return .failure(pendingError)
        }
        guard !finished else { return nil }
        // Skip empty lines.
        while let b = source.peek(), b == Self.lf || b == Self.cr {
            _ = source.next()
            if b == Self.cr, source.peek() == Self.lf { _ = source.next() }
            line += 1
        }
        guard source.peek() != nil else {
            finished = true
            return nil
        }
        let startLine = line
        var fields: [String] = []
        var error: SyntaxError?
        func fail(_ reason: String) {
            if error == nil {
                error = SyntaxError(line: startLine, fieldIndex: fields.count, reason: reason, isFatal: false)
            }
        }
        while true {  // one field per iteration
            field.removeAll(keepingCapacity: true)
            var oversize = false
            var endOfRecord = false
            if source.peek() == Self.quote {
                _ = source.next()
                let quoteLine = line
                var closed = false
                while let b = source.next() {
                    if b == Self.quote {
                        if source.peek() == Self.quote {
                            _ = source.next()
                            append(Self.quote, &oversize)
                        } else {
                            closed = true
                            break
                        }
                    } else {
                        if b == Self.lf || (b == Self.cr && source.peek() != Self.lf) { line += 1 }
                        if b == 0 { fail("contains a NUL byte") }
                        append(b, &oversize)
                    }
                }
                guard closed else {
                    finished = true
                    return .failure(
                        SyntaxError(
                            line: quoteLine, fieldIndex: fields.count,
                            reason: "has an unterminated quoted field: the quote opened on line \(quoteLine) is never closed, so the rest of the file (\(line - quoteLine + 1) lines) would be swallowed",
                            isFatal: true))
                }
                // After the closing quote only a comma or a line end may follow.
                switch source.peek() {
                case nil: endOfRecord = true
                case Self.comma: _ = source.next()
                case Self.lf, Self.cr: endOfRecord = true
                default:
                    fail("has text after a closing quote; quote the whole field and double inner quotes (\"\")")
                    skipToLineEnd()
                    endOfRecord = true
                }
            } else {
                var endedByComma = false
                while let b = source.peek() {
                    if b == Self.comma { _ = source.next(); endedByComma = true; break }
                    if b == Self.lf || b == Self.cr { endOfRecord = true; break }
                    _ = source.next()
                    if b == Self.quote { fail("has a quote inside an unquoted field; quote the whole field and double inner quotes (\"\")") }
                    if b == 0 { fail("contains a NUL byte") }
                    append(b, &oversize)
                }
                if source.peek() == nil && !endedByComma { endOfRecord = true }
            }
            if oversize { fail("is longer than 64 KiB") }
            if error == nil {
                if let text = String(validating: field, as: UTF8.self) {
                    fields.append(text)
                } else {
                    fail("is not valid UTF-8")
                }
            } else {
                fields.append("")
            }
            if endOfRecord { break }
            // A comma just before the end of input or line means one more (empty) field.
            if source.peek() == nil { fields.append(""); break }
        }
        // Consume the line end.
        if let b = source.next() {
            if b == Self.cr, source.peek() == Self.lf { _ = source.next() }
            line += 1
        }
        if let error { return .failure(error) }
        return .success(Row(line: startLine, fields: fields))
    }

    @inline(__always)
    private func append(_ b: UInt8, _ oversize: inout Bool) {
        if field.count < Self.maximumFieldBytes { field.append(b) } else { oversize = true }
    }

    private func skipToLineEnd() {
        while let b = source.peek(), b != Self.lf, b != Self.cr { _ = source.next() }
    }
}
