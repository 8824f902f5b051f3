import CGEOS
import Foundation
import CSpatiaLite
import GRDB
import GRDBSQLite

/// Loads SpatiaLite into a SQLite connection (Debian's libspatialite, linked directly).
enum SpatiaLiteExtension {
    /// Calls `spatialite_init_ex` with a fresh connection cache. The cache is freed with
    /// `spatialite_cleanup_ex` when the connection closes: it is the user data of a tiny SQL
    /// function whose destructor SQLite runs at `sqlite3_close`.
    static func load(into db: Database) throws {
        guard let handle = db.sqliteConnection else { throw StoreError.cannotOpen(path: db.description, reason: "no SQLite handle") }
        guard let cache = spatialite_alloc_connection() else {
            throw StoreError.cannotOpen(path: db.description, reason: "SpatiaLite could not allocate its connection cache")
        }
        spatialite_init_ex(UnsafeMutableRawPointer(handle), cache, 0)
        let rc = sqlite3_create_function_v2(
            handle, "geospend_spatialite_cache", 0, SQLITE_UTF8, cache,
            { context, _, _ in sqlite3_result_null(context) }, nil, nil,
            { cache in if let cache { spatialite_cleanup_ex(cache) } })
        guard rc == SQLITE_OK else {
            spatialite_cleanup_ex(cache)
            throw StoreError.cannotOpen(path: db.description, reason: "could not register SpatiaLite's cleanup (\(rc))")
        }
    }

    /// Runs `body` with stderr sent to /dev/null: some SpatiaLite functions print their SQL
    /// errors there whatever the connection's verbosity (14 lines from `InitSpatialMetadata` on a
    /// full disk). Only for the store's set-up, when no other thread of ours writes to stderr.
    static func quietly<T>(_ body: () throws -> T) rethrows -> T {
        fflush(nil)  // every stream: stderr itself is not concurrency-safe to name
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0 && null >= 0 { dup2(null, 2) }
        defer {
            fflush(nil)  // every stream: stderr itself is not concurrency-safe to name
            if saved >= 0 { dup2(saved, 2); close(saved) }
            if null >= 0 { close(null) }
        }
        return try body()
    }

    /// Versions of the C libraries under the store, for `geospend info` and benchmark reports.
    static var versions: [String: String] {
        var v: [String: String] = [:]
        v["sqlite"] = String(cString: sqlite3_libversion())
        v["spatialite"] = String(cString: spatialite_version())
        if let ctx = GEOS_init_r() {
            v["geos"] = String(cString: GEOSversion())
            GEOS_finish_r(ctx)
        }
        return v
    }
}
