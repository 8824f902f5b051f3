import Foundation
import GeoSpendTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// One token misbehaving against a real `geospend serve` while another user is served (issue 35,
/// items 3, 4 and 17): unread downloads, a deletion racing an import, large uploads. Short in
/// `make test`; `make reliability` (GEOSPEND_RELIABILITY_RUNS set) waits out the stall timeout
/// too and prints the figures docs/RELIABILITY.md quotes.
@Suite(.serialized) struct ServiceLoadTests {
    let f: ServiceFixture
    let db: String
    /// user1 of a generated file: ~20,000 expenses, a `users/me/export` of several MB, far more
    /// than a socket's buffers.
    let heavy: String
    let other: String

    init() throws {
        f = try ServiceFixture()
        (db, heavy, other) = try Self.twoUserFile(f, name: "load", seed: 3)
    }

    /// A generated file of 40,000 expenses of user1 and user2 beside the fixture's, with a write
    /// token of user1 and a read token of user2.
    static func twoUserFile(_ f: ServiceFixture, name: String, seed: Int) throws -> (db: String, user1Write: String, user2Read: String) {
        let made = try generated(seed: seed)
        let db = f.dir.appendingPathComponent("\(name).sqlite").path
        try FileManager.default.copyItem(atPath: made.db, toPath: db)
        return (db, made.user1Write, made.user2Read)
    }

    private static let made = Mutex<[Int: (db: String, user1Write: String, user2Read: String)]>([:])

    /// Made by the real binary once per test process and seed, then copied: generating and
    /// importing the rows took about 5 s of CPU, and each test has a fixture of its own. Left in
    /// the tests' temporary folder (make test empties it); a closed file, without a -wal.
    private static func generated(seed: Int) throws -> (db: String, user1Write: String, user2Read: String) {
        try made.withLock { made in
            if let file = made[seed] { return file }
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-service-load-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let db = dir.appendingPathComponent("load.sqlite").path, csv = dir.appendingPathComponent("load.csv").path
            func cli(_ args: [String]) throws -> String {
                let r = try runProgram(ServiceFixture.binary, args, directory: ServiceFixture.repo, environment: ServiceFixture.environment)
                try #require(r.status == 0, "\(args): \(r.err)")
                return r.out
            }
            _ = try cli(["generate", "--users", "2", "--expenses", "40000", "--seed", "\(seed)", "--out", csv])
            _ = try cli(["import", "stores", "Data/helsinki-places.geojson", "--db", db])
            _ = try cli(["import", "expenses", csv, "--db", db])
            let file = (db: db, user1Write: try ServiceFixture.token(user: "user1", scope: "write", db: db),
                        user2Read: try ServiceFixture.token(user: "user2", scope: "read", db: db))
            try #require(!FileManager.default.fileExists(atPath: db + "-wal"), "\(db)-wal left behind")
            made[seed] = file
            return file
        }
    }

    /// A connection with a small receive buffer that sends `request` and reads nothing.
    static func stalled(port: Int, _ request: String) throws -> Int32 {
        let fd = try #require(LoopbackSocket.connect(port: port, receiveBuffer: 4096))
        LoopbackSocket.send(fd, request)
        return fd
    }

