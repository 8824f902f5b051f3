import Foundation
import GeoSpend
import Logging
import PostgresNIO

/// GeoSpend's store on a PostgreSQL server with PostGIS: the same seam (`ExpenseStore`) as the
/// SpatiaLite file, for users who outgrow one file.
///
/// - A read scope is one `REPEATABLE READ READ ONLY` transaction: one snapshot, as a GRDB read
///   is on the file. A write scope is one transaction, all or nothing; writers take a
///   transaction-level advisory lock first, so writes run one at a time, as on the file.
/// - A read scope ends with `COMMIT AND CHAIN`, sent and not waited for: the connection goes back
///   to the pool inside a new read transaction that has run nothing, so the next read scope there
///   sends no `BEGIN` (one round trip fewer; PostgreSQL takes a repeatable-read snapshot at the
///   first statement, not at `BEGIN`). Such a transaction holds no snapshot and no lock; one left
///   idle for `chainIdle` is ended (docs/POSTGIS.md, "Chained read transactions").
/// - Bodies run synchronously on a dispatch thread (`offloaded`); each query inside waits for
///   postgres-nio on that thread (`waitFor`), never on Swift's cooperative threads.
/// - Connections are opened on demand and kept for the next scope (one per concurrent scope),
///   at most `maximumConnections` at once: a scope past them waits for one to come back. Each
///   keeps the plans of the filter-built reads it ran (`PreparedStatements`): planning was most
///   of a short read's time.
///
/// ```swift
/// let store = try await PostGISStore(PostGISAddress("postgresql://me@127.0.0.1:5432/spending"))
/// let hits = try await store.read { try $0.expenses(within: Distance(meters: 500), of: here, filter: ExpenseFilter(userID: "ann")) }
/// ```
public final class PostGISStore: ExpenseStore, @unchecked Sendable {
    public let address: PostGISAddress
    let logger: Logger
    private let lock = NSLock()
    private var idle: [PostgresConnection] = []
    private var nextID = 0
    /// Connections open or being opened, at most `maximumConnections`.
    private var opened = 0
    /// Scopes waiting for a connection, woken in the order they came: with a connection given
    /// back, or with nil when one closed (the waiter then tries again, and a scope arriving
    /// meanwhile may open that connection first).
    private var waiting: [(id: Int, turn: CheckedContinuation<PostgresConnection?, any Error>)] = []
    private var nextWaiter = 0

    /// How many connections a store opens at most, as postgres-nio's `PostgresClient` by
    /// default: a burst of requests waits its turn instead of taking the server's
    /// `max_connections` (100 by default) from every other client of the server.
    public static let defaultMaximumConnections = 20
    /// The most connections this store has open at once.
    public let maximumConnections: Int
    /// Each open connection's prepared statements, by connection id (ids are never reused).
    private var prepared: [PostgresConnection.ID: PreparedStatements] = [:]
    /// Each open connection's server process (`pg_backend_pid()`), whose statement a cancelled
    /// scope cancels (`cancelStatement`).
    private var backends: [PostgresConnection.ID: Int32] = [:]

    /// Whether this store only reads (a read replica): its write scopes throw.
    public let readOnly: Bool

    /// Connections idle inside a chained read transaction (`COMMIT AND CHAIN`) that has run
    /// nothing yet, and when each was given back.
    private var chained: [PostgresConnection.ID: NIODeadline] = [:]
    /// Connections with an idle check pending (`endIdleChain`): one timer per connection.
    private var watched: Set<PostgresConnection.ID> = []
    /// How long a connection may wait in the pool inside a chained transaction before it is
    /// ended: long enough for back-to-back scopes to reuse it, short enough that
    /// `pg_stat_activity` does not show connections "idle in transaction" for long.
    public static let defaultChainIdle = TimeAmount.seconds(1)
    let chainIdle: TimeAmount
    /// How many connections wait in the pool inside a chained read transaction (tests).
    var chainedConnections: Int { lock.withLock { chained.count } }

    /// Connects, and creates or migrates the schema (PostGIS included, when the user may).
    public convenience init(
        _ address: PostGISAddress, maximumConnections: Int = PostGISStore.defaultMaximumConnections,
        logger: Logger = Logger(label: "geospend.postgis")
    ) async throws {
        try await self.init(address, readOnly: false, maximumConnections: maximumConnections, chainIdle: Self.defaultChainIdle, logger: logger)
    }

    /// A store whose chained read transactions end after `chainIdle` in the pool (tests).
    convenience init(_ address: PostGISAddress, maximumConnections: Int, chainIdle: TimeAmount) async throws {
        try await self.init(address, readOnly: false, maximumConnections: maximumConnections, chainIdle: chainIdle, logger: Logger(label: "geospend.postgis"))
    }

