/// A strict RFC 4180 CSV reader that reports every problem instead of guessing.
///
/// Unlike the CSV libraries on this platform (which swallow every row after an unterminated
/// quote: docs/MEASUREMENTS.md § Reading CSV and JSON), it:
/// - reports an unterminated quote at the line where the quote opened;
/// - rejects a quote inside an unquoted field and text after a closing quote;
/// - rejects NUL bytes, invalid UTF-8 and fields over `maximumFieldBytes`;
/// - strips one UTF-8 byte-order mark at the start of the file;
/// - accepts `\n`, `\r\n` and a lone `\r` as line ends, and skips empty lines;
/// - separates fields with a comma, or the `delimiter` given (`;`, tab, `|`).
/// After a bad record it resumes at the next line, so one run lists every bad row.
/// Counting which fields a row has (ragged rows) is the caller's job: it knows the header.
/// The file is memory-mapped and scanned in place.
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

    private let file: MappedFile
    private var position = 0
    private var line = 1
    private var finished = false
    private var scratch: [UInt8] = []
    private let comma: UInt8
    /// A file in another delimiter is told to try `--delimiter` (commands that have it).
    public var suggestsDelimiterOption = false

    public convenience init(path: String, delimiter: UInt8 = UInt8(ascii: ",")) throws(ImportError) {
        self.init(file: try MappedFile(path: path), delimiter: delimiter)
    }

    public convenience init(bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ",")) {
        self.init(file: MappedFile(bytes: bytes), delimiter: delimiter)
    }

    private init(file: MappedFile, delimiter: UInt8) {
        self.file = file
        self.comma = delimiter
        let b = file.bytes
        // One byte-order mark at the very start is an encoding label, not data.
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { position = 3 }
    }

    /// Bytes read so far (for progress bars).
    public var bytesRead: Int64 { Int64(position) }

    private static let quote = UInt8(ascii: "\""),
        lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
    /// Delimiters a file may use instead of the one given, by name and `--delimiter` value.
    private static let otherDelimiters: [UInt8: (name: String, option: String)] = [
        UInt8(ascii: ","): ("comma", "','"), UInt8(ascii: ";"): ("semicolon", "';'"),
        UInt8(ascii: "\t"): ("tab", "tab"), UInt8(ascii: "|"): ("bar", "'|'"),
    ]

    /// The next record, a syntax error, or nil at the end of the input.
    public func next() -> Result<Row, SyntaxError>? {
        guard !finished else { return nil }
        let b = file.bytes
        let end = b.count
        var i = position
        var line = self.line
        defer {
            position = i
            self.line = line
        }
        // Skip empty lines.
        while i < end, b[i] == Self.lf || b[i] == Self.cr {
            if b[i] == Self.cr, i + 1 < end, b[i + 1] == Self.lf { i += 1 }
            i += 1
            line += 1
        }
        guard i < end else {
            finished = true
            return nil
        }
        let startLine = line
        var fields: [String] = []
        fields.reserveCapacity(16)
        var error: SyntaxError?
        func fail(_ reason: String, field: Int) {
            if error == nil { error = SyntaxError(line: startLine, fieldIndex: field, reason: reason, isFatal: false) }
        }
        func text(_ bytes: UnsafeBufferPointer<UInt8>, field: Int) -> String {
            if bytes.count > Self.maximumFieldBytes { fail("is longer than 64 KiB", field: field); return "" }
            // One pass for NUL and non-ASCII. ASCII is valid UTF-8 as it is, and
            // `String(decoding:)` takes it without the generic validation `String(validating:)`
            // runs (20 % of the parsing thread's instructions on a 100k import).
            var ascii = true
            for b in bytes {
                if b == 0 { fail("contains a NUL byte", field: field); return "" }
                if b >= 0x80 { ascii = false }
            }
            if ascii { return String(decoding: bytes, as: UTF8.self) }
            guard let s = String(validating: bytes, as: UTF8.self) else {
                fail("is not valid UTF-8; if the file is Latin-1, import it with --encoding latin1", field: field)
                return ""
            }
            return s
        }
        while true {  // one field per iteration; i is at the field's first byte
            let fieldIndex = fields.count
            var endOfRecord = false
            if i < end, b[i] == Self.quote {
                let quoteLine = line
                i += 1
                let start = i
                var hasDoubledQuote = false
                var closed = false
                while i < end {
                    let c = b[i]
                    if c == Self.quote {
                        if i + 1 < end, b[i + 1] == Self.quote {
                            hasDoubledQuote = true
                            i += 2
                            continue
                        }
                        closed = true
                        break
                    }
                    if c == Self.lf || (c == Self.cr && !(i + 1 < end && b[i + 1] == Self.lf)) { line += 1 }
                    i += 1
                }
                guard closed else {
                    finished = true
                    return .failure(SyntaxError(
                        line: quoteLine, fieldIndex: fieldIndex,
                        reason: "has an unterminated quoted field: the quote opened on line \(quoteLine) is never closed, so the rest of the file (\(line - quoteLine + 1) lines) would be swallowed",
                        isFatal: true))
                }
                let raw = UnsafeBufferPointer(rebasing: b[start..<i])
                i += 1  // closing quote
                if hasDoubledQuote {
                    scratch.removeAll(keepingCapacity: true)
                    var k = 0
                    while k < raw.count {
                        scratch.append(raw[k])
                        k += raw[k] == Self.quote ? 2 : 1
                    }
                    fields.append(scratch.withUnsafeBufferPointer { text($0, field: fieldIndex) })
                } else {
                    fields.append(text(raw, field: fieldIndex))
                }
                // After the closing quote only a comma or a line end may follow.
                if i >= end || b[i] == Self.lf || b[i] == Self.cr {
                    endOfRecord = true
                } else if b[i] == comma {
                    i += 1
                } else if let other = Self.otherDelimiters[b[i]] {
                    // `"Datum";"Betrag"` read with commas: the file has another delimiter.
                    let fix = suggestsDelimiterOption ? "try --delimiter \(other.option)" : "write it comma-separated"
                    fail("has a \(other.name) after a closing quote: the file looks \(other.name)-separated; \(fix)", field: fieldIndex)
                    while i < end, b[i] != Self.lf, b[i] != Self.cr { i += 1 }
                    endOfRecord = true
                } else {
                    fail("has text after a closing quote; quote the whole field and double inner quotes (\"\")", field: fieldIndex)
                    while i < end, b[i] != Self.lf, b[i] != Self.cr { i += 1 }
                    endOfRecord = true
                }
            } else {
                let start = i
                var endedByComma = false
                while i < end {
                    let c = b[i]
                    if c == comma { endedByComma = true; break }
                    if c == Self.lf || c == Self.cr { break }
                    if c == Self.quote {
                        fail("has a quote inside an unquoted field; quote the whole field and double inner quotes (\"\")", field: fieldIndex)
                    }
                    i += 1
                }
                fields.append(text(UnsafeBufferPointer(rebasing: b[start..<i]), field: fieldIndex))
                if endedByComma { i += 1 } else { endOfRecord = true }
            }
            if endOfRecord { break }
            // A comma just before the end of input means one more (empty) field.
            if i >= end { fields.append(""); break }
        }
        // Consume the line end.
        if i < end {
            if b[i] == Self.cr, i + 1 < end, b[i + 1] == Self.lf { i += 1 }
            i += 1
            line += 1
        }
        if let error { return .failure(error) }
        return .success(Row(line: startLine, fields: fields))
    }
}