    /// Each request's seconds, from one curl that asks `count` times on one connection.
    func latencies(port: Int, token: String, path: String, count: Int) throws -> [Double] {
        let url = "http://127.0.0.1:\(port)\(path)"
        let r = try runProgram("/usr/bin/curl", ["-s", "-m", "120", "-H", "Authorization: Bearer \(token)", "-w", "%{http_code} %{time_total}\n"]
                               + Array(repeating: ["-o", "/dev/null", url], count: count).flatMap { $0 })
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == count && lines.allSatisfy { $0.hasPrefix("200 ") }, "\(r.out.suffix(300))")
        return lines.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }

    /// Six downloads opened and never read: beyond three per user they are 503, and another
    /// user's requests keep their pace (p99 under 1 s; before, they waited 45 s and more).
    @Test func unreadDownloadsDoNotStarveOtherUsers() throws {
        let server = try LiveServerTests.Server(db: db, in: f.dir)
        defer { _ = server.stop() }
        let request = "GET /api/v1/users/me/export HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(heavy)\r\n\r\n"
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<6 {
            sockets.append(try Self.stalled(port: server.port, request))
            Thread.sleep(forTimeInterval: 0.2)
        }
        Thread.sleep(forTimeInterval: 1)
        let times = try latencies(port: server.port, token: other, path: "/api/v1/summary", count: 100)
            + latencies(port: server.port, token: other, path: "/api/v1/expenses?limit=20", count: 100)
        let p99 = ReliabilityFigures.percentile(times, 99)
        // The issue's aim, under 1 s, is held in `make reliability`, which runs alone; `make test`
        // runs every suite at once on 2 cores, so it holds a bound that only starvation misses
        // (before the fix these requests waited until the client gave up).
        let bound = ReliabilityFigures.isLong ? 1.0 : 5.0
        #expect(p99 < bound, "another user's p99 was \(p99) s with 6 unread downloads open")
        // Three of the six were refused: their answer is short and readable. Which three is the
        // order the server took them in, not the order they were sent: on a loaded machine the
        // fourth was once taken before the first (2 of the last three refused, CI of 8a84f41).
        var refused = 0
        for fd in sockets {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 2000) > 0, recv(fd, &buffer, buffer.count, 0) > 0, String(decoding: buffer, as: UTF8.self).hasPrefix("HTTP/1.1 503") {
                refused += 1
            }
        }
        #expect(refused == 3)
        var lines = ["service, 6 unread users/me/export streams of one token: another user's p99 \(String(format: "%.3f", p99)) s over \(times.count) requests, \(refused) of 6 streams refused (503)"]
        if ReliabilityFigures.isLong {
            // The three accepted streams are given up once nothing is read for the stall timeout:
            // a download of the same user goes through again, the sockets still open.
            Thread.sleep(forTimeInterval: 25)
            let again = try runProgram("/usr/bin/curl", ["-s", "-m", "60", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(heavy)",
                                                         "http://127.0.0.1:\(server.port)/api/v1/users/me/export"])
            #expect(again.out == "200", "after the stall timeout: \(again.out)")
            lines.append("service, after 25 s of the three streams unread: a new download of the same user answered \(again.out)")
        }
        ReliabilityFigures.report(lines)
    }

    /// `DELETE /users/me` while the user's import is still arriving: the deletion waits for the
    /// import, and deletes its rows too. Before, the import wrote after the deletion and the user
    /// came back with 2,000 rows and no token.
    @Test func aDeletedUserDoesNotComeBackThroughAnImportInFlight() throws {
        let server = try LiveServerTests.Server(db: db, in: f.dir)
        defer { _ = server.stop() }
        var body = "id,amount,currency,occurred_at,lat,lon\n"
        for i in 0..<2000 { body += "late\(i),1.00,EUR,2026-01-0\(i % 9 + 1)T10:00:00+02:00,60.17,24.94\n" }
        let bytes = Array(body.utf8)
        let head = "POST /api/v1/import/expenses?format=csv HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(heavy)\r\n"
            + "Content-Type: text/csv\r\nContent-Length: \(bytes.count)\r\n\r\n"
        let fd = try Self.stalled(port: server.port, head)
        defer { close(fd) }
        let half = bytes.count / 2
        _ = bytes[..<half].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        Thread.sleep(forTimeInterval: 0.5)

        let deletion = try RunningProgram("/usr/bin/curl", [
            "-s", "-m", "60", "-X", "DELETE", "-w", "\n%{http_code}", "-H", "Authorization: Bearer \(heavy)",
            "http://127.0.0.1:\(server.port)/api/v1/users/me",
        ])
        Thread.sleep(forTimeInterval: 1)
        #expect(deletion.isRunning, "the deletion did not wait for the import in flight")
        _ = bytes[half...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(deletion.waitUntilExit(timeout: .seconds(90)), "curl -m 60 still running")
        let said = deletion.standardOutput
        #expect(said.hasSuffix("\n200"), "\(said)")
        #expect(server.stop() == 0)
        let left = try runProgram("/usr/bin/sqlite3", [db, "SELECT count(*) FROM expenses WHERE user_id = 'user1'; SELECT count(*) FROM users WHERE id = 'user1';"])
        #expect(left.out == "0\n0\n", "user1 after the deletion: \(left.out)")
    }
}
