import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite

/// `--read-db`, for the commands that only read (queries, exports, `info`, `users list|export`,
/// `snap --dry-run`): a PostgreSQL read replica of `--db` that serves them instead.
struct ReadReplicaOption: ParsableArguments {
    @Option(
        name: .customLong("read-db"),
        help: "Read from this PostgreSQL read replica of --db (postgresql://…) instead.")
    var readDB: String?
}

/// `--db`, shared by every command that touches the database: a SpatiaLite file, or a
/// PostgreSQL server with PostGIS (`postgresql://USER@HOST:PORT/DBNAME`) for every command but
/// those `fileOnly` names.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The database: a file, or postgresql://USER@HOST:PORT/DBNAME (default: $GEOSPEND_DB, else ./geospend.sqlite).")
    var db: String?

    var path: String { db ?? ProcessInfo.processInfo.environment["GEOSPEND_DB"] ?? "geospend.sqlite" }

    var isPostgreSQL: Bool { PostGISAddress.looksLikeOne(path) }

    /// The backend: the PostgreSQL server (its tables created or migrated on first use), else
    /// the file — created when `create`, else it must exist and is opened read-only unless
    /// `writable`. With a `replica` (`--read-db`), a command that only reads is served by it
    /// instead. The one place a command chooses between the two.
    func openBackend(create: Bool = false, writable: Bool = false, replica: String? = nil) async throws -> any Backend {
        if let replica = try await self.replica(replica, writing: create || writable) { return replica }
        if isPostgreSQL { return try await PostGISStore(PostGISAddress(path)) }
        return create ? try open() : try openExisting(writable: writable)
    }

    /// Runs an import; when it fails (rejected, exit 2, or a runtime failure, exit 1) and the
    /// database did not exist before, the files opening it created go again: a first import
    /// refused for a typo must not leave an empty 6.7 MB database (SpatiaLite's metadata) that
    /// later reads like one holding data. Imports create no mask key.
    func removingNewFileOnFailure(_ body: () async throws -> Void) async throws {
        guard !isPostgreSQL, !FileManager.default.fileExists(atPath: path) else { return try await body() }
        do {
            try await body()  // the store opened in `body` is closed when it returns
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            throw error
        }
    }

    /// The read replica of `--read-db`, nil without one. A replica only makes sense for a
    /// PostgreSQL `--db` and a command that only reads: anything else is a usage error rather
    /// than a silent choice of one of the two databases.
    private func replica(_ readDB: String?, writing: Bool) async throws -> PostGISStore? {
        guard let readDB else { return nil }
        guard isPostgreSQL else { throw ValidationError("--read-db is a read replica of a PostgreSQL --db; \(path) is a file") }
        guard PostGISAddress.looksLikeOne(readDB) else { throw ValidationError("--read-db takes a postgresql://… address, not \(readDB)") }
        guard !writing else { throw ValidationError("this command writes, and writes go to --db: leave out --read-db") }
        return try await PostGISStore(readReplica: PostGISAddress(readDB))
    }

    func open() throws -> SpatiaLiteStore {
        try fileOnly()
        return try Self.logLockWaits(SpatiaLiteStore(path: path, busyTimeout: try busyTimeout()))
    }

    /// The commands that work on files alone (`doctor`, and prices, products, receipts and
    /// shopping lists so far): a PostgreSQL address gets a clear error, not "no database at
    /// postgresql://…".
    private func fileOnly() throws {
        guard !isPostgreSQL else {
            throw ValidationError(
                "this command works on SpatiaLite files only so far; on PostgreSQL GeoSpend has every command but doctor")
        }
    }

    /// Opens a database that must exist already (queries never create an empty file). Unless
    /// `writable`, it is opened read-only, so an import running meanwhile is never waited for;
    /// each command reads in one read scope (`ExpenseStore.read`), which sees that import whole
    /// or not at all.
    func openExisting(writable: Bool = false) throws -> SpatiaLiteStore {
        try fileOnly()
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("no database at \(path); create one with `geospend import stores FILE` or pass --db")
        }
        return try Self.logLockWaits(
            SpatiaLiteStore(path: path, readOnly: !writable, busyTimeout: try busyTimeout()))
    }

    /// `$GEOSPEND_BUSY_TIMEOUT` seconds, else the store's default (30 s).
    func busyTimeout() throws -> TimeInterval {
        guard let text = ProcessInfo.processInfo.environment["GEOSPEND_BUSY_TIMEOUT"] else { return SpatiaLiteStore.defaultBusyTimeout }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            throw ValidationError("GEOSPEND_BUSY_TIMEOUT must be a number of seconds, not \"\(text)\"")
        }
        return seconds
    }

    /// With `$GEOSPEND_LOCK_WAIT_LOG` set, appends "<milliseconds waited> <waits>" to that file when
    /// the store closes: how `make reliability` measures the time readers spend blocked on locks.
    private static func logLockWaits(_ store: SpatiaLiteStore) -> SpatiaLiteStore {
        guard let log = ProcessInfo.processInfo.environment["GEOSPEND_LOCK_WAIT_LOG"] else { return store }
        store.lockWaits.onClose = { waited, waits in
            let ms = Double(waited.components.seconds) * 1000 + Double(waited.components.attoseconds) / 1e15
            // One O_APPEND write per process: lines from concurrent readers never interleave.
            let fd = Foundation.open(log, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            guard fd >= 0 else { return }
            let line = Array(String(format: "%.3f %d\n", ms, waits).utf8)
            _ = line.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        return store
    }
}
