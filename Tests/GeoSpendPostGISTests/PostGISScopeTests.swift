import Dispatch
import Foundation
import GeoSpend
@testable import GeoSpendPostGIS
import GeoSpendTestStores
import GeoSpendTestSupport
import PostgresNIO
import Synchronization
import Testing

/// What a PostgreSQL scope does around its body (`PostGISStore.scope`) when its caller goes
/// away: `offloaded` returns at once with `CancellationError` while the body still runs on its
/// thread, so the scope must not hand the body's connection to the next scope.
@Suite struct PostGISScopeTests {
    /// The body's statement after the cancellation fails (its connection was closed), instead of
    /// running outside any transaction on a connection the next scope took from the pool; the
    /// store goes on serving scopes on a new connection.
    @Test func aCancelledScopesConnectionIsClosedNotShared() async throws {
        guard PostGISTestServer.address != nil else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let store = try await PostGISTestServer.freshStore()
        let entered = Mutex(false)
        let late = Mutex<Result<StoreCounts, any Error>?>(nil)
        let release = DispatchSemaphore(value: 0)
        let task = Task {
            try await store.read { r -> Int in
                _ = try r.counts()  // the transaction has begun
                entered.withLock { $0 = true }
                _ = release.wait(timeout: .now() + 600)  // the body's own thread, not a cooperative one
                let again = Result { try r.counts() }
                late.withLock { $0 = again }
                return 0
            }
        }
        try await Self.until { entered.withLock { $0 } }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }

