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
    /// full disk). Only for a new file's set-up. fd 2 belongs to the whole process, so concurrent
    /// callers share one redirection: the first saves the real stderr, the last puts it back
    /// (saving per caller let a second caller save /dev/null and restore it last, and stderr
    /// stayed silenced for good: a parallel test run lost its own report). Other threads' stderr
    /// output during the set-up is lost too.
    static func quietly<T>(_ body: () throws -> T) rethrows -> T {
        DescriptorSilencer.stderr.enter()
        defer { DescriptorSilencer.stderr.leave() }
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

/// A counted redirection of a descriptor to /dev/null (fd 2 behind `SpatiaLiteExtension.quietly`).
final class DescriptorSilencer: @unchecked Sendable {
    static let stderr = DescriptorSilencer(descriptor: 2)
    private let descriptor: Int32
    private let lock = NSLock()
    private var depth = 0
    private var saved: Int32 = -1

    init(descriptor: Int32) { self.descriptor = descriptor }

    func enter() {
        lock.lock()
        defer { lock.unlock() }
        depth += 1
        guard depth == 1 else { return }
        fflush(nil)
        saved = dup(descriptor)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0 && null >= 0 { dup2(null, descriptor) }
        if null >= 0 { close(null) }
    }

    func leave() {
        lock.lock()
        defer { lock.unlock() }
        depth -= 1
        guard depth == 0, saved >= 0 else { return }
        fflush(nil)
        dup2(saved, descriptor)
        close(saved)
        saved = -1
    }
}
