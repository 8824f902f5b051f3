import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite
import GeoSpendTestSupport
import Hummingbird
import Logging
import HummingbirdTesting
import Testing

/// A database made by the real `geospend` binary from the repository's sample data (Data/README.md:
/// helsinki-places.geojson from OpenStreetMap, sample-expenses.csv from `geospend generate`),
/// with tokens made by `geospend tokens create`. Removed with the fixture.
final class ServiceFixture: @unchecked Sendable {
    static let repo = Repository.root
    static let binary = builtGeoSpendBinary(repo: repo)
    /// Fixed generation time: exports from the CLI and the service are then byte-identical.
    static let environment: [String: String] = {
        var e = ProcessInfo.processInfo.environment
        e["GEOSPEND_DB"] = nil
        e["SOURCE_DATE_EPOCH"] = "1772000000"
        return e
    }()

    /// Two users of the sample data: "alice" and "bob" in the tests' words.
    static let alice = "user4", bob = "user7"

    let dir: URL
    let db: String
    /// Tokens by name: alice (read), aliceWrite (write), bob (read), admin (alice's, admin).
    private(set) var tokens: [String: String] = [:]

    /// A copy of the template the first fixture of the test process built: the same file as
    /// building it again (the CLI's imports and `tokens create`), at a fiftieth of the cost —
    /// a hundred-odd fixtures a run took about a CPU-second each.
    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        db = dir.appendingPathComponent("service.sqlite").path
        let template = try Self.template.get()
        try FileManager.default.copyItem(atPath: template.db, toPath: db)
        tokens = template.tokens
    }

    /// Built once per test process, by the real binary; left in the tests' temporary folder
    /// (make test empties it). A closed file: the last connection's close checkpoints and
    /// removes the write-ahead log.
    private static let template: Result<(db: String, tokens: [String: String]), any Error> = Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-service-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("service.sqlite").path
        for args in [["import", "stores", "Data/helsinki-places.geojson"], ["import", "expenses", "Data/sample-expenses.csv"]] {
            let r = try runProgram(binary, args + ["--db", db], directory: repo, environment: environment)
            guard r.status == 0 else { throw FixtureError(message: "\(args): \(r.err)") }
        }
        let tokens = [
            "alice": try token(user: alice, scope: "read", db: db),
            "aliceWrite": try token(user: alice, scope: "write", db: db),
            "bob": try token(user: bob, scope: "read", db: db),
            "admin": try token(user: alice, scope: "admin", db: db),
        ]
        guard !FileManager.default.fileExists(atPath: db + "-wal") else { throw FixtureError(message: "\(db)-wal left behind") }
        return (db, tokens)
    }

    deinit { try? FileManager.default.removeItem(at: dir) }

    struct FixtureError: Error { let message: String }

    func geospend(_ args: [String]) throws -> ProgramOutput {
        try runProgram(Self.binary, args, directory: Self.repo, environment: Self.environment)
    }

    /// A new token of this fixture's database.
    func token(user: String, scope: String) throws -> String { try Self.token(user: user, scope: scope, db: db) }

    /// `tokens create`'s last line of stdout.
    static func token(user: String, scope: String, db: String) throws -> String {
        let r = try runProgram(binary, ["tokens", "create", "--user", user, "--scope", scope, "--db", db], directory: repo, environment: environment)
        guard r.status == 0, let line = r.out.split(separator: "\n").last else { throw FixtureError(message: r.err) }
        return String(line)
    }

    func store() throws -> SpatiaLiteStore { try SpatiaLiteStore(path: db) }

    /// `geospend ARGS --db DB`'s stdout, the command required to succeed.
    func cli(_ args: [String], db: String) throws -> String {
        let r = try geospend(args + ["--db", db])
        try #require(r.status == 0, "\(args): \(r.err)")
        return r.out
    }

    /// A copy of the database (sqlite3 `.backup`), for the CLI to change alongside the service.
    func copy() throws -> String {
        let copy = dir.appendingPathComponent("copy.sqlite").path
        try #require(try runProgram("/usr/bin/sqlite3", [db, ".backup '\(copy)'"]).status == 0)
        return copy
    }

    /// One request to the router with the fixture's token named `token` ("alice", "aliceWrite", …).
    func call(_ uri: String, _ token: String = "alice", method: HTTPRequest.Method = .get, body: String? = nil) async throws -> Answer {
        try await withClient { [tokens] in try await $0.call(uri, token: tokens[token], method: method, body: body) }
    }

    /// Runs `body` with a client of the router (no network: HummingbirdTesting's `.router`).
    func withClient<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let app = Application(router: buildRouter(store: try store(), timeLimit: Self.patient), logger: Self.quiet)
        return try await app.test(.router) { client in try await body(client) }
    }

    /// The in-process routers' time limit: `make test` loads 2 cores with every suite at once, and
    /// a read that takes 2 ms alone took over the service's 30 s there once (TimeLimitTests checks
    /// the limit itself).
    static let patient: Duration = .seconds(600)

    /// Warnings and errors only: a line per request would bury the test report.
    static let quiet: Logger = {
        var l = Logger(label: "geospend-tests")
        l.logLevel = .warning
        return l
    }()
}

/// A GET (or another method) with a bearer token; the status, body and headers come back.
struct Answer: Sendable {
    let status: HTTPResponse.Status
    let body: String
    let headers: HTTPFields
}

/// A refusal: `status`, an RFC 9457 problem, and a detail that `says` why.
func expectProblem(_ a: Answer, status: Int, says: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(Int(a.status.code) == status, "\(a.body)", sourceLocation: sourceLocation)
    #expect(a.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
    #expect(a.body.contains(says), "\(a.body)", sourceLocation: sourceLocation)
}

extension TestClientProtocol {
    func call(_ uri: String, token: String?, method: HTTPRequest.Method = .get, body: String? = nil) async throws -> Answer {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { r in
            Answer(status: r.status, body: String(buffer: r.body), headers: r.headers)
        }
    }
}