    /// A read replica (a hot standby, or any copy of the primary's database): nothing is created
    /// or migrated there — it cannot be written — so its schema must be the one this GeoSpend
    /// knows already, else an error says to migrate the primary (any command on it does) first.
    public convenience init(readReplica address: PostGISAddress, logger: Logger = Logger(label: "geospend.postgis")) async throws {
        try await self.init(address, readOnly: true, maximumConnections: Self.defaultMaximumConnections, chainIdle: Self.defaultChainIdle, logger: logger)
    }

    private init(_ address: PostGISAddress, readOnly: Bool, maximumConnections: Int, chainIdle: TimeAmount, logger: Logger) async throws {
        precondition(maximumConnections > 0, "a store needs a connection")
        self.address = address
        self.logger = logger
        self.readOnly = readOnly
        self.maximumConnections = maximumConnections
        self.chainIdle = chainIdle
        let connection = try await take()
        do {
            let replica = readOnly ? address.description : nil
            try await connection.unlessClosed {
                if let replica {
                    try await PostGISSchema.check(connection, replica: replica, logger: logger)
                } else {
                    try await PostGISSchema.migrate(connection, logger: logger)
                }
            }
        } catch {
            try? await connection.close()
            throw PostGISError.wrap(error)
        }
        give(back: connection, chained: false)
    }

    /// postgres-nio traps when a connection is released unclosed: each is kept until its close
    /// completes.
    deinit {
        for c in idle { c.close().whenComplete { _ in withExtendedLifetime(c) {} } }
    }

    /// Closes the connections kept for later scopes.
    public func close() async {
        let connections = lock.withLock {
            defer { opened -= idle.count; idle = []; prepared = [:]; chained = [:]; backends = [:] }
            return idle
        }
        for c in connections { try? await c.close() }
    }

    /// The server's PostgreSQL and PostGIS versions (`geospend info`).
    public func serverVersions() async throws -> [String: String] {
        try await scope(.snapshot) { connection in
            let logger = self.logger
            let row = try waitFor(on: connection) {
                try await connection.query("SELECT current_setting('server_version'), postgis_lib_version()", logger: logger).collect()
            }[0]
            let (server, postgis) = try row.decode((String, String).self)
            return ["postgresql": server, "postgis": postgis]
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any ExpenseReader) throws -> T) async throws -> T {
        try await scope(.snapshot) { connection in
            try body(self.reader(on: connection))
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any ExpenseWriter) throws -> T) async throws -> T {
        guard !readOnly else { throw PostGISError.replicaIsReadOnly(url: address.description) }
        return try await scope(.write) { connection in
            let writer = PostGISWriter(connection: connection, logger: self.logger)
            let result = try body(writer)
            try writer.finish()
            // The outbox in the same transaction (issue 39): the events commit with the rows.
            let reader = self.reader(on: connection)
            try Self.raiseBudgetEvents(reader, touched: writer.touched)
            _ = try Self.raise(reader, writer.touched.importEvents)
            return result
        }
    }

    /// What a scope's transaction is.
    enum Transaction {
        /// One snapshot, read only.
        case snapshot
        /// Writes, under the writers' lock (one writer at a time).
        case write

        /// Its `BEGIN`, on a connection in no transaction or in a chained read transaction.
        func begin(chained: Bool) -> String {
            switch (self, chained) {
            case (.snapshot, false): "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            case (.snapshot, true): ""  // begun already; held all the same, to tell whether a statement ran
            case (.write, false): "BEGIN;\nSELECT pg_advisory_xact_lock(\(PostGISSchema.writerLock))"
            case (.write, true): "ROLLBACK;\nBEGIN;\nSELECT pg_advisory_xact_lock(\(PostGISSchema.writerLock))"
            }
        }
    }

