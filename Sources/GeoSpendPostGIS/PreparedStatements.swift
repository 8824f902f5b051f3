import Foundation
import Logging
import PostgresNIO

/// A query whose parameters carry their types in its text (`$1::TEXT`), so that a connection
/// can prepare it once and keep its plan.
///
/// Parsing and planning were most of a short read's time: the radius query of one user took
/// ~0.58 ms a call unprepared and ~0.06 ms prepared with its values in the text; with
/// parameters PostgreSQL may still re-plan it each run (custom plans; docs/MEASUREMENTS.md
/// § Prepared statements on PostgreSQL). `PostGISFilter` builds these. The casts name the types the driver binds, so the
/// server infers for the prepared statement exactly the parameters the unprepared query has.
struct PostGISStatement {
    let sql: String
    let binds: PostgresBindings
    /// Whether every parameter is cast by name (a type without a SQL name is not): else the
    /// statement runs unprepared.
    let typed: Bool

    /// The statement as one unprepared query.
    var query: PostgresQuery { PostgresQuery(unsafeSQL: sql, binds: binds) }
}

/// The statements one connection has prepared: their names, by text.
///
/// postgres-nio prepares a statement on a connection the first time it executes it, and keeps
/// it by name; a failed preparation stays failed under that name for the connection's life
/// (say, one sent inside a transaction already aborted), so a name is kept only once a
/// statement under it ran, and a failure retires it. The store forgets a closed connection's
/// names with it. One scope at a time uses a connection, hence these.
final class PreparedStatements: @unchecked Sendable {
    /// Past this many names, statements run unprepared: filters combine into many texts, and a
    /// session's statements cost server memory. Reached only by unusual mixes of filters.
    static let limit = 256

    private let lock = NSLock()
    private var names: [String: String] = [:]
    private var issued = 0

    /// The rows of `statement` on `connection` by its prepared plan; nil when it is to run
    /// unprepared (not typed, or past `limit`).
    func rows(of statement: PostGISStatement, on connection: PostgresConnection, logger: Logger) throws -> [PostgresRow]? {
        guard statement.typed else { return nil }
        let sql = statement.sql
        let slot: (name: String, known: Bool)? = lock.withLock {
            if let name = names[sql] { return (name, true) }
            guard issued < Self.limit else { return nil }
            issued += 1
            return ("geospend_\(issued)", false)
        }
        guard let (name, known) = slot.map({ ($0.name, $0.known) }) else { return nil }
        let binds = statement.binds
        do {
            // Not yet known: a failure retires `name` (it is never kept).
            let found = try waitFor(on: connection) {
                try await BuiltStatement.$current.withValue((name, sql)) {
                    var found: [PostgresRow] = []
                    for try await row in try await connection.execute(BuiltStatement(binds: binds), logger: logger) { found.append(row) }
                    return found
                }
            }
            if !known { lock.withLock { names[sql] = name } }
            return found
        }
    }
}

/// A statement built at run time, for postgres-nio's prepared statements.
///
/// postgres-nio takes a statement's name and text from its type (`static var name`, `sql`), read
/// in the calling task as `execute` starts; GeoSpend's filters build their texts, so this one
/// type reads them from a task-local value bound around that call (`PreparedStatements.rows`).
/// The parameter types are left to the server, which reads them from the casts in the text.
private struct BuiltStatement: PostgresPreparedStatement {
    @TaskLocal static var current: (name: String, sql: String) = ("", "")
    static var name: String { current.name }
    static var sql: String { current.sql }

    let binds: PostgresBindings
    func makeBindings() throws -> PostgresBindings { binds }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
