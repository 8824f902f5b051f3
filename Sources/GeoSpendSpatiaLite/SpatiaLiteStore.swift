import Foundation
import GeoSpend
import GRDB
import GRDBSQLite

/// GeoSpend's embedded store: one SpatiaLite file that QGIS, GDAL and `spatialite` open as they are.
///
/// Opening creates the file and runs the migrations when needed. The connection pool uses WAL,
/// a busy timeout, foreign keys, and `BEGIN IMMEDIATE` for every write. SQLite failures a user
/// can act on (locked, disk full, read-only, damaged) are thrown as `StoreError`s naming the file.
///
/// ```swift
/// let store = try SpatiaLiteStore(path: "geospend.sqlite")
/// _ = try await Importer.importStores(from: "Data/helsinki-places.geojson", into: store)
/// let near = try await store.nearestStores(
///     to: Coordinate(latitude: 60.1710, longitude: 24.9414), limit: 5, maxDistance: nil, kind: "amenity:cafe")
/// ```
public final class SpatiaLiteStore: ExpenseStore {
    public let path: String
    let pool: DatabasePool
    /// How long a connection waits for another process's lock before failing.
    public let busyTimeout: TimeInterval
    /// Time this store's connections spent waiting for other processes' locks.
    public let lockWaits: LockWaitMeter
    /// Store labels the read scopes have looked up, per connection while the file is unchanged.
    let labelCache = StoreLabelCache()
    /// The connections `quickRead` runs on, read-only, opened as first needed.
    let quickReaders: QuickReaders

    /// The default busy timeout: how long a writer waits for another process's write lock.
    public static let defaultBusyTimeout: TimeInterval = 30

    /// Opens (and creates or migrates) the database at `path`.
    /// - Parameters:
    ///   - readOnly: open without writing. GRDB's read-write pool writes a little on open when the
    ///     WAL file is missing or empty, which waits for any other process's write transaction:
    ///     queries open read-only so that they never wait for an import.
    ///   - busyTimeout: seconds to wait for another process's lock before throwing `StoreError.locked`.
    /// - Throws: `StoreError` when the file is locked, read-only, damaged, not a GeoSpend database
    ///   or from a newer GeoSpend; `DatabaseError` for SQLite's other failures.
    public init(path: String, readOnly: Bool = false, busyTimeout: TimeInterval = defaultBusyTimeout) throws {
        self.path = path
        self.busyTimeout = busyTimeout
        let meter = LockWaitMeter(timeout: busyTimeout)
        lockWaits = meter
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.readonly = readOnly
        config.label = "geospend"
        config.prepareDatabase { db in
            // Our busy handler on every connection, readers included (GRDB gives readers a fixed 10 s).
            // Installed after SpatiaLite's initialisation, which replaces any handler with its own
            // `sqlite3_busy_timeout(5000)`: writers gave up after 5 s whatever the timeout, and
            // reported a 0.0 s wait (the meter never ran).
            try SpatiaLiteExtension.load(into: db)
            meter.install(on: db)
            // Read pages through a memory map instead of read() calls: scanning a user's 100k
            // rows took 156 ms with SQLite's default page cache and 87 ms mapped (sqlite3 shell).
            try db.execute(sql: "PRAGMA mmap_size = 1073741824")
            // `geospend_nfc(text)`, for doctor's identity check and repair (`IdentityRepair`).
            db.add(function: Self.nfcFunction)
        }
        try Self.checkIsAFile(path)
        do {
            if !readOnly && !FileManager.default.fileExists(atPath: path) {
                try FirstOpen.create(at: path, configuration: config)
            }
            // Before any connection opens the file: the ownership check's read-only connection
            // creates an empty -wal itself (and leaves it) when the file is in WAL mode. Only then:
            // beside a rollback-journal file (another program's) a -wal would switch it to WAL for
            // every later reader, and that check creates nothing there.
            if !readOnly && Self.headerSaysWAL(path) { Self.keepGRDBFromWritingOnOpen(path) }
            if FileManager.default.fileExists(atPath: path) {
                // Before the pool switches the file to WAL mode: another program's file stays untouched.
                var plain = Configuration()
                plain.readonly = true
                // With the busy handler: a plain connection fails at once while another process
                // recovers the WAL or checkpoints it on close (SQLITE_BUSY_RECOVERY, seen in the
                // concurrency test).
                plain.busyMode = .callback { tries in meter.wait(tries: tries) }
                try Schema.checkOwnership(of: try DatabaseQueue(path: path, configuration: plain), path: path)
            }
            var pool = try DatabasePool(path: path, configuration: config)
            if !readOnly {
                // A file another tool created empty (the `spatialite` shell on a missing path) is
                // initialised here, not by `FirstOpen`: its killed attempts' leftovers go here too.
                if try !Schema.isCurrent(pool) { FirstOpen.removeLeftovers(of: path) }
                try Schema.migrate(pool)
            } else if try !Schema.isCurrent(pool) {
                // An older file: migrate it once with a writable pool, then read as asked.
                var writable = config
                writable.readonly = false
                try Schema.migrate(try DatabasePool(path: path, configuration: writable))
                pool = try DatabasePool(path: path, configuration: config)
            }
            self.pool = pool
            var readOnlyConfig = config
            readOnlyConfig.readonly = true
            quickReaders = QuickReaders { try DatabaseQueue(path: path, configuration: readOnlyConfig) }
        } catch let error as DatabaseError {
            throw StoreError.translating(error, path: path, waited: meter.seconds) ?? error
        }
    }

