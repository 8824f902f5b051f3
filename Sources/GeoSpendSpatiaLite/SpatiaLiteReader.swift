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

    public func positionSources(userID: String) throws -> [String: PositionSource] {
        var sources: [String: PositionSource] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, position_source FROM expenses WHERE user_id = ? AND position_source IS NOT NULL AND position_source <> 'device'",
            arguments: [userID])
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
