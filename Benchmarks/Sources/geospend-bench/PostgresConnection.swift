import CLibPQ
import Foundation

/// One persistent libpq connection with named prepared statements, as an application holds it.
/// Results come back in text format and are read into Swift values inside the timed call.
final class PostgresConnection {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let connection: OpaquePointer

    init(_ conninfo: String) throws {
        guard let c = PQconnectdb(conninfo) else { throw Failure(description: "libpq: out of memory") }
        guard PQstatus(c) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(c))
            PQfinish(c)
            throw Failure(description: "cannot connect to PostgreSQL (\(conninfo)): \(message)")
        }
        connection = c
    }

    deinit { PQfinish(connection) }

    /// Runs SQL without parameters (setup statements), failing on any error.
    @discardableResult
    func execute(_ sql: String) throws -> [[String?]] {
        try rows(of: PQexec(connection, sql), what: sql)
    }

    func prepare(_ name: String, _ sql: String) throws {
        _ = try rows(of: PQprepare(connection, name, sql, 0, nil), what: sql)
    }

    /// Executes a prepared statement with text parameters and hands each row to `body`.
    func query(_ name: String, _ parameters: [String], _ body: (Row) throws -> Void) throws {
        let result = withCStrings(parameters) { pointers in
            PQexecPrepared(connection, name, Int32(parameters.count), pointers, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result, what: name)
        let row = Row(result: result)
        for r in 0..<PQntuples(result) {
            row.index = r
            try body(row)
        }
    }

    /// A cursor over one result's rows; valid only inside `query`'s body.
    final class Row {
        fileprivate let result: OpaquePointer?
        fileprivate var index: Int32 = 0
        fileprivate init(result: OpaquePointer?) { self.result = result }
        var columnCount: Int { Int(PQnfields(result)) }
        func isNull(_ column: Int) -> Bool { PQgetisnull(result, index, Int32(column)) == 1 }
        func string(_ column: Int) -> String { String(cString: PQgetvalue(result, index, Int32(column))) }
        func double(_ column: Int) -> Double { strtod(PQgetvalue(result, index, Int32(column)), nil) }
        func int(_ column: Int) -> Int { Int(strtoll(PQgetvalue(result, index, Int32(column)), nil, 10)) }
    }

    private func rows(of result: OpaquePointer?, what: String) throws -> [[String?]] {
        defer { PQclear(result) }
        try check(result, what: what)
        return (0..<PQntuples(result)).map { r in
            (0..<PQnfields(result)).map { c in PQgetisnull(result, r, c) == 1 ? nil : String(cString: PQgetvalue(result, r, c)) }
        }
    }

    private func check(_ result: OpaquePointer?, what: String) throws {
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            throw Failure(description: "PostgreSQL: \(String(cString: PQerrorMessage(connection)))while running: \(what.prefix(200))")
        }
    }
}

private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) })
}