    /// A path that exists must be a regular file (or a link to one): SQLite reports a folder or a
    /// device as a disk I/O error, which read as a damaged database.
    private static func checkIsAFile(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }  // missing: created, or refused, later
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR:
            throw StoreError.notAFile(path: path, what: "is a folder", hint: "pass --db a file inside it, e.g. \(path)/geospend.sqlite")
        default:
            throw StoreError.notAFile(path: path, what: "is not a regular file (a device, pipe or socket)", hint: "pass --db the path of a database file")
        }
    }

    /// Whether `path` is an SQLite file in WAL mode: the magic string, and the header's file
    /// format write and read versions (bytes 18 and 19) both 2. Any other file — another program's
    /// rollback-journal database, a picture, a truncated read — gets no -wal from GeoSpend.
    private static func headerSaysWAL(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header.prefix(16) == Data("SQLite format 3\0".utf8) && header[18] == 2 && header[19] == 2
    }

    /// GRDB's writable pool commits a `CREATE`/`DROP TABLE grdb_issue_102` on open when the -wal
    /// file is missing or empty (its work-around for GRDB issue 102), so even a re-import that adds
    /// nothing changed the file (a page onto the free list, the header's counters). A WAL file of
    /// 32 zero bytes, which SQLite reads as an empty log (no valid magic number) and rewrites on
    /// the first commit, keeps it from writing. Created only when missing (`O_EXCL`): no other
    /// connection has the file open in WAL mode then, and SQLite deletes it on the last close.
    /// Never written into an existing log, even an empty one: another process's first commit may
    /// be writing its header at that moment. Only for files already in WAL mode (`headerSaysWAL`).
    private static func keepGRDBFromWritingOnOpen(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let fd = open(path + "-wal", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0o777)
        guard fd >= 0 else { return }
        let zeros = [UInt8](repeating: 0, count: 32)
        _ = zeros.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    // Connections may close later, on their own queues; the waits of this store's work are all in.
    deinit { lockWaits.storeClosed() }

    /// Runs `body`, turning SQLite failures a user can act on into `StoreError`s naming this file.
    func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError {
            throw StoreError.translating(error, path: path, waited: lockWaits.seconds) ?? error
        }
    }

    func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as DatabaseError {
            throw StoreError.translating(error, path: path, waited: lockWaits.seconds) ?? error
        }
    }

    /// Versions of SQLite, SpatiaLite, GEOS and PROJ in use.
    public static var libraryVersions: [String: String] {
        var v = SpatiaLiteExtension.versions
        v["proj"] = Geodesic.libraryVersion
        return v
    }

    // MARK: Scopes

    /// One read transaction on a pooled connection (one snapshot in WAL mode), on GRDB's reader
    /// queue: the calling task waits without holding its thread.
    public func read<T: Sendable>(_ body: @Sendable (any ExpenseReader) throws -> T) async throws -> T {
        try await translatingErrors { try await pool.read { db in try body(SpatiaLiteReader(db, labelCache: self.labelCache)) } }
    }

    /// A small read on the calling thread, on a connection of its own (`QuickReaders`): no
    /// hand-off to GRDB's reader queue and back. No connection free, or past its budget of
    /// SQLite steps (`StepBudget`), it runs as `read` does (from the start, on a new snapshot).
    public func quickRead<T: Sendable>(_ body: @escaping @Sendable (any ExpenseReader) throws -> T) async throws -> T {
        do {
            let answer = try translatingErrors {
                try quickReaders.read { db in try body(SpatiaLiteReader(db, labelCache: labelCache)) }
            }
            if let answer { return answer }
        } catch is StepBudget.Exceeded {}
        return try await read(body)
    }

    /// One `BEGIN IMMEDIATE` transaction on the writer connection, with the bulk writer
    /// (`SpatiaLiteBulkWriter`), on GRDB's writer queue.
    public func write<T: Sendable>(_ body: @Sendable (any ExpenseWriter) throws -> T) async throws -> T {
        try await translatingErrors { try await pool.writeWithoutTransaction { db in try Self.writeScope(db, body) } }
    }

    /// `write`, on a thread of its own at the lowest CPU priority (`offloadedInBackground`): the
    /// service's imports, so that on a busy machine its readers run first. GRDB runs a
    /// synchronous write on the calling thread, so the import's every step (and the threads it
    /// starts, which inherit the priority) runs at that priority.
    public func writeInBackground<T: Sendable>(_ body: @escaping @Sendable (any ExpenseWriter) throws -> T) async throws -> T {
        try await offloadedInBackground {
            try self.translatingErrors { try self.pool.writeWithoutTransaction { db in try Self.writeScope(db, body) } }
        }
    }

    private static func writeScope<T>(_ db: Database, _ body: (any ExpenseWriter) throws -> T) throws -> T {
        try SpatiaLiteBulkWriter.checkingReferencesItself(db) { try bulkTransaction(db, importEvents: true) { w, _ in try body(w) } }
    }

    /// A read scope run on the calling thread, for tools and tests that are not async (and
    /// would otherwise wait for GRDB's reader queue anyway).
    public func readHere<T>(_ body: (any ExpenseReader) throws -> T) throws -> T {
        try readDatabase { db in try body(SpatiaLiteReader(db, labelCache: labelCache)) }
    }

    /// A write scope run on the calling thread, for tools and tests that are not async.
    public func writeHere<T>(_ body: (any ExpenseWriter) throws -> T) throws -> T {
        try bulkWrite { writer, _ in try body(writer) }
    }

    /// `write`, synchronously and with the transaction's connection too (`expenses add`/`edit`
    /// stamp their times in it).
    func bulkWrite<T>(_ body: (SpatiaLiteBulkWriter, Database) throws -> T) throws -> T {
        try translatingErrors { try pool.writeWithoutTransaction { db in try Self.bulkTransaction(db, body) } }
    }

    /// `bulkWrite` for async callers, on GRDB's writer queue (cancelled with its caller).
    func bulkWrite<T: Sendable>(_ body: @Sendable (SpatiaLiteBulkWriter, Database) throws -> T) async throws -> T {
        try await translatingErrors { try await pool.writeWithoutTransaction { db in try Self.bulkTransaction(db, body) } }
    }

    /// The bulk writer's page cache: 1 GiB, as `cache_size`'s negative KiB.
    static let bulkCacheSize = -1_048_576

    /// `importEvents`: the scope is an import's (`write`), which raises `import.finished`.
    private static func bulkTransaction<T>(
        _ db: Database, importEvents: Bool = false, _ body: (SpatiaLiteBulkWriter, Database) throws -> T
    ) throws -> T {
        // A large import touches every index page; a 1 GiB page cache (allocated only as used) keeps them in memory
        // instead of spilling to the WAL mid-transaction.
        try db.execute(sql: "PRAGMA cache_size = \(bulkCacheSize)")
        var result: T?
        try db.inTransaction(.immediate) {
            let writer = try SpatiaLiteBulkWriter(db: db)
            result = try body(writer, db)
            // Nothing written (a re-import): roll back instead of recreating the triggers and
            // indexes set aside and stamping SpatiaLite's times, so the file stays byte for
            // byte the same (a re-import of 936 stores changed 2,306 bytes).
            guard writer.wroteRows else { return .rollback }
            try writer.finish()
            // The outbox in the same transaction (issue 39): the events commit with the rows.
            try NotificationSchema.raiseBudgetEvents(db, path: db.description, touched: writer.touched)
            if importEvents { _ = try NotificationSchema.raise(db, writer.touched.importEvents) }
            return .commit
        }
        return result!
    }

    /// Runs a closure in one `BEGIN IMMEDIATE` transaction (for maintenance such as `doctor --repair`).
    public func writeTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try translatingErrors { try pool.write(body) }
    }

    /// `writeTransaction` for async callers, on GRDB's writer queue: the caller's task waits
    /// without holding a thread, and a cancelled caller's transaction is interrupted and rolled
    /// back (GRDB's cancellation), so a caller told "cancelled" finds nothing of it written.
    public func writeTransaction<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await translatingErrors { try await pool.write(body) }
    }

    /// Deletes a store; expenses that referred to it keep existing with no store.
    @discardableResult
    public func deleteStore(_ id: String) throws -> Bool {
        try writeTransaction { db in
            try db.execute(sql: "DELETE FROM stores WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    // MARK: Reading

    /// Runs `body` on a pooled read connection, in one read transaction (tools and tests that
    /// look at the file itself; analytics go through `read`).
    /// A read; within `offloaded`, interrupted (`CancellationError`) when its caller is cancelled.
    public func readDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        try translatingErrors {
            try pool.read { db in
                guard let interruption = WorkInterruption.current else { return try body(db) }
                let connection = InterruptibleConnection(db.sqliteConnection)
                return try interruption.whileRunning(stop: { connection.interrupt() }) { try body(db) }
            }
        }
    }
}

/// Measures the time connections spend blocked on another process's lock: SQLite calls the busy
/// handler each time a lock is refused, and the handler sleeps (SQLite's own back-off, 1 ms
/// growing to 100 ms) until the lock is free or the timeout has passed. The sum of those sleeps is
/// the lock wait; it does not include SQLite's internal WAL read retries, which bypass the handler.
public final class LockWaitMeter: @unchecked Sendable {
    private let lock = NSLock()
    private let timeout: TimeInterval
    private var waited: Duration = .zero
    private var episodes = 0

    /// SQLite's back-off in milliseconds (`sqliteDefaultBusyCallback`, main.c); then 100 ms a try.
    private static let delays: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    init(timeout: TimeInterval) { self.timeout = timeout }

    /// Called once when the store is released, with its totals (e.g. a CLI writing them to a log).
    public var onClose: (@Sendable (_ waited: Duration, _ waits: Int) -> Void)? {
        get { lock.withLock { close } }
        set { lock.withLock { close = newValue } }
    }
    private var close: (@Sendable (Duration, Int) -> Void)?

    func storeClosed() {
        let (report, total) = lock.withLock { (close, (waited, episodes)) }
        report?(total.0, total.1)
    }

    /// Total time spent waiting, in seconds.
    var seconds: Double {
        let waited = total.waited
        return Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
    }

    /// Total time spent waiting, and how many times a lock was found busy.
    public var total: (waited: Duration, waits: Int) {
        lock.withLock { (waited, episodes) }
    }

    /// Installs the handler on a connection (`sqlite3_busy_handler`); the connection must not
    /// outlive the meter, which the store's configuration keeps alive.
    func install(on db: Database) {
        sqlite3_busy_handler(
            db.sqliteConnection,
            { meter, tries in
                Unmanaged<LockWaitMeter>.fromOpaque(meter!).takeUnretainedValue().wait(tries: Int(tries)) ? 1 : 0
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// The busy handler: sleeps and returns true to retry, false once the timeout is spent.
    func wait(tries: Int) -> Bool {
        var delay = tries < Self.delays.count ? Self.delays[tries] : 100
        let prior = tries < Self.delays.count
            ? Self.delays[..<tries].reduce(0, +) : Self.delays.reduce(0, +) + (tries - Self.delays.count) * 100
        let timeoutMilliseconds = Int(timeout * 1000)
        if prior + delay > timeoutMilliseconds {
            delay = timeoutMilliseconds - prior
            if delay <= 0 { return false }
        }
        let clock = ContinuousClock()
        let slept = clock.measure { usleep(useconds_t(delay * 1000)) }
        lock.withLock {
            waited += slept
            if tries == 0 { episodes += 1 }
        }
        return true
    }
}

/// A connection `sqlite3_interrupt` may be called on from another thread (the one place SQLite
/// allows that), while `WorkInterruption.whileRunning` holds it.
private struct InterruptibleConnection: @unchecked Sendable {
    let connection: OpaquePointer?
    init(_ connection: OpaquePointer?) { self.connection = connection }
    func interrupt() { if let connection { sqlite3_interrupt(connection) } }
}
