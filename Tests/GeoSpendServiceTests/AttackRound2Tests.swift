import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 35's attacks on the service (docs/RELIABILITY.md § 9), each answered the way the
/// fix says: links from configuration, a privacy floor no request lowers, bounded answers,
/// problems instead of empty 200s, no private query text in the log, half-open connections
/// closed, and store names shown as text on the live map.
@Suite(.serialized) struct AttackRound2Tests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    func client<T: Sendable>(_ settings: ServiceSettings = .init(), _ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let app = Application(router: buildRouter(store: try f.store(), timeLimit: ServiceFixture.patient, settings: settings), logger: ServiceFixture.quiet)
        return try await app.test(.router) { try await body($0) }
    }

    // MARK: item 12: k-anonymity is the operator's

    @Test(arguments: [
        "/api/v1/report/stores?min-users=1",
        "/api/v1/report/store/4773918022?min-users=2",
        "/tiles/heat/0/0/0.mvt?all-users=true&min-users=1",
        "/tiles/places.json?all-users=true&min-users=2",
        "/api/v1/basket?item=Milch&all-users=true&min-users=1",
    ])
    func anAdminCannotAskForFewerUsersThanTheFloor(uri: String) async throws {
        let a = try await client { try await $0.call(uri, token: f.tokens["admin"]) }
        expectProblem(a, status: 400, says: "fewer than 3 users")
    }

    /// The floor is the service's setting: one that starts with `--min-users 1` answers.
    @Test func aServiceStartedWithALowerFloorAnswers() async throws {
        let a = try await client(ServiceSettings(minUsersFloor: 1)) { try await $0.call("/api/v1/report/stores?min-users=1", token: f.tokens["admin"]) }
        #expect(a.status == .ok, "\(a.body)")
    }

    // MARK: item 5: bounded answers

    @Test func trendsOverTenThousandYearsAreRefused() async throws {
        let a = try await client { try await $0.call("/api/v1/trends?from=0000-01-01&to=9999-12-31&by=store", token: f.tokens["alice"]) }
        expectProblem(a, status: 400, says: "narrow --from/--to")
        let plain = try await client { try await $0.call("/api/v1/trends?from=0001-01-01&to=9999-12-31", token: f.tokens["alice"]) }
        expectProblem(plain, status: 400, says: "more than 1200 months")
        let century = try await client { try await $0.call("/api/v1/trends?from=1950-01-01&to=2049-12-31", token: f.tokens["alice"]) }
        #expect(century.status == .ok, "\(century.body.prefix(300))")
    }

    // MARK: item 7: a snap search has a cap

    @Test func aSnapWiderThanAKilometreIsRefused() async throws {
        let a = try await client { try await $0.call("/api/v1/snap?tolerance=100km", token: f.tokens["alice"]) }
        expectProblem(a, status: 400, says: "give 1km or less")
        let r = try f.geospend(["snap", "--user", ServiceFixture.alice, "--tolerance", "2km", "--dry-run", "--db", f.db])
        #expect(r.status != 0 && r.err.contains("give 1km or less"), "\(r.err)")
        let ok = try await client { try await $0.call("/api/v1/snap?tolerance=1km", token: f.tokens["alice"]) }
        #expect(ok.status == .ok, "\(ok.body.prefix(300))")
    }

    // MARK: item 21: NUL in a query

    @Test func aNULInTheQueryIsA400() async throws {
        let a = try await client { try await $0.call("/api/v1/search/expenses?text=a%00b", token: f.tokens["alice"]) }
        expectProblem(a, status: 400, says: "cannot hold a NUL character")
    }

    // MARK: item 22: a refused layer is a problem, not an empty 200

    /// 200 expenses of one user from Helsinki to Lapland with a 2.4 km kernel on 12 m cells: up
    /// to 2.5·10⁷ cells in memory, past the bound, refused before any work: a 400 naming the way
    /// out (before: 200 with an empty body).
    @Test func anOverLimitDensityExportIsAProblem() async throws {
        let db = f.dir.appendingPathComponent("spread.sqlite").path, csv = f.dir.appendingPathComponent("spread.csv").path
        var rows = "id,user,amount,currency,occurred_at,lat,lon\n"
        for i in 0..<200 { rows += "s\(i),sam,5.00,EUR,2025-05-01T10:00:00+03:00,\(60 + Double(i) * 0.04),\(21 + Double(i % 10) * 0.8)\n" }
        try rows.write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try f.cli(["import", "expenses", csv], db: db)
        let token = try #require(try f.cli(["tokens", "create", "--user", "sam", "--scope", "read"], db: db).split(separator: "\n").last.map(String.init))
        let app = Application(router: buildRouter(store: try SpatiaLiteStore(path: db), timeLimit: ServiceFixture.patient), logger: ServiceFixture.quiet)
        let (a, ok) = try await app.test(.router) { client in
            (try await client.call("/api/v1/export/density?cell=12m&bandwidth=2400m", token: token),
             try await client.call("/api/v1/export/points", token: token))
        }
        expectProblem(a, status: 400, says: "Use a larger --cell")
        #expect(ok.status == .ok && ok.body.hasPrefix("{"), "\(ok.body.prefix(200))")
    }

    // MARK: item 10: another user's purchases

    /// Bob alone recorded "Zyxwein": alice asking its inflation hears what an unknown product
    /// gets, and her own import of it counts it as new to her.
    @Test func anotherUsersProductIsUnknownToMe() async throws {
        let bobWrite = try f.token(user: ServiceFixture.bob, scope: "write")
        let csv = "product,store_id,price,currency,recorded_at\nZyxwein,288130404,9.99,EUR,2026-03-02\n"
        let bob = try await client { try await $0.call("/api/v1/prices/import?format=csv", token: bobWrite, method: .post, body: csv) }
        #expect(bob.status == .ok, "\(bob.body)")
        let asked = try await client { try await $0.call("/api/v1/prices/inflation?product=Zyxwein", token: f.tokens["alice"]) }
        let unknown = try await client { try await $0.call("/api/v1/prices/inflation?product=Qqqqqq", token: f.tokens["alice"]) }
        expectProblem(asked, status: 400, says: "no product matches")
        #expect(asked.body.replacingOccurrences(of: "Zyxwein", with: "Qqqqqq") == unknown.body)
        let mine = try await client {
            try await $0.call("/api/v1/prices/import?format=csv", token: f.tokens["aliceWrite"], method: .post,
                              body: csv.replacingOccurrences(of: "9.99", with: "8.99"))
        }
        #expect(mine.body.contains("\"new_products\": 1"), "\(mine.body)")
    }

    // MARK: items 9, 8, 23, 6, 2: a real server

    /// Links start with `--public-url`, whatever `Host` the client sends; the paging `Link`
    /// carries the parsed query re-encoded, so a crafted one cannot add a link.
    @Test func linksComeFromThePublicURLNeverFromTheRequest() throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir, arguments: ["--public-url", "https://maps.example.org/"])
        defer { _ = server.stop() }
        let token = try #require(f.tokens["alice"])
        func curl(_ path: String, _ extra: [String] = []) throws -> String {
            try runProgram("/usr/bin/curl", ["-s", "-g", "-D", "-", "-H", "Host: evil.example", "-H", "Authorization: Bearer \(token)"] + extra
                           + ["http://127.0.0.1:\(server.port)\(path)"]).out
        }
        let landing = try curl("/ogc")
        #expect(landing.contains("\"https://maps.example.org/ogc/collections\""), "\(landing.suffix(800))")
        let items = try curl("/ogc/collections/expenses/items?limit=1")
        #expect(items.contains("\"https://maps.example.org/ogc/collections/expenses/items?limit=1&offset=1\""), "\(items.prefix(800))")
        let tiles = try curl("/tiles/heat.json?max-zoom=12")
        #expect(tiles.contains("\"https://maps.example.org/tiles/heat/{z}/{x}/{y}.mvt?max-zoom=12\""), "\(tiles.suffix(800))")
        for answer in [landing, items, tiles] { #expect(!answer.contains("evil.example")) }

        let page = try curl("/api/v1/expenses?limit=1&x=%3E;%20rel=%22next%22,%20%3Chttp://evil.example/")
        let link = try #require(page.split(separator: "\r\n").first { $0.lowercased().hasPrefix("link:") }, "\(page.prefix(500))")
        #expect(link.hasPrefix("Link: <https://maps.example.org/api/v1/expenses?"), "\(link)")
        #expect(link.filter { $0 == "<" }.count == 1 && link.filter { $0 == ">" }.count == 1, "\(link)")
        #expect(!link.contains("evil.example/"), "\(link)")
    }

    /// One line per request with the path: not `near`'s coordinates, not the search text, not
    /// the token. `/metrics` is not served unless asked for.
    @Test func theLogHoldsNoQueryAndMetricsAreOptIn() throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        let token = try #require(f.tokens["alice"])
        let base = "http://127.0.0.1:\(server.port)"
        for path in ["/api/v1/near?lat=60.1712345&lon=24.9412345&radius=300m", "/api/v1/search/expenses?text=whereIwasSecretly"] {
            let r = try runProgram("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)", base + path])
            #expect(r.out == "200", "\(path): \(r.out)")
        }
        let metrics = try runProgram("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", base + "/metrics"])
        #expect(metrics.out == "404")
        #expect(server.stop() == 0)
        let log = server.log
        #expect(log.contains("/api/v1/near") && log.contains("/api/v1/search/expenses"), "\(log.suffix(1000))")
        for secret in ["60.1712345", "24.9412345", "whereIwasSecretly", token] { #expect(!log.contains(secret), "the log holds \(secret)") }
    }

    /// Slowloris: 200 connections that send half a request head and stop. The service answers
    /// others meanwhile, and closes every one of them after `--idle-timeout`.
    @Test func halfOpenConnectionsAreClosedAndOthersAreServed() throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir, arguments: ["--idle-timeout", "1"])
        defer { _ = server.stop() }
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<200 {
            let fd = try #require(LoopbackSocket.connect(port: server.port))
            LoopbackSocket.send(fd, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sockets.append(fd)
        }
        let health = try runProgram("/usr/bin/curl", ["-s", "-m", "5", "http://127.0.0.1:\(server.port)/health"])
        #expect(health.out.contains("ok"), "\(health.out) \(health.err)")
        // Each held socket: the server's close reads as end of file (0) or a reset (−1, ECONNRESET).
        let deadline = Date().addingTimeInterval(15)
        var open = Set(sockets)
        while !open.isEmpty && Date() < deadline {
            for fd in open {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 0) > 0 else { continue }
                var byte: UInt8 = 0
                if recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0 { open.remove(fd) }
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(open.isEmpty, "\(open.count) of 200 half-open connections still open after 15 s with --idle-timeout 1")
    }

    /// The live map's page runs no inline script, says so in its Content-Security-Policy, keeps
    /// the token out of storage, and shows a hostile store name as text in the popup it opens.
    @Test func theLiveMapShowsStoreNamesAsText() throws {
        let db = f.dir.appendingPathComponent("xss.sqlite").path
        let stores = f.dir.appendingPathComponent("xss.geojson").path, expenses = f.dir.appendingPathComponent("xss.csv").path
        try #"""
            {"type":"FeatureCollection","features":[{"type":"Feature","id":101,"geometry":{"type":"Point","coordinates":[24.9414,60.171]},
             "properties":{"osm_id":101,"name":"Kiosk <img src=x onerror=\"document.title='pwned'\"> & Co","kind":"shop:kiosk"}}]}
            """#.write(toFile: stores, atomically: true, encoding: .utf8)
        try """
            id,user,amount,currency,occurred_at,lat,lon,store_id
            e1,ann,4.50,EUR,2025-03-01T10:00:00+02:00,60.1710,24.9414,101
            e2,ann,6.00,EUR,2025-03-02T10:00:00+02:00,60.1711,24.9415,101

            """.write(toFile: expenses, atomically: true, encoding: .utf8)
        _ = try f.cli(["import", "stores", stores], db: db)
        _ = try f.cli(["import", "expenses", expenses], db: db)
        let token = try #require(try f.cli(["tokens", "create", "--user", "ann", "--scope", "read"], db: db).split(separator: "\n").last.map(String.init))
        let server = try LiveServerTests.Server(db: db, in: f.dir)
        defer { _ = server.stop() }

        let page = try runProgram("/usr/bin/curl", ["-s", "-D", "-", "http://127.0.0.1:\(server.port)/map"]).out
        #expect(page.lowercased().contains("content-security-policy: default-src 'none'; script-src 'self';"), "\(page.prefix(600))")
        #expect(page.range(of: "<script>") == nil && page.range(of: "<style>") == nil, "inline script or style in \(page)")
        let script = try runProgram("/usr/bin/curl", ["-s", "http://127.0.0.1:\(server.port)/map/map.js"]).out
        #expect(script.contains("textContent") && !script.contains("sessionStorage") && !script.contains("localStorage") && !script.contains("innerHTML"))

        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let dom = try runProgram(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", "--user-data-dir=\(f.dir.path)/chromium-xss",
            "--dump-dom", "http://127.0.0.1:\(server.port)/map#token=\(token)",
        ]).out
        #expect(dom.contains(#"<strong class="place-name">Kiosk &lt;img src=x onerror="document.title='pwned'"&gt; &amp; Co</strong>"#),
                "the popup: \(dom.suffix(1500))")
        #expect(!dom.contains("<img src=\"x\""), "the name made an element")
        #expect(dom.contains("<title>GeoSpend live map</title>"))
    }
}

/// Item 24: OGC items pages come from a layer built once per change of the data, and a request
/// whose time ran out leaves its build running for the next try.
@Suite(.serialized) struct OGCLayerCacheTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    @Test func pagesOfALayerBuildItOnceUntilTheDataChanges() async throws {
        let store = try f.store()
        let cache = OGCLayerCache(store: store)
        let app = Application(router: buildRouter(store: store, timeLimit: ServiceFixture.patient, ogcLayers: cache), logger: ServiceFixture.quiet)
        let token = try #require(f.tokens["alice"])
        try await app.test(.router) { client in
            var pages: [String] = []
            for offset in [0, 1, 2] {
                let page = try await client.call("/ogc/collections/hex/items?limit=1&offset=\(offset)", token: token)
                #expect(page.status == .ok && page.body.contains("\"numberReturned\":1,"), "\(page.body.prefix(300))")
                pages.append(page.body.components(separatedBy: "\"features\":[")[1])
            }
            #expect(Set(pages).count == 3, "three different pages")
            #expect(cache.builds.started == 1)
            let added = try await client.call("/api/v1/expenses", token: f.tokens["aliceWrite"], method: .post,
                                              body: #"{"amount": "3.10", "currency": "EUR", "at": "2025-06-01T10:00:00+03:00", "lat": "60.17", "lon": "24.94"}"#)
            #expect(added.status == .created, "\(added.body)")
            _ = try await client.call("/ogc/collections/hex/items?limit=10&offset=0", token: token)
            #expect(cache.builds.started == 2, "a change of the data builds the layer again")
        }
    }
}
