import GRDB
import GRDBSQLite

/// Direct binding and stepping on a GRDB-prepared statement, for the hot loops (bulk insert,
/// index scans) where building `StatementArguments` and `Row`s per row would dominate.
/// The statement stays owned and cached by GRDB.
struct RawStatement {
    let handle: OpaquePointer

    init(_ statement: Statement) {
        handle = statement.sqliteStatement
    }

    // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Ready to run again with the same bindings (cheaper than binding them all anew).
    func rewind() {
        sqlite3_reset(handle)
    }

    func bind(_ index: Int32, _ value: String?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        var v = value
        v.withUTF8 { buf in
            buf.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress {
                    _ = sqlite3_bind_text(handle, index, base, Int32(chars.count), Self.transient)
                } else {
                    _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
                }
            }
        }
    }

    /// Binds text copied into `arena` without SQLite copying it again (`SQLITE_STATIC`): a bulk
    /// insert binds ten texts a row, and SQLite's own copy, a malloc and a free each, was 8 % of
    /// the writing thread's instructions. The arena keeps the bytes until its next `reset()`, so
    /// bind every text parameter anew after that before stepping again.
    func bind(_ index: Int32, _ value: String?, in arena: BindArena) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        let bytes = arena.copy(value)
        _ = sqlite3_bind_text(handle, index, bytes.baseAddress, Int32(bytes.count), Self.static)
    }

    // SQLITE_STATIC: the bytes stay where they are until the statement is bound again.
    private static let `static` = unsafeBitCast(0, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, bytes: [UInt8]) {
        bytes.withUnsafeBytes { buf in
            _ = sqlite3_bind_blob(handle, index, buf.baseAddress, Int32(buf.count), Self.transient)
        }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Double?) {
        guard let value else { sqlite3_bind_null(handle, index); return }
        sqlite3_bind_double(handle, index, value)
    }

    /// Steps once: true when a row is available, false when done.
    func step(_ db: Database) throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: String(cString: sqlite3_sql(handle)))
        }
    }

    func text(_ column: Int32) -> String? {
        guard let p = sqlite3_column_text(handle, column) else { return nil }
        // The byte count SQLite already knows saves the strlen of String(cString:).
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// Reads a text column's bytes in place (no `String`); empty for NULL.
    func withText<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let p = sqlite3_column_text(handle, column)
        return body(UnsafeBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(handle, column))))
    }

    /// Reads a blob column's bytes in place; empty for NULL.
    func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let p = sqlite3_column_blob(handle, column)
        return try body(UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(handle, column))))
    }

    /// A column's value, to ask several questions of (NULL? then its content) for the price of
    /// one call into the statement: each `sqlite3_column_*` call checks the statement and its
    /// connection again. Valid until the next step; SQLite calls it unprotected, which is safe
    /// here because a connection is used by one thread at a time.
    func value(_ column: Int32) -> RawValue { RawValue(handle: sqlite3_column_value(handle, column)) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
}

/// A value of the current row (`RawStatement.value`).
struct RawValue {
    let handle: OpaquePointer

    var isNull: Bool { sqlite3_value_type(handle) == SQLITE_NULL }
    var int64: Int64 { sqlite3_value_int64(handle) }
    var double: Double { sqlite3_value_double(handle) }

    /// The text's bytes in place; nil for NULL.
    func withText<T>(_ body: (UnsafeBufferPointer<UInt8>?) -> T) -> T {
        guard let p = sqlite3_value_text(handle) else { return body(nil) }
        return body(UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(handle))))
    }
}

/// Scratch memory for text parameters bound in place (`RawStatement.bind(_:_:in:)`), reused row
/// after row. A string that does not fit gets a larger block; the full one is kept until
/// `reset()`, so every pointer handed out since stays valid.
final class BindArena {
    private var block: UnsafeMutableBufferPointer<CChar>
    private var used = 0
    private var retired: [UnsafeMutableBufferPointer<CChar>] = []

    init(capacity: Int = 4096) {
        block = .allocate(capacity: capacity)
    }

    deinit {
        block.deallocate()
        for r in retired { r.deallocate() }
    }

    /// Makes all the space reusable: call before binding a new row.
    func reset() {
        used = 0
        for r in retired { r.deallocate() }
        retired.removeAll(keepingCapacity: true)
    }

    /// `text`'s UTF-8 bytes, copied into the arena (never nil, even for "").
    func copy(_ text: String) -> UnsafeBufferPointer<CChar> {
        var text = text
        return text.withUTF8 { utf8 in
            if used + utf8.count > block.count {
                retired.append(block)
                block = .allocate(capacity: max(2 * block.count, utf8.count))
                used = 0
            }
            let start = block.baseAddress! + used
            utf8.withMemoryRebound(to: CChar.self) { source in
                if let from = source.baseAddress { start.update(from: from, count: source.count) }
            }
            used += utf8.count
            return UnsafeBufferPointer(start: start, count: utf8.count)
        }
    }
}