        #expect(try await store.read { try $0.counts() }.expenses == 0)
        release.signal()
        try await Self.until { late.withLock { $0 != nil } }
        let outcome = try #require(late.withLock { $0 })
        #expect(throws: (any Error).self) { try outcome.get() }
        await store.close()
    }

    /// The statement of a cancelled scope stops on the server as well, instead of running to its
    /// end (here an hour): the store cancels it (`pg_cancel_backend`) before it closes the
    /// connection. The server's own check of its clients, which would also end it a second
    /// after the close, is turned off for this transaction, so only the cancel can stop it.
    @Test func aCancelledScopesStatementStopsOnTheServer() async throws {
        guard let address = PostGISTestServer.address else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let store = try await PostGISTestServer.freshStore()
        let marker = "geospend_cancelled_\(UUID().uuidString.prefix(8))"
        let task = Task {
            try await store.read { r in
                let reader = r as! PostGISReader
                _ = try reader.rows(PostgresQuery(unsafeSQL: "SET LOCAL client_connection_check_interval = 0"))
                return try reader.rows(PostgresQuery(unsafeSQL: "SELECT pg_sleep(3600) -- \(marker)")).count
            }
        }
        func running() throws -> Int {
            let sql = "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%\(marker)%' AND pid <> pg_backend_pid()"
            let r = try runProgram("/usr/bin/psql", ["\(address)", "-qAt", "-c", sql])
            return Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        try await Self.until { (try? running()) == 1 }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        try await Self.until(seconds: 60) { (try? running()) == 0 }
        #expect(try await store.read { try $0.counts() }.expenses == 0)
        await store.close()
    }

    /// More scopes at once than the store may open connections: all answer, and the server never
    /// sees more of the store's connections than its maximum (each body counts them there).
    @Test func scopesPastTheMaximumWaitForAConnection() async throws {
        guard PostGISTestServer.address != nil else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let store = try await PostGISTestServer.freshStore(maximumConnections: 2)
        let seen = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await store.read { r in
                        let reader = r as! PostGISReader
                        let sql = "SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND pid <> 0"
                        let open = try reader.rows(PostgresQuery(unsafeSQL: sql))[0].decode(Int.self)
                        _ = try reader.rows(PostgresQuery(unsafeSQL: "SELECT pg_sleep(0.1)"))  // the others start meanwhile
                        return open
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(seen.count == 8)
        #expect(seen.max() ?? 0 <= 2, "connections seen by the scopes: \(seen)")
        await store.close()
    }

    /// A scope waiting for a connection stops waiting when its caller is cancelled, and leaves
    /// nothing behind: the next scope gets the connection.
    @Test func aCancelledWaitForAConnectionEndsAtOnce() async throws {
        guard PostGISTestServer.address != nil else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let store = try await PostGISTestServer.freshStore(maximumConnections: 1)
        let entered = Mutex(false)
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await store.read { r -> Int in
                _ = try r.counts()
                entered.withLock { $0 = true }
                _ = release.wait(timeout: .now() + 600)  // the body's own thread, not a cooperative one
                return try r.counts().expenses
            }
        }
        try await Self.until { entered.withLock { $0 } }
        let waiter = Task { try await store.read { try $0.counts().expenses } }
        try await Task.sleep(for: .milliseconds(100))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        release.signal()
        #expect(try await holder.value == 0)
        #expect(try await store.read { try $0.counts().expenses } == 0)
        await store.close()
    }

    /// A read scope ends with `COMMIT AND CHAIN`, and the next read scope on that connection
    /// sends no `BEGIN`: it must still see what committed in between (its snapshot is taken at
    /// its first statement), and a write scope there must not run in the chained read-only
    /// transaction.
    @Test func aChainedReadSeesWhatCommittedSince() async throws {
        guard let server = PostGISTestServer.address else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let database = try await PostGISTestServer.newMigratedDatabase()
        let store = try await PostGISStore(server.with(database: database), maximumConnections: 1, chainIdle: .minutes(10))
        #expect(try await store.read { try $0.hasUser("late") } == false)
        #expect(store.chainedConnections == 1)
        // The unawaited COMMIT AND CHAIN leaves the connection in a transaction that has run nothing.
        try await Self.until(seconds: 60) { (try? Self.states(database)) == ["idle in transaction"] }

        try PostGISTestServer.psql("INSERT INTO users (id) VALUES ('late')", database: database)
        #expect(try await store.read { try $0.hasUser("late") })
        #expect(store.chainedConnections == 1)

        // A write on the chained connection: its rows are committed, the connection left in no transaction.
        let places = try Importer.readStores(from: Repository.root.appendingPathComponent("Data/helsinki-places.geojson").path)
        var one: [Expense] = []
        SyntheticData(places: places, scale: .city).generateExpenses(users: 1, count: 1, seed: 3) { one.append($0) }
        let outcomes = try await store.write { [one] w in
            try w.insert(places.map { HashedRow($0, contentHash: $0.contentHash) }) + w.insert(one.map { HashedRow($0, contentHash: $0.contentHash) })
        }
        #expect(outcomes.allSatisfy { $0 == RowOutcome.inserted })
        #expect(store.chainedConnections == 0)
        #expect(try Self.states(database) == ["idle"])  // the write's COMMIT was waited for
        let rows = try runProgram("/usr/bin/psql", [PostGISTestServer.url(database), "-qAt", "-c", "SELECT count(*) FROM expenses"])
        #expect(rows.out.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(try await store.read { try $0.counts().expenses } == 1)
        await store.close()
    }

    /// A chained read transaction left idle in the pool for `chainIdle` is ended: the server
    /// then shows the connection idle, not idle in a transaction, and the store still serves.
    @Test func anIdleChainedTransactionIsEnded() async throws {
        guard let server = PostGISTestServer.address else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let database = try await PostGISTestServer.newMigratedDatabase()
        let store = try await PostGISStore(server.with(database: database), maximumConnections: 1, chainIdle: .milliseconds(50))
        #expect(try await store.read { try $0.counts().expenses } == 0)
        try await Self.until(seconds: 60) { (try? Self.states(database)) == ["idle"] }
        #expect(store.chainedConnections == 0)
        #expect(try await store.read { try $0.counts().expenses } == 0)
        await store.close()
    }

    /// Every connection asks for generic plans and no parallel workers when it opens: the plans
    /// docs/MEASUREMENTS.md measured (§ Generic plans and an unawaited COMMIT, § Parallel
    /// workers) depend on both.
    @Test func connectionsAskForGenericPlansAndNoParallelWorkers() async throws {
        guard let server = PostGISTestServer.address else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let database = try await PostGISTestServer.newMigratedDatabase()
        let store = try await PostGISStore(server.with(database: database))
        let logger = store.logger
        let settings = try await store.withConnection { connection in
            var found: [String] = []
            let sql = "SELECT current_setting('plan_cache_mode') || ' ' || current_setting('max_parallel_workers_per_gather')"
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self) {
                found.append(value)
            }
            return found
        }
        #expect(settings == ["force_generic_plan 0"])
        await store.close()
    }

    /// A COPY is sent ahead (`sendAhead`: the body goes on while the server takes the rows).
    /// When it fails, the body's next statement throws the COPY's own error, not the aborted
    /// transaction's; a body that sends nothing after it fails with that error at its end; the
    /// scope rolls back either way and its connection serves the next scope.
    @Test func aCopySentAheadThatFailsFailsItsScope() async throws {
        guard PostGISTestServer.address != nil else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let store = try await PostGISTestServer.freshStore(maximumConnections: 1)
        var twice = CopyText()
        for id in ["copied", "copied"] { twice.text(id); twice.endRow() }  // the same key twice
        func users() async throws -> Int {
            try await store.scope(.snapshot) { c in
                try waitFor(on: c) { try await c.query("SELECT count(*) FROM users", logger: store.logger).collect() }[0].decode(Int.self)
            }
        }
        let text = twice
        for statementAfter in [true, false] {
            let error = await #expect(throws: PostGISError.self) {
                try await store.scope(.write) { c in
                    try c.copy("users", ["id"], text, logger: store.logger)
                    if statementAfter { _ = try waitFor(on: c) { try await c.query("SELECT 1", logger: store.logger).collect() } }
                }
            }
            #expect("\(error.map { String(describing: $0) } ?? "")".contains("duplicate key"), "\(String(describing: error))")
            #expect(try await users() == 0)
        }
        // A COPY that succeeds commits with the scope.
        var one = CopyText()
        one.text("copied"); one.endRow()
        let good = one
        try await store.scope(.write) { c in try c.copy("users", ["id"], good, logger: store.logger) }
        #expect(try await users() == 1)
        await store.close()
    }

    /// The states (`pg_stat_activity.state`) of the connections to `database` other than psql's own.
    static func states(_ database: String) throws -> [String] {
        let sql = "SELECT state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY state"
        let run = try runProgram("/usr/bin/psql", [PostGISTestServer.url(database), "-qAt", "-c", sql])
        return run.out.split(separator: "\n").map(String.init)
    }

    struct TimedOut: Error {}

    /// Polls `condition` every 10 ms; throws `TimedOut` after `seconds`, 600 by default. In a
    /// whole `make test` run the read scope's body once took over 60 s to start (a clean-clone CI,
    /// 4 December 2026).
    static func until(seconds: Int = 600, _ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        while !condition() {
            guard clock.now < deadline else { throw TimedOut() }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