    /// One transaction on a connection of its own, its `BEGIN` sent with the body's first
    /// statement (`DeferredBegin`), or none when the connection waits in a chained read
    /// transaction already; then, from the body's thread: a read's `COMMIT AND CHAIN`, sent and
    /// not waited for (it cannot fail for anything the body did, and the caller has its answer
    /// a round trip sooner); a write's COMMIT; or ROLLBACK when the body throws. A connection
    /// that failed mid-way is dropped, and so is one whose body may still be running (its
    /// caller was cancelled: `offloaded` returns at once): the close fails the body's next
    /// statement, so no later scope shares the connection with it. Before that close, the
    /// server is asked to cancel the statement the connection runs (`cancelStatement`).
    func scope<T: Sendable>(_ transaction: Transaction, _ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let connection = try await take()
        let wasChained = takeChain(of: connection)
        let logger = self.logger
        let outcome: Result<T, any Error>
        let chainedAfter: Bool
        do {
            (outcome, chainedAfter) = try await offloaded { () -> (Result<T, any Error>, Bool) in
                DeferredBegin.shared.hold(transaction.begin(chained: wasChained), logger: logger, on: connection)
                // What the body sent ahead (`sendAhead`) belongs to its outcome.
                var outcome = Result { try body(connection) }.flatMap { value in Result { try SentAhead.shared.settle(connection); return value } }
                // Nothing ran: nothing was begun, or the chained transaction is as it was.
                guard DeferredBegin.shared.take(connection) == nil else { return (outcome, wasChained) }
                switch (transaction, outcome) {
                case (.snapshot, .success):
                    send("COMMIT AND CHAIN", on: connection, logger: logger)
                    return (outcome, true)
                case (.write, .success):
                    do { try waitFor(on: connection) { try await connection.run(statements: "COMMIT", logger: logger) } } catch { outcome = .failure(error) }
                    return (outcome, false)
                case (_, .failure):
                    try? SentAhead.shared.settle(connection)  // the body threw before it waited
                    _ = try? waitFor(on: connection) { try await connection.run(statements: "ROLLBACK", logger: logger) }
                    return (outcome, false)
                }
            }
        } catch {
            // Cancelled: the body may still be running. Its statement is cancelled first, while
            // the connection is open: the server process it names is still this connection's.
            await cancelStatement(on: connection)
            await drop(connection)
            throw PostGISError.wrap(error)
        }
        if connection.isClosed { await drop(connection) } else { give(back: connection, chained: chainedAfter) }
        return try outcome.mapError { PostGISError.wrap($0) }.get()
    }

    /// A reader of a scope's statements on `connection`, keeping their plans there.
    func reader(on connection: PostgresConnection) -> PostGISReader {
        let statements = lock.withLock {
            if let known = prepared[connection.id] { return known }
            let fresh = PreparedStatements()
            prepared[connection.id] = fresh
            return fresh
        }
        return PostGISReader(connection: connection, logger: logger, statements: statements)
    }

