import Logging
import NIOCore
import PostgresNIO

/// Rows in the text format of `COPY … FROM STDIN` (PostgreSQL's COPY documentation, "Text
/// Format"): fields separated by tabs, rows ended by newlines, `\N` for NULL, and backslash,
/// tab, newline and carriage return escaped. Doubles are written in Swift's shortest
/// round-trip form, which PostgreSQL reads back to the same `double precision`.
struct CopyText {
    private(set) var buffer = ByteBuffer()
    private var first = true
    private(set) var rows = 0

    mutating func text(_ value: String?) {
        separate()
        guard let value else { buffer.writeStaticString("\\N"); return }
        // Most text has nothing to escape: one write, not one per byte (a million fixes encoded
        // in 2.0 s that way, 1.3 s this way: release build, load 4–6).
        guard value.utf8.contains(where: Self.needsEscape) else { buffer.writeString(value); return }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
            case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
            case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }

    mutating func integer(_ value: Int64?) { raw(value.map { String($0) }) }
    mutating func double(_ value: Double?) { raw(value?.description) }
    mutating func boolean(_ value: Bool?) { raw(value.map { $0 ? "t" : "f" }) }

    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        first = true
        rows += 1
    }

    private mutating func raw(_ value: String?) {
        separate()
        if let value { buffer.writeString(value) } else { buffer.writeStaticString("\\N") }
    }

    private mutating func separate() {
        if !first { buffer.writeInteger(UInt8(ascii: "\t")) }
        first = false
    }

    /// PostgreSQL's text cannot hold U+0000; SQLite's can, so the file store accepts what this
    /// one must refuse. The first column that holds one, if any.
    static func columnWithNUL(_ fields: KeyValuePairs<String, String?>) -> String? {
        fields.first { $0.value?.utf8.contains(0) ?? false }?.key
    }
}

extension PostgresConnection {
    /// Sends `text`'s rows into `table` with one `COPY … FROM STDIN`, without waiting for the
    /// server to take them (`sendAhead`: the scope's next statement, or its end, waits); nothing
    /// is sent for no rows.
    func copy(_ table: String, _ columns: [String], _ text: CopyText, logger: Logger) throws {
        guard text.rows > 0 else { return }
        let buffer = text.buffer
        try sendAhead(on: self) {
            try await self.copyFrom(table: table, columns: columns, logger: logger) { try await $0.write(buffer) }
        }
    }
}

extension PostGISReader {
    /// `PostgresConnection.copy` on this scope's connection.
    func copy(_ table: String, _ columns: [String], _ text: CopyText) throws {
        try connection.copy(table, columns, text, logger: logger)
    }
}
