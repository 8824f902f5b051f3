import GRDB

/// Rows inserted a hundred to a statement (`INSERT INTO t (…) VALUES (…), (…), …`), for a bulk
/// writer that needs no outcome per row: a statement's start, its cursor's seek from the root and
/// its reset are paid once per hundred rows, not per row. 1.35M map-rollup rows in key order
/// into an empty table, Python's sqlite3 (session 17): 1.73 s one row per statement, 0.76 s a
/// hundred (measured as a whole, not part by part).
///
/// ```swift
/// var rows = BatchedInsert(db, into: "t", columns: ["a", "b"])
/// try rows.add { $0.append(.integer(1)); $0.append(.text("x")) }
/// try rows.finish()  // the last, partial statement
/// ```
struct BatchedInsert {
    enum Value {
        case integer(Int64)
        case text(String)
    }

    static let rowsPerStatement = 100
    private let db: Database
    private let table: String, columns: [String]
    /// The statement for a whole hundred rows, built once, when first needed: the rollups' writer
    /// makes a `BatchedInsert` on every store, also where it then inserts row by row.
    private lazy var fullSQL = Self.sql(table, columns, rows: Self.rowsPerStatement)
    /// The rows not yet inserted, their values back to back.
    private var values: [Value] = []
    private let texts = BindArena()

    init(_ db: Database, into table: String, columns: [String]) {
        self.db = db
        self.table = table
        self.columns = columns
        precondition(Self.rowsPerStatement * columns.count <= 999, "past SQLite's oldest limit of bound parameters per statement")
    }

    /// Appends one row: `row` appends its values, one per column in order.
    mutating func add(_ row: (inout [Value]) -> Void) throws {
        if values.capacity == 0 { values.reserveCapacity(Self.rowsPerStatement * columns.count) }
        let before = values.count
        row(&values)
        precondition(values.count == before + columns.count, "a row of \(table) has \(columns.count) values")
        if values.count == Self.rowsPerStatement * columns.count { try insertPending() }
    }

    /// Inserts the rows still pending.
    mutating func finish() throws {
        if !values.isEmpty { try insertPending() }
    }

    private mutating func insertPending() throws {
        let rows = values.count / columns.count
        // One statement for the full hundreds, one more for the last, shorter part.
        let s = RawStatement(try db.cachedStatement(sql: rows == Self.rowsPerStatement ? fullSQL : Self.sql(table, columns, rows: rows)))
        defer { s.reset() }
        texts.reset()
        for (i, value) in values.enumerated() {
            switch value {
            case .integer(let n): s.bind(Int32(i + 1), n)
            case .text(let t): s.bind(Int32(i + 1), t, in: texts)
            }
        }
        _ = try s.step(db)
        values.removeAll(keepingCapacity: true)
    }

    private static func sql(_ table: String, _ columns: [String], rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }
}