    /// A connection outside any transaction, for what cannot run in one (VACUUM).
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await take()
        let wasChained = takeChain(of: connection)
        do {
            if wasChained { try await connection.simple("ROLLBACK", logger: logger) }
            let result = try await body(connection)
            give(back: connection, chained: false)
            return result
        } catch {
            if connection.isClosed { await drop(connection) } else { give(back: connection, chained: false) }
            throw PostGISError.wrap(error)
        }
    }

    /// A kept connection, else a new one while fewer than `maximumConnections` are open, else
    /// the next one given back or a turn to open one when another closes.
    private func take() async throws -> PostgresConnection {
        enum Next { case use(PostgresConnection), drop(PostgresConnection), open, wait }
        while true {
            let next: Next = lock.withLock {
                if let c = idle.popLast() { return c.isClosed ? .drop(c) : .use(c) }
                guard opened < maximumConnections else { return .wait }
                opened += 1
                return .open
            }
            switch next {
            case .use(let c): return c
            case .drop(let c): await drop(c)
            case .open:
                do { return try await connect() } catch {
                    closed()
                    throw error
                }
            case .wait:
                if let c = try await turn() { return c }
            }
        }
    }

    /// Waits for a connection given back (or nil: one closed); a cancelled caller stops waiting
    /// at once with `CancellationError`.
    private func turn() async throws -> PostgresConnection? {
        let id = lock.withLock { nextWaiter += 1; return nextWaiter }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<PostgresConnection?, any Error>) in
                let cancelled = lock.withLock {
                    if Task.isCancelled { return true }
                    waiting.append((id, turn))
                    return false
                }
                if cancelled { turn.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let turn = lock.withLock { () -> CheckedContinuation<PostgresConnection?, any Error>? in
                guard let i = waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return waiting.remove(at: i).turn
            }
            turn?.resume(throwing: CancellationError())
        }
    }

    /// A connection that closed (its statements went with its session); a waiting scope may open
    /// one in its place.
    private func drop(_ connection: PostgresConnection) async {
        lock.withLock {
            prepared[connection.id] = nil
            chained[connection.id] = nil
            backends[connection.id] = nil
        }
        try? await connection.close()
        closed()
    }

    /// One connection fewer is open: the first waiting scope is woken to open its own.
    private func closed() {
        let turn = lock.withLock { () -> CheckedContinuation<PostgresConnection?, any Error>? in
            opened -= 1
            return waiting.isEmpty ? nil : waiting.removeFirst().turn
        }
        turn?.resume(returning: nil)
    }

    /// To the first waiting scope, else kept for the next; one inside a chained transaction is
    /// watched, to end that transaction if it waits in the pool for `chainIdle`.
    private func give(back connection: PostgresConnection, chained isChained: Bool) {
        let (turn, watch) = lock.withLock { () -> (CheckedContinuation<PostgresConnection?, any Error>?, Bool) in
            chained[connection.id] = isChained ? .now() : nil
            let watch = isChained && watched.insert(connection.id).inserted
            if waiting.isEmpty {
                idle.append(connection)
                return (nil, watch)
            }
            return (waiting.removeFirst().turn, watch)
        }
        if watch { watchChain(of: connection, at: .now() + chainIdle) }
        turn?.resume(returning: connection)
    }

    /// Whether `connection`, just taken from the pool, waits in a chained read transaction; it is
    /// no longer counted as waiting there (its scope now ends or uses that transaction).
    private func takeChain(of connection: PostgresConnection) -> Bool {
        lock.withLock { chained.removeValue(forKey: connection.id) != nil }
    }

    private func watchChain(of connection: PostgresConnection, at deadline: NIODeadline) {
        connection.eventLoop.scheduleTask(deadline: deadline) { [weak self] in self?.endIdleChain(of: connection) }
    }

    /// Ends the chained transaction of a connection that has waited in the pool for `chainIdle`
    /// (ROLLBACK: it ran nothing), else looks again when it may have. The connection leaves the
    /// pool while its ROLLBACK is queued, so every later scope's statements come after it.
    private func endIdleChain(of connection: PostgresConnection) {
        enum Next { case stop, look(at: NIODeadline), end }
        let next: Next = lock.withLock {
            guard let given = chained[connection.id] else {
                watched.remove(connection.id)
                return .stop
            }
            let due = given + chainIdle
            guard due <= .now() else { return .look(at: due) }
            // Not in the pool: just handed to a waiting scope, which takes it out of `chained`.
            guard let i = idle.firstIndex(where: { $0 === connection }) else { return .look(at: .now() + chainIdle) }
            idle.remove(at: i)
            chained[connection.id] = nil
            watched.remove(connection.id)
            return .end
        }
        switch next {
        case .stop: break
        case .look(let deadline): watchChain(of: connection, at: deadline)
        case .end:
            send("ROLLBACK", on: connection, logger: logger)
            give(back: connection, chained: false)
        }
    }

    /// A new connection, its server process noted for `cancelStatement`.
    private func connect() async throws -> PostgresConnection {
        let connection = try await newConnection()
        do {
            let logger = self.logger
            let pid = try await connection.unlessClosed {
                try await connection.query("SELECT pg_backend_pid()", logger: logger).collect()
            }[0].decode(Int32.self)
            lock.withLock { backends[connection.id] = pid }
            return connection
        } catch {
            try? await connection.close()
            throw PostGISError.wrap(error)
        }
    }

    private func newConnection() async throws -> PostgresConnection {
        let id = lock.withLock { nextID += 1; return nextID }
        do {
            return try await PostgresConnection.connect(configuration: try address.configuration, id: id, logger: logger)
        } catch {
            throw PostGISError.cannotConnect(url: address.description, reason: "\(PostGISError.wrap(error))")
        }
    }

    /// Asks the server to cancel the statement `connection` runs, if any: `pg_cancel_backend`
    /// from a short-lived connection of its own, as the protocol's cancel request comes on one
    /// (postgres-nio 1.33 sends none, and keeps the key it would need to itself). The statement
    /// then stops at once, where the connection's close alone stops it only at the server's next
    /// check of its client (`client_connection_check_interval`, each second), and not at all on
    /// a server that cannot check. A process that runs nothing ignores the request. Best effort:
    /// a server that cannot be reached is left to that check. Runs in a task of its own, as the
    /// caller's task is cancelled already and postgres-nio's connect would give up at once.
    private func cancelStatement(on connection: PostgresConnection) async {
        guard !connection.isClosed, let pid = lock.withLock({ backends[connection.id] }) else { return }
        await Task {
            let logger = self.logger
            var other: PostgresConnection?
            do {
                let canceller = try await newConnection()
                other = canceller
                _ = try await canceller.unlessClosed { try await canceller.query("SELECT pg_cancel_backend(\(pid))", logger: logger).collect() }
            } catch {
                logger.warning("could not cancel the statement of server process \(pid): \(PostGISError.wrap(error))")
            }
            try? await other?.close()
        }.value
    }
}

extension PostgresConnection {
    /// Runs statements without results (DDL), one after another, each waited for with the close
    /// watch (`unlessClosed`).
    func simple(_ sql: String, logger: Logger) async throws {
        try await unlessClosed { try await self.run(statements: sql, logger: logger) }
    }
}
