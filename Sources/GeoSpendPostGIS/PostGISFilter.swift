import GeoSpend
import PostgresNIO

/// A `WHERE` clause and its bound values, built up condition by condition; `ExpenseFilter`'s
/// conditions read as the file's (`StoredRows.conditions`) do, over `expenses AS e` and
/// `categories AS c`.
struct PostGISFilter {
    private var conditions: [String] = []
    private var binds = PostgresBindings()
    /// Whether every parameter is cast by name (`PostGISStatement.typed`).
    private var typed = true

    init() {}

    init(_ filter: ExpenseFilter) throws {
        if let user = filter.userID { add("e.user_id = \(bind(user))") }
        if let period = filter.period {
            // Periods are numbered per user: the period of the expense's own user.
            add("e.period_id = (SELECT p.pk FROM periods AS p WHERE p.user_id = e.user_id AND p.number = \(bind(period)))")
        }
        if let from = filter.from {
            add(from.isDateOnly ? "e.local_date >= \(bind(from.localDate))" : "e.occurred_ms >= \(bind(from.epochMilliseconds))")
        }
        if let to = filter.to {
            add(to.isDateOnly ? "e.local_date <= \(bind(to.localDate))" : "e.occurred_ms < \(bind(to.epochMilliseconds))")
        }
        if !filter.kinds.isEmpty { add("e.kind = ANY(\(bind(filter.kinds.map(\.rawValue))))") }
        if let currency = filter.currency { add("e.currency = \(bind(currency.code))") }
        if !filter.categories.isEmpty {
            // NOCASE as SQLite has it: ASCII letters only.
            add("c.name_fold = ANY(\(bind(filter.categories.map { PostGISRows.asciiFolded($0) })))")
        }
        if !filter.storeIDs.isEmpty { add("e.store_id = ANY(\(bind(Array(filter.storeIDs))))") }
    }

    mutating func add(_ condition: String) { conditions.append(condition) }

    /// `$n` for `value`, bound, cast to its type by name (`$1::TEXT`): the text then declares
    /// the parameter types a prepared statement needs, the same the driver binds.
    mutating func bind<V: PostgresNonThrowingEncodable & Sendable>(_ value: V) -> String {
        binds.append(value)
        let n = binds.count
        guard let type = V.psqlType.knownSQLName else {
            typed = false
            return "$\(n)"
        }
        return "$\(n)::\(type)"
    }

    /// The point as a geography, its coordinates bound.
    mutating func point(_ c: Coordinate) -> String {
        "ST_SetSRID(ST_MakePoint(\(bind(c.longitude)), \(bind(c.latitude))), 4326)::geography"
    }

    /// The statement, its parameters typed in its text: readers keep its plan (`PreparedStatements`).
    func query(_ select: String, suffix: String) -> PostGISStatement {
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return PostGISStatement(sql: "\(select) \(whereClause) \(suffix)", binds: binds, typed: typed)
    }
}
