import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendTestSupport

/// The PostgreSQL server the tests use: `$GEOSPEND_TEST_POSTGRES` (scripts/with-postgis.sh
/// starts a throwaway one and sets it; `make test` runs every test that way). Each store gets a
/// database of its own, cloned from a template that already has PostGIS (CREATE EXTENSION takes
/// about a second; a clone a tenth of that).
public enum PostGISTestServer {
    public static let address: PostGISAddress? = ProcessInfo.processInfo.environment["GEOSPEND_TEST_POSTGRES"].flatMap { try? PostGISAddress($0) }

    /// Under `make test` (`GEOSPEND_REQUIRE_POSTGRES=1`), a missing server fails the run instead
    /// of dropping the PostGIS cases in silence.
    public static let isRequired = ProcessInfo.processInfo.environment["GEOSPEND_REQUIRE_POSTGRES"] == "1"

    private static let template: Result<String, any Error> = Result {
        let name = "geospend_template_\(getpid())"
        try psql("CREATE DATABASE \(name)")
        try psql("CREATE EXTENSION postgis", database: name)
        return name
    }

    /// A clone of `template` with the schema migrated once: a store's first open then finds its
    /// schema current (a first `geospend` open that migrated took 1.8 s, one on a current schema
    /// 0.25 s: 5 runs each on a busy machine, 2 December 2026).
    private static let migratedTemplate = Task<String, any Error> {
        let name = "geospend_migrated_\(getpid())"
        try psql("CREATE DATABASE \(name) TEMPLATE \(try template.get())")
        let store = try await PostGISStore(address!.with(database: name))
        await store.close()  // a template must have no connections when it is cloned
        return name
    }

    /// A new database with the current schema and nothing in it, and the store on it.
    public static func freshStore(maximumConnections: Int = PostGISStore.defaultMaximumConnections) async throws -> PostGISStore {
        try await PostGISStore(address!.with(database: try await newMigratedDatabase()), maximumConnections: maximumConnections)
    }

    /// The name of a new database with the current schema and nothing in it.
    public static func newMigratedDatabase() async throws -> String {
        let template = try await migratedTemplate.value
        let name = "geospend_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try psql("CREATE DATABASE \(name) TEMPLATE \(template)")
        return name
    }

    /// The name of a new, empty database with PostGIS and no schema (the first open migrates).
    public static func newDatabase() throws -> String {
        let name = "geospend_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try psql("CREATE DATABASE \(name) TEMPLATE \(try template.get())")
        return name
    }

    /// The address of `database` on the test server, as `--db` takes it.
    public static func url(_ database: String) -> String { "\(address!.with(database: database))" }

    public static func psql(_ sql: String, database: String? = nil) throws {
        let target = database.map { url($0) } ?? "\(address!)"
        let run = try runProgram("/usr/bin/psql", [target, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql])
        guard run.status == 0 else { throw PSQLFailed(sql: sql, err: run.err) }
    }

    public struct PSQLFailed: Error, CustomStringConvertible {
        let sql: String
        let err: String
        public var description: String { "psql: \(sql): \(err)" }
    }
}

