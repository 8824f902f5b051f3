import Foundation
import GeoSpendTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `geospend serve` on a free loopback port, spoken to with curl: what a client sees,
/// streamed exports equal to the CLI's files, and SIGTERM → exit 0.
@Suite(.serialized) struct LiveServerTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    /// A running `geospend serve --port 0` and the port it took.
    final class Server {
        let process: RunningProgram
        let port: Int
        let logFile: URL

        init(
            db: String, in dir: URL, arguments: [String] = [], environment: [String: String] = ServiceFixture.environment,
            binary: String = ServiceFixture.binary
        ) throws {
            logFile = dir.appendingPathComponent("serve-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
            process = try RunningProgram(
                binary, ["serve", "--db", db, "--port", "0"] + arguments, environment: environment, output: logFile)
            let deadline = Date().addingTimeInterval(60)
            var found: Int?
            while found == nil && Date() < deadline && process.isRunning {
                let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
                if let r = log.range(of: "listening on http://127.0.0.1:") {
                    found = Int(log[r.upperBound...].prefix { $0.isNumber })
                } else {
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            guard let found else {
                process.terminate()
                throw ServiceFixture.FixtureError(message: "serve did not start: " + ((try? String(contentsOf: logFile, encoding: .utf8)) ?? ""))
            }
            port = found
        }

        var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

        /// SIGTERM, then the exit status (nil when it did not stop within 20 s).
        func stop() -> Int32? {
            process.terminate()
            guard process.waitUntilExit(timeout: .seconds(20)) else {
                process.interrupt()
                return nil
            }
            return process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    /// curl's body, and the status code as the last line.
    func curl(_ port: Int, _ path: String, token: String?, method: String = "GET") throws -> (status: Int, body: String) {
        var args = ["-s", "-X", method, "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"]
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        let r = try runProgram("/usr/bin/curl", args)
        let status = Int(r.out.split(separator: "\n").last ?? "") ?? 0
        return (status, String(r.out.dropLast(String(status).count + 1)))
    }

    @Test func servesOverHTTPAndStopsCleanlyOnSIGTERM() throws {
        let server = try Server(db: f.db, in: f.dir)
        let token = try #require(f.tokens["alice"])
        let health = try curl(server.port, "/health", token: nil)
        #expect(health.status == 200)
        let near = try curl(server.port, "/api/v1/near?lat=60.1699&lon=24.9384&radius=2km", token: token)
        let cli = try f.geospend(["near", "--user", ServiceFixture.alice, "--lat", "60.1699", "--lon", "24.9384", "--radius", "2km", "--format", "json", "--db", f.db])
        #expect(near.status == 200)
        #expect(near.body == cli.out)
        // Streamed layers and the user's export: the CLI's files, byte for byte.
        for (path, args) in [
            ("/api/v1/export/points", ["export", "points"]),
            // The web app's lean layer (issue 41): a choice of properties, asked out of order.
            ("/api/v1/export/points?properties=position_source,amount,store_id&from=2025-03-01",
             ["export", "points", "--properties", "position_source,amount,store_id", "--from", "2025-03-01"]),
            ("/api/v1/export/grid?cell=500m", ["export", "grid", "--cell", "500m"]),
            ("/api/v1/export/density?cell=100m&bandwidth=400m", ["export", "density", "--cell", "100m", "--bandwidth", "400m"]),
            ("/api/v1/export/places", ["export", "places"]),
        ] {
            let served = try curl(server.port, path, token: token)
            let file = try f.geospend(args + ["--user", ServiceFixture.alice, "--db", f.db])
            #expect(served.status == 200, "\(path)")
            #expect(served.body == file.out, "\(path)")
            #expect(served.body.contains("\"Feature\""), "\(path)")
        }
        let export = try curl(server.port, "/api/v1/users/me/export", token: token)
        let cliExport = try f.geospend(["users", "export", ServiceFixture.alice, "--db", f.db])
        #expect(export.status == 200)
        #expect(export.body == cliExport.out)
        #expect(server.stop() == 0)
        // Requests are logged, tokens never.
        #expect(server.log.contains("/api/v1/near"))
        #expect(!server.log.contains(String(token.split(separator: "_").last!)))
    }

    /// A token revoked by the CLI, another process, while `serve` runs stops working at the
    /// next request, on the routes that check it in their own read scope (near, nearest-stores)
    /// as on those behind the middleware (summary): nothing remembers a token between requests.
    @Test func aTokenRevokedInAnotherProcessIsRefusedAtOnce() throws {
        let server = try Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let token = try #require(f.tokens["alice"])  // alice's token 1 (ServiceFixture makes it first)
        let paths = ["/api/v1/near?lat=60.1699&lon=24.9384&radius=2km", "/api/v1/nearest-stores?lat=60.1699&lon=24.9384", "/api/v1/summary"]
        for path in paths { #expect(try curl(server.port, path, token: token).status == 200, "\(path)") }
        let revoked = try f.geospend(["tokens", "revoke", "--user", ServiceFixture.alice, "1", "--db", f.db])
        #expect(revoked.status == 0, "\(revoked.err)")
        for path in paths {
            let a = try curl(server.port, path, token: token)
            #expect(a.status == 401, "\(path): \(a.body)")
        }
        #expect(try curl(server.port, paths[0], token: f.tokens["bob"]).status == 200)  // other tokens still work
    }

    /// GDAL's OAPIF driver, an outside reader: every collection is listed with its full feature
    /// count, and reading a whole layer 7 features a page (following `next`) gets every feature.
    @Test func gdalReadsEveryCollectionWhole() throws {
        let server = try Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let token = try #require(f.tokens["alice"])
        var env = ServiceFixture.environment
        env["GDAL_HTTP_HEADERS"] = "Authorization: Bearer \(token)"
        let url = "OAPIF:http://127.0.0.1:\(server.port)/ogc"
        // The oracle: the CLI's layers (their "features" count) and the stores in the file.
        func layerCount(_ args: [String]) throws -> Int {
            let out = try f.geospend(["export"] + args + ["--user", ServiceFixture.alice, "--db", f.db]).out
            let r = try #require(out.range(of: "\"features\":"))
            return Int(out[r.upperBound...].prefix { $0.isNumber })!
        }
        let stores = try runProgram("/usr/bin/sqlite3", [f.db, "SELECT count(*) FROM stores"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let expected: [(String, Int)] = [
            ("expenses", try layerCount(["points"])), ("places", try layerCount(["places"])),
            ("hex", try layerCount(["grid", "--cell", "250m"])), ("density", try layerCount(["density", "--cell", "50m", "--bandwidth", "300m"])),
            ("stores", try #require(Int(stores))),
        ]
        let listing = try runProgram("/usr/bin/ogrinfo", ["-ro", "-q", url], environment: env)
        #expect(listing.status == 0, "\(listing.err)")
        for (layer, count) in expected {
            #expect(count > 0, "\(layer)")
            #expect(listing.out.contains(": \(layer) ("), "\(listing.out)")
            let info = try runProgram("/usr/bin/ogrinfo", ["-ro", "-so", url, layer], environment: env)
            #expect(info.out.contains("Feature Count: \(count)\n"), "\(layer): \(info.out) \(info.err)")
        }
        // Paging: the whole expenses layer, 7 a page, through ogr2ogr.
        let copy = f.dir.appendingPathComponent("expenses-copy.geojson").path
        let r = try runProgram("/usr/bin/ogr2ogr", ["-f", "GeoJSON", copy, url, "expenses", "-oo", "PAGE_SIZE=7"], environment: env)
        #expect(r.status == 0, "\(r.err)")
        let copied = try String(contentsOfFile: copy, encoding: .utf8).components(separatedBy: "\"type\": \"Feature\"").count - 1
        #expect(copied == expected[0].1)
        #expect(server.log.components(separatedBy: "/ogc/collections/expenses/items").count - 1 >= expected[0].1 / 7)
    }

    /// The checked-in OpenAPI 3.1 document is valid (openapi-spec-validator), served as is, and
    /// holds under schemathesis (PyPI): about 6,000 generated requests per run (all four of its
    /// phases, at most 10 examples an operation in the fuzzing ones), none answered with a 5xx, a
    /// status or content type the document does not list, or a body that breaks its schema. The
    /// token is a read token: DELETE /api/v1/users/me is answered 403. `make fuzz` runs it with
    /// 100 examples an operation ($GEOSPEND_SCHEMATHESIS_EXAMPLES).
    @Test func openAPIDocumentHoldsUnderSchemathesis() throws {
        // 30 examples took 42 s of schemathesis's CPU and 10 took 25 s (8,354 and 6,011 requests;
        // the coverage phase's ~4,700 do not depend on it): make test runs every suite at once.
        let examples = ProcessInfo.processInfo.environment["GEOSPEND_SCHEMATHESIS_EXAMPLES"] ?? "10"
        let venv = ServiceFixture.repo.appendingPathComponent(".venv/bin").path
        let document = ServiceFixture.repo.appendingPathComponent("Sources/GeoSpendService/openapi.json").path
        let valid = try runProgram(venv + "/openapi-spec-validator", [document])
        #expect(valid.status == 0, "\(valid.out) \(valid.err)")
        let server = try Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        let served = try curl(server.port, "/openapi.json", token: nil)
        #expect(served.body == (try String(contentsOfFile: document, encoding: .utf8)))
        var env = ServiceFixture.environment
        env["SCHEMATHESIS_HOOKS"] = nil
        // schemathesis calls a request with no answer within 10 s (its default) a network error.
        // Alone this run's slowest request took 68 ms and the run 35 s, but make test runs every
        // suite at once (74 s there): it waits 60 s, past the service's own 30 s limit on reads.
        let run = try runProgram(
            venv + "/schemathesis",
            ["run", "http://127.0.0.1:\(server.port)/openapi.json", "-H", "Authorization: Bearer \(try #require(f.tokens["alice"]))",
             "--max-examples", examples, "--generation-deterministic", "--no-color", "--request-timeout", "60",
             "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance"],
            directory: f.dir, environment: env, timeout: .seconds(600))
        // The ERRORS section names the request that failed, and the server's log says what it made
        // of it (the CI run of 82a9f5c failed with "Network Error: 1" and that section cut off).
        let errors = run.out.range(of: " ERRORS ").map { String(run.out[$0.lowerBound...].prefix(6000)) } ?? ""
        let unusual = server.log.split(separator: "\n").filter {
            !$0.hasSuffix("] request") || $0.contains("status=5") || $0.range(of: #"ms=[0-9]{4,} "#, options: .regularExpression) != nil
        }
        #expect(run.status == 0, "\(errors)\n…\(run.out.suffix(3000)) \(run.err.suffix(2000))\nthe server's other log lines:\n\(unusual.suffix(40).joined(separator: "\n"))")
        #expect(run.out.contains("passed"))
    }

    /// `/map` in headless Chromium, the token in the address's fragment: the page draws the
    /// CLI layers' counts of features, read live from the API, and the token is in no log line.
    @Test func mapPageReadsTheLiveAPI() throws {
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let server = try Server(db: f.db, in: f.dir)
        let token = try #require(f.tokens["alice"])
        func count(_ args: [String]) throws -> Int {
            let out = try f.geospend(["export"] + args + ["--user", ServiceFixture.alice, "--db", f.db]).out
            let r = try #require(out.range(of: "\"features\":"))
            return Int(out[r.upperBound...].prefix { $0.isNumber })!
        }
        let expected = "points \(try count(["points"])), hexagons \(try count(["grid"])), places \(try count(["places"]))"
        let dom = try runProgram(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", "--user-data-dir=\(f.dir.path)/chromium",
            "--dump-dom", "http://127.0.0.1:\(server.port)/map#token=\(token)",
        ])
        #expect(dom.out.contains("<p id=\"status\">\(expected)</p>"), "\(dom.out.suffix(500)) \(dom.err.suffix(500))")
        // Issue 41: the web app's offline basemap under the layers, with every feature of the
        // file; a title, a legend in money, a metric scale bar, the ODbL credit.
        let basemap = try String(contentsOf: ServiceFixture.repo.appendingPathComponent("Data/helsinki-basemap.geojson"), encoding: .utf8)
        let features = basemap.components(separatedBy: "{\"type\":\"Feature\"").count - 1
        #expect(features > 1000)
        #expect(dom.out.range(of: #"data-layer="basemap"[^>]*data-features="\#(features)""#, options: .regularExpression) != nil, "no basemap pane with \(features) features")
        #expect(dom.out.contains(">GeoSpend live map — EUR<"))
        #expect(dom.out.contains("EUR per 250 m cell") && dom.out.contains("€0 – "))
        #expect(dom.out.range(of: #"class="leaflet-control-scale-line"[^>]*>[0-9]+ k?m<"#, options: .regularExpression) != nil, "no metric scale bar")
        #expect(dom.out.contains("Basemap and places © <a href=\"https://www.openstreetmap.org/copyright\">OpenStreetMap contributors</a>, ODbL"))
        #expect(server.stop() == 0)
        #expect(server.log.contains("/api/v1/export/points"))
        #expect(!server.log.contains(token))
    }

    /// `serve` runs on PostgreSQL too (PostGISEditingCLITests.serveOnPostgreSQL); a server that
    /// is not there is a runtime failure naming the address.
    @Test func anUnreachablePostgreSQLAddressExits1() throws {
        let r = try f.geospend(["serve", "--db", "postgresql://nobody@127.0.0.1:1/none"])
        #expect(r.status == 1)
        #expect(r.err.contains("cannot connect to postgresql://nobody@127.0.0.1:1/none"), "\(r.err)")
    }
}
