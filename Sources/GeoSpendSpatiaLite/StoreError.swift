/// Why the SpatiaLite store could not do what was asked. GRDB's `DatabaseError` passes through
/// unwrapped where SQLite's own message is the truth.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notAGeoSpendDatabase(path: String, reason: String)
    case notFound(what: String, id: String)
    case corruptSpatialIndex(table: String, node: Int64)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "\(path): cannot open the database: \(reason)"
        case .notAGeoSpendDatabase(let path, let reason): return "\(path): not a GeoSpend database: \(reason)"
        case .notFound(let what, let id): return "no \(what) with id \"\(id)\""
        case .corruptSpatialIndex(let table, let node):
            return "the spatial index of \(table) is damaged (R*Tree node \(node) is missing or truncated); "
                + "rebuild it with the SpatiaLite SQL SELECT RecoverSpatialIndex('\(table)', 'geom')"
        }
    }
}
