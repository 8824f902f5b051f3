import Foundation
import GeoSpendTestStores
import GeoSpendTestSupport
import Testing

/// `geospend serve --db postgresql://…` answers the prices, lists, basket and trends endpoints
/// as the CLI does on a SpatiaLite file with the same data: the sample stores and expenses
/// (Data/README.md) on both, alice's prices (Data/examples/prices.csv, hand-written) and a list
/// stored over HTTP on the server and by the CLI on the file, then every answer compared byte
/// for byte with the CLI's `--format json` on the file.
@Suite(.serialized, .enabled(if: PostGISTestServer.address != nil, "needs $GEOSPEND_TEST_POSTGRES (make test starts a server)"))
struct PostGISServicePricesTests {
    let cli = PostGISCLITests()
    let alice = "user4"

    func run(_ args: [String], _ db: String) throws -> String {
        let r = try cli.geospend(args + ["--db", db])
        try #require(r.status == 0, "\(args) on \(db): \(r.err)")
        return r.out
    }

    @Test func pricesAndListsServeFromPostgreSQL() throws {
        defer { try? FileManager.default.removeItem(at: cli.dir) }  // no scratch left in /tmp
        let file = cli.dir.appendingPathComponent("h.sqlite").path
        let server = PostGISTestServer.url(try PostGISTestServer.newDatabase())
        for db in [file, server] {
            _ = try run(["import", "stores", "Data/helsinki-places.geojson"], db)
            _ = try run(["import", "expenses", "Data/sample-expenses.csv"], db)
        }
        _ = try run(["prices", "import", "Data/examples/prices.csv", "--user", alice], file)
        _ = try run(["lists", "add", "--user", alice, "--name", "Weekend", "--budget", "5", "--currency", "EUR", "--item", "Vollmilch 1,5%=2", "--over-budget"], file)
        let token = try #require(try run(["tokens", "create", "--user", alice, "--scope", "write"], server).split(separator: "\n").last.map(String.init))
        let served = try ServedBinary(["serve", "--db", server, "--port", "0"], binary: CLITests.binary, environment: PostGISCLITests.environment, in: cli.dir)
        defer { served.stop() }
        let prices = try String(contentsOfFile: CLITests.repo.appendingPathComponent("Data/examples/prices.csv").path, encoding: .utf8)
        let imported = try served.call("/api/v1/prices/import?format=csv", token: token, method: "POST", body: prices)
        #expect(imported.status == 200 && imported.body.contains("\"inserted\": 6"), "\(imported)")
        let list = try served.call("/api/v1/lists", token: token, method: "POST", body: #"{"name": "Weekend", "budget": "5", "currency": "EUR", "items": ["Vollmilch 1,5%=2"]}"#)
        #expect(list.status == 201, "\(list)")
        for (path, args) in [
            ("/api/v1/prices/history?product=Vollmilch%201%2C5%25", ["prices", "history", "--product", "Vollmilch 1,5%", "--user", alice]),
            ("/api/v1/products/search?text=milch", ["products", "search", "milch", "--user", alice]),
            ("/api/v1/basket?item=Vollmilch%201%2C5%25=2&as-of=2026-03-31", ["basket", "--item", "Vollmilch 1,5%=2", "--as-of", "2026-03-31", "--user", alice]),
            ("/api/v1/lists/1?as-of=2026-03-31", ["lists", "show", "--user", alice, "--id", "1", "--as-of", "2026-03-31", "--own-prices"]),
            ("/api/v1/trends?by=category", ["trends", "--user", alice, "--by", "category"]),
        ] {
            let a = try served.call(path, token: token)
            #expect(a.status == 200, "\(path): \(a.body)")
            #expect(a.body == (try run(args + ["--format", "json"], file)), "\(path)")
        }
    }
}

/// `geospend ARGS` running in the background (e.g. `serve --port 0`), its stderr and stdout in a
/// log; the port is read from its "listening on http://127.0.0.1:PORT" line.
final class ServedBinary {
    let process: RunningProgram
    let log: URL
    let port: Int

    init(_ args: [String], binary: String, environment: [String: String], in dir: URL) throws {
        log = dir.appendingPathComponent("serve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process = try RunningProgram(binary, args, environment: environment, output: log)
        var found: Int?
        let deadline = Date().addingTimeInterval(60)
        while found == nil && Date() < deadline && process.isRunning {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let r = text.range(of: "listening on http://127.0.0.1:") { found = Int(text[r.upperBound...].prefix { $0.isNumber }) } else { usleep(50_000) }
        }
        guard let found else {
            if process.isRunning { process.terminate(); process.waitUntilExit(timeout: .seconds(30)) }
            throw ServeError(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        }
        port = found
    }

    struct ServeError: Error { let log: String }

    func stop() {
        if process.isRunning { process.terminate(); process.waitUntilExit(timeout: .seconds(30)) }
    }

    /// curl's answer: the status and the body.
    func call(_ path: String, token: String, method: String = "GET", body: String? = nil) throws -> (status: Int, body: String) {
        var args = ["-s", "-w", "\n%{http_code}", "-X", method, "-H", "Authorization: Bearer \(token)"]
        if let body { args += ["--data-binary", body] }
        let r = try runProgram("/usr/bin/curl", args + ["http://127.0.0.1:\(port)\(path)"])
        let status = Int(r.out.split(separator: "\n").last ?? "") ?? 0
        return (status, String(r.out.dropLast(String(status).count + 1)))
    }
}
