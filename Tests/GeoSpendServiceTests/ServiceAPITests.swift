import Foundation
import GeoSpend
import GeoSpendService
import Hummingbird
import HummingbirdTesting
import Prometheus
import Testing

/// The HTTP API through HummingbirdTesting's in-process router: tokens, problems, and each query
/// endpoint against the real `geospend` binary's `--format json` output for the same arguments.
@Suite(.serialized) struct ServiceAPITests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    @Test func healthNeedsNoToken() async throws {
        let a = try await f.withClient { try await $0.call("/health", token: nil) }
        #expect(a.status == .ok)
        #expect(a.body == "{\n  \"status\": \"ok\"\n}\n")
    }

    @Test func missingWrongAndExpiredTokensAre401Problems() async throws {
        let good = try #require(f.tokens["alice"])
        // The right id with a wrong secret, and a token past its expiry (made through the store).
        let wrong = String(good.dropLast(4)) + "AAAA"
        let made = TokenAuth.newToken()
        let past = try Timestamp(parsing: "2020-01-01T00:00:00Z")
        _ = try await f.store().addToken(userID: ServiceFixture.alice, scope: .read, lookup: made.lookup, sha256: made.sha256, expiresAt: past)
        let expiredToken = made.text
        // summary is behind TokenMiddleware; near and nearest-stores check the token in their
        // own read scope (TokenCheckedRead), before their parameters: a bad one is still a 401.
        let paths = [
            "/api/v1/summary", "/api/v1/near?lat=60.1699&lon=24.9384&radius=1km", "/api/v1/nearest-stores?lat=60.1699&lon=24.9384",
            "/api/v1/near?lat=95&lon=24.9384", "/api/v1/nearest-stores?k=0",
        ]
        for path in paths {
            for token in [nil, wrong, "gs_AAAAAAAAAAAA_x", "not a token", expiredToken] {
                let a = try await f.withClient { try await $0.call(path, token: token) }
                #expect(a.status == .unauthorized, "\(path) \(token ?? "none")")
                #expect(a.headers[.contentType] == "application/problem+json")
                #expect(a.headers[.wwwAuthenticate] == "Bearer")
                #expect(a.body.contains("\"status\": 401"))
            }
            let ok = try await f.withClient { try await $0.call(path, token: good) }
            #expect(ok.status == (path.contains("=95") || path.contains("k=0") ? .badRequest : .ok), "\(path) \(ok.body)")
        }
    }

    @Test func aReadTokenCannotDelete() async throws {
        let a = try await f.withClient { try await $0.call("/api/v1/users/me", token: f.tokens["alice"], method: .delete) }
        #expect(a.status == .forbidden)
        #expect(a.body.contains("needs a write token"))
        #expect(try f.geospend(["users", "list", "--db", f.db]).out.contains(ServiceFixture.alice))
    }

    /// Each endpoint's body is the CLI's stdout for the same arguments, byte for byte.
    @Test(arguments: [
        ("/api/v1/near?lat=60.1699&lon=24.9384&radius=1.5km", ["near", "--lat", "60.1699", "--lon", "24.9384", "--radius", "1.5km"]),
        // No radius: MONO's 1000 m, on both.
        ("/api/v1/near?lat=60.1699&lon=24.9384", ["near", "--lat", "60.1699", "--lon", "24.9384", "--radius", "1000m"]),
        ("/api/v1/near?lat=60.1699&lon=24.9384&radius=3km&from=2025-03-01&to=2025-06-30&category=Food",
         ["near", "--lat", "60.1699", "--lon", "24.9384", "--radius", "3km", "--from", "2025-03-01", "--to", "2025-06-30", "--category", "Food"]),
        ("/api/v1/nearest-stores?lat=60.1699&lon=24.9384&k=7", ["nearest-stores", "--lat", "60.1699", "--lon", "24.9384", "-k", "7"]),
        ("/api/v1/insights", ["insights"]),
        ("/api/v1/insights?by=store&limit=3&from=2025-01-01&to=2025-06-30", ["insights", "--by", "store", "--limit", "3", "--from", "2025-01-01", "--to", "2025-06-30"]),
        ("/api/v1/summary", ["summary"]),
        ("/api/v1/summary?month=2025-03", ["summary", "--month", "2025-03"]),
        ("/api/v1/expenses?limit=7", ["expenses", "list", "--limit", "7"]),
    ])
    func queryEndpointsAnswerTheCLIsJSON(uri: String, cli: [String]) async throws {
        let a = try await f.withClient { try await $0.call(uri, token: f.tokens["alice"]) }
        let userArgs = cli.first == "nearest-stores" ? [] : ["--user", ServiceFixture.alice]
        let expected = try f.geospend(cli + userArgs + ["--format", "json", "--db", f.db])
        try #require(expected.status == 0, "\(expected.err)")
        #expect(a.status == .ok)
        #expect(a.headers[.contentType] == "application/json")
        #expect(a.body == expected.out)
        #expect(a.body.count > 40)  // something was compared
    }

    @Test(arguments: [
        ("/api/v1/near?lat=60.17&lon=24.94&radius=1km&category=Fod", "--category Fod: no such category", "did you mean \\\"Food\\\""),
        ("/api/v1/near?lat=95&lon=24.94&radius=1km", "lat/lon:", "latitude"),
        ("/api/v1/near?lat=60.17&lon=24.94&radius=-3m", "radius:", "positive"),
        ("/api/v1/summary?from=2025-05-01&to=2025-04-01", "from 2025-05-01 is later than to 2025-04-01", "swap them"),
        ("/api/v1/nearest-stores?lat=60.17&lon=24.94&kind=cafe", "--kind cafe: no store has this kind", "amenity:cafe"),
        ("/api/v1/expenses?after=nonsense", "after:", "next"),
        ("/api/v1/insights?period=9", "no period 9 of user", "periods list"),
        ("/api/v1/near?lat=60.17&lon=24.94&radius=1km&period=9", "no period 9 of user", "periods list"),
        ("/api/v1/near?lat=60.17&lon=24.94&radius=1km&period=x", "period: \\\"x\\\" is not a whole number", "period"),
        ("/api/v1/export/roads", "no layer \\\"roads\\\"", "points, grid"),
        ("/api/v1/export/points?properties=amount,price", "properties: \\\"price\\\" is not a property of points", "choose from amount, currency"),
        ("/api/v1/export/grid?properties=amount", "properties: only the points layer", "choice of properties"),
    ])
    func badInputIsA4xxProblemWithTheCLIsMessage(uri: String, message: String, hint: String) async throws {
        let a = try await f.withClient { try await $0.call(uri, token: f.tokens["alice"]) }
        #expect((400...499).contains(a.status.code), "\(a.status) \(a.body)")
        #expect(a.headers[.contentType] == "application/problem+json")
        #expect(a.body.contains(message), "\(a.body)")
        #expect(a.body.contains(hint), "\(a.body)")
    }

    @Test func unknownPathsAreProblemsToo() async throws {
        let a = try await f.withClient { try await $0.call("/no/such/path", token: nil) }
        #expect(a.status == .notFound)
        #expect(a.headers[.contentType] == "application/problem+json")
        #expect(a.body.contains("\"title\": \"Not Found\""))
    }

    /// Following `Link: rel="next"` visits every one of alice's expenses once, in the CLI's order.
    @Test func expensePagesFollowTheirNextLinks() async throws {
        var uri: String? = "/api/v1/expenses?limit=17"
        var ids: [String] = []
        var pages = 0
        while let next = uri {
            let a = try await f.withClient { try await $0.call(next, token: f.tokens["alice"]) }
            #expect(a.status == .ok)
            ids += a.body.split(separator: "\n").filter { $0.hasPrefix("      \"id\": ") }.map { String($0.split(separator: "\"")[3]) }
            uri = a.headers[.link].map { String($0.dropFirst().prefix { $0 != ">" }) }
            pages += 1
        }
        let all = try f.geospend(["expenses", "list", "--user", ServiceFixture.alice, "--limit", "1000", "--format", "json", "--db", f.db])
        let expected = all.out.split(separator: "\n").filter { $0.hasPrefix("      \"id\": ") }.map { String($0.split(separator: "\"")[3]) }
        #expect(expected.count > 100)
        #expect(ids == expected)
        #expect(pages == (expected.count + 16) / 17)
    }

    @Test func oneExpenseByIdAndOtherUsersIdsAre404() async throws {
        let mine = try f.geospend(["expenses", "list", "--user", ServiceFixture.alice, "--limit", "1", "--format", "json", "--db", f.db])
        let bobs = try f.geospend(["expenses", "list", "--user", ServiceFixture.bob, "--limit", "1", "--format", "json", "--db", f.db])
        let id = { (out: String) in String(out.split(separator: "\n").first { $0.hasPrefix("      \"id\": ") }!.split(separator: "\"")[3]) }
        let (myID, bobsID) = (id(mine.out), id(bobs.out))
        let a = try await f.withClient { try await $0.call("/api/v1/expenses/\(myID)", token: f.tokens["alice"]) }
        let show = try f.geospend(["expenses", "show", myID, "--user", ServiceFixture.alice, "--format", "json", "--db", f.db])
        #expect(a.status == .ok)
        #expect(a.body == show.out)
        let theirs = try await f.withClient { try await $0.call("/api/v1/expenses/\(bobsID)", token: f.tokens["alice"]) }
        let none = try await f.withClient { try await $0.call("/api/v1/expenses/e999999", token: f.tokens["alice"]) }
        #expect(theirs.status == .notFound)
        #expect(none.status == .notFound)
        // The same answer but for the id: nothing tells a guessed id of another user from no id.
        #expect(theirs.body.replacingOccurrences(of: bobsID, with: "X") == none.body.replacingOccurrences(of: "e999999", with: "X"))
    }

    @Test func deletingMeRemovesTheUserAndTheirTokens() async throws {
        let token = try #require(f.tokens["aliceWrite"])
        let a = try await f.withClient { try await $0.call("/api/v1/users/me", token: token, method: .delete) }
        #expect(a.status == .ok, "\(a.body)")
        #expect(a.body.contains("\"api_tokens\": 3"))  // read, write and admin
        let after = try await f.withClient { try await $0.call("/api/v1/summary", token: token) }
        #expect(after.status == .unauthorized)
        #expect(!(try f.geospend(["users", "list", "--db", f.db]).out.contains("\(ServiceFixture.alice) ")))
        #expect(try f.geospend(["tokens", "list", "--db", f.db]).out.contains(ServiceFixture.bob))
    }
}

