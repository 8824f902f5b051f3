import GeoSpend
import PostgresNIO

/// The transactions of the editing protocols (expenses, categories, periods, budgets, tokens):
/// each call is one transaction, as each is one on the file.
extension PostGISStore {
    /// One write transaction under the writers' lock (one writer at a time, as on the file).
    func editing<T: Sendable>(_ body: @escaping @Sendable (PostGISReader) throws -> T) async throws -> T {
        guard !readOnly else { throw PostGISError.replicaIsReadOnly(url: address.description) }
        return try await scope(.write) { connection in
            try body(self.reader(on: connection))
        }
    }

    /// One read-only snapshot.
    func reading<T: Sendable>(_ body: @escaping @Sendable (PostGISReader) throws -> T) async throws -> T {
        try await scope(.snapshot) { connection in
            try body(self.reader(on: connection))
        }
    }

    /// PostgreSQL's clock as the file keeps `created_at`/`updated_at`: `2025-03-01T09:00:00.000Z`
    /// (the transaction's start, as SQLite's 'now' is the statement's).
    static let nowSQL = #"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
    /// The same to the second, as budgets keep `created_at`: `2025-03-01T09:00:00Z`.
    static let nowSecondsSQL = #"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')"#

    /// The user's next number in `counter` (`period_numbers`, …), recorded as issued: ids
    /// numbered per user that never go back, as the file's `UserNumbers`.
    static func nextNumber(_ r: PostGISReader, counter: String, user: String) throws -> Int64 {
        try r.rows("""
            INSERT INTO \(unescaped: counter) AS n (user_id, last) VALUES (\(user), 1)
            ON CONFLICT (user_id) DO UPDATE SET last = n.last + 1 RETURNING last
            """)[0].decode(Int64.self)
    }

    /// Creates the user with the default categories when new, as an import does.
    static func ensureUser(_ r: PostGISReader, _ userID: String) throws {
        guard !(try r.rows("INSERT INTO users (id) VALUES (\(userID)) ON CONFLICT (id) DO NOTHING RETURNING id")).isEmpty else { return }
        let defaults = Category.defaults
        _ = try r.rows("""
            INSERT INTO categories (user_id, kind, name, is_default, icon, color)
            SELECT \(userID), d.kind, d.name, true, NULLIF(d.icon, ''), NULLIF(d.color, '')
            FROM unnest(\(defaults.map(\.kind.rawValue))::text[], \(defaults.map(\.name))::text[],
                \(defaults.map { Category.defaultLooks[$0]?.icon ?? "" })::text[], \(defaults.map { Category.defaultLooks[$0]?.color ?? "" })::text[])
                WITH ORDINALITY AS d(kind, name, icon, color, m)
            ORDER BY d.m
            """)
    }
}
