import GRDB
@testable import GeoSpendSpatiaLite

/// A file as an older GeoSpend left it, for the migration tests: the migrations before
/// `version` (`"v4"` gives v1–v3) applied and recorded as GRDB records them, then `seed` in the
/// same transaction (the rows that older version would have written).
enum OlderFile {
    static func make<T>(at path: String, before version: String, seed: (Database) throws -> T) throws -> T {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in try SpatiaLiteExtension.load(into: db) }
        let older = Schema.migrations.prefix { !$0.identifier.hasPrefix(version + ":") }
        precondition(older.count < Schema.migrations.count, "no migration \(version)")
        return try DatabaseQueue(path: path, configuration: config).write { db in
            _ = try Int.fetchOne(db, sql: "SELECT InitSpatialMetadata(0)")
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for m in older {
                try m.apply(db)
                try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [m.identifier])
            }
            return try seed(db)
        }
    }
}