/// `/metrics`: Prometheus text with request counts and latencies per route pattern.
@Suite struct ServiceMetricsTests {
    /// One registry per test process: `MetricsSystem` takes one bootstrap.
    static let registry: PrometheusCollectorRegistry = {
        let r = PrometheusCollectorRegistry()
        ServiceMetrics.bootstrap(r)
        return r
    }()

    @Test func countsAndTimesRequestsPerRoute() async throws {
        let f = try ServiceFixture()
        let app = Application(
            router: buildRouter(store: try f.store(), metrics: Self.registry, timeLimit: ServiceFixture.patient, settings: ServiceSettings(exposeMetrics: true)),
            logger: ServiceFixture.quiet)
        let text = try await app.test(.router) { client in
            _ = try await client.call("/api/v1/summary", token: f.tokens["alice"])
            _ = try await client.call("/api/v1/expenses/e1", token: f.tokens["alice"])
            return try await client.call("/metrics", token: nil).body
        }
        #expect(text.contains("hb_requests{"))
        #expect(text.contains("http_server_request_duration_bucket{"))
        #expect(text.contains("/api/v1/summary"))
        #expect(text.contains("/api/v1/expenses/{id}"))
        #expect(!text.contains("e1\""))  // route patterns, not ids
    }

    /// Not served unless the operator asks (`serve --metrics`): the counts say what users do.
    @Test func metricsAreServedOnlyWhenAskedFor() async throws {
        let f = try ServiceFixture()
        let app = Application(router: buildRouter(store: try f.store(), metrics: Self.registry, timeLimit: ServiceFixture.patient), logger: ServiceFixture.quiet)
        let a = try await app.test(.router) { try await $0.call("/metrics", token: nil) }
        #expect(a.status == .notFound)
        #expect(!a.body.contains("hb_requests"))
    }
}

/// A read past the time limit is a 503 problem; the limit is 30 s in `geospend serve`.
@Suite struct TimeLimitTests {
    @Test func aSlowReadIsA503Problem() async throws {
        let f = try ServiceFixture()
        let app = Application(router: buildRouter(store: try f.store(), timeLimit: .nanoseconds(1)), logger: ServiceFixture.quiet)
        let a = try await app.test(.router) { try await $0.call("/api/v1/insights", token: f.tokens["alice"]) }
        #expect(a.status == .serviceUnavailable)
        #expect(a.headers[.contentType] == "application/problem+json")
        #expect(a.body.contains("took longer"))
    }
}
