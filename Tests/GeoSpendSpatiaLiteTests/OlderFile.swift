import GRDB
@testable import GeoSpendSpatiaLite

/// A file as an older GeoSpend left it, for the migration tests: the migrations before
/// `version` (`"v4"` gives v1–v3) applied and recorded as GRDB records them, then `seed` in the
/// same transaction (the rows that older version would have written).
enum OlderFile {
    static func make<T>(at path: String, before version: String, seed: (Database) throws -> T) throws -> T {
        let older = Schema.migrations.prefix { !$0.identifier.hasPrefix(version + ":") }
        precondition(older.count < Schema.migrations.count, "no migration \(version)")
        return try DatabaseQueue(path: path, configuration: SchemaFile.configuration).write { db in
            _ = try Int.fetchOne(db, sql: "SELECT InitSpatialMetadata(0)")
            try SchemaFile.apply(older, db)
            return try seed(db)
        }
    }
}
