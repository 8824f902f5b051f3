import GeoSpend
import GRDB

/// The queries of one read scope on the SpatiaLite file (`SpatiaLiteStore.read`): one pooled
/// connection inside one read transaction, which in WAL mode is one snapshot. The queries
/// themselves live in SpendingRows.swift (and its decoders), LocatedAmounts.swift,
/// IDLookups.swift, SpatialQueries.swift and NearestStores.swift.
public struct SpatiaLiteReader: ExpenseReader {
    let db: Database
    /// The store's labels already read (`StoreLabelCache`); nil reads them from the file each time.
    let labelCache: StoreLabelCache?

    init(_ db: Database, labelCache: StoreLabelCache? = nil) {
        self.db = db
        self.labelCache = labelCache
    }

    /// The scope's connection (the queries' bodies are written against it).
    func read<T>(_ body: (Database) throws -> T) throws -> T { try body(db) }

    public func positionSources(_ filter: ExpenseFilter) throws -> [String: PositionSource] {
        guard let userID = filter.userID else { return [:] }
        var sources: [String: PositionSource] = [:]
        // The window's occurred_ms superset (a bare date widened by a day each side) lets
        // expenses_user_time seek the month a map shows, not read all the user's rows.
        var sql = "SELECT id, position_source FROM expenses WHERE user_id = ? AND position_source IS NOT NULL AND position_source <> 'device'"
        var arguments: StatementArguments = [userID]
        let window = OccurredWindow(filter)
        if let from = window.from { sql += " AND occurred_ms >= ?"; arguments += [from] }
        if let to = window.to { sql += " AND occurred_ms < ?"; arguments += [to] }
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            if let source = PositionSource(rawValue: row[1]) { sources[row[0]] = source }
        }
        return sources
    }

    public func counts() throws -> StoreCounts {
        StoreCounts(
            users: try Int.fetchOne(db, sql: "SELECT count(*) FROM users") ?? 0,
            expenses: try Int.fetchOne(db, sql: "SELECT count(*) FROM expenses") ?? 0,
            geotaggedExpenses: try Int.fetchOne(db, sql: "SELECT count(*) FROM expenses WHERE lat IS NOT NULL") ?? 0,
            stores: try Int.fetchOne(db, sql: "SELECT count(*) FROM stores") ?? 0)
    }
}
