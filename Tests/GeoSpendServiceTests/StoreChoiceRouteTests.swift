import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/stores` and `/api/v1/users/me/default-store` against `geospend stores
/// add|favourite|unfavourite|default|list|show` on a copy of the same database: each answer is
/// the CLI's JSON byte for byte (times aside), and so is the user's list after each step;
/// refusals are problems with the CLI's words.
@Suite(.serialized) struct StoreChoiceRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice

    init() throws { f = try ServiceFixture() }

    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #""created_at": ?"[^"]*""#, with: "\"time\"", options: .regularExpression)
    }

    @Test func storesChangeAsWithTheCLI() async throws {
        let copy = try f.copy()
        let write = try #require(f.tokens["aliceWrite"])
        let u = ["--user", alice]
        // (method, uri, body, status, the CLI's change, the CLI's answer to compare with)
        let steps: [(HTTPRequest.Method, String, String?, Int, [String]?, [String]?)] = [
            (.post, "/api/v1/stores", #"{"name": "K-Market Kallio", "lat": 60.1841, "lon": 24.95, "kind": "supermarket", "region": "Uusimaa"}"#, 201, nil,
             ["stores", "add"] + u + ["--name", "K-Market Kallio", "--lat", "60.1841", "--lon", "24.95", "--kind", "supermarket", "--region", "Uusimaa",
                                     "--format", "json"]),
            (.put, "/api/v1/stores/288130404/favourite", nil, 200, ["stores", "favourite"] + u + ["288130404"],
             ["stores", "show"] + u + ["288130404", "--format", "json"]),
            (.put, "/api/v1/users/me/default-store", #"{"store": "mine-1"}"#, 200, ["stores", "default"] + u + ["mine-1"],
             ["stores", "show"] + u + ["mine-1", "--format", "json"]),
            (.get, "/api/v1/stores/mine-1", nil, 200, nil, ["stores", "show"] + u + ["mine-1", "--format", "json"]),
            (.delete, "/api/v1/stores/288130404/favourite", nil, 200, ["stores", "unfavourite"] + u + ["288130404"],
             ["stores", "show"] + u + ["288130404", "--format", "json"]),
            (.delete, "/api/v1/users/me/default-store", nil, 204, ["stores", "default"] + u + ["--clear"], nil),
        ]
        for (method, uri, body, status, change, answer) in steps {
            let a = try await f.withClient { try await $0.call(uri, token: write, method: method, body: body) }
            #expect(Int(a.status.code) == status, "\(uri): \(a.body)")
            if let change { _ = try f.cli(change, db: copy) }
            if let answer { #expect(Self.masked(a.body) == Self.masked(try f.cli(answer, db: copy)), "\(uri)") }
            let served = try await f.withClient { try await $0.call("/api/v1/stores", token: f.tokens["alice"]) }
            #expect(Self.masked(served.body) == Self.masked(try f.cli(["stores", "list"] + u + ["--format", "json"], db: copy)), "\(uri)")
        }
        let listed = try await f.withClient { try await $0.call("/api/v1/stores", token: f.tokens["alice"]) }
        #expect(listed.body.contains("\"id\": \"mine-1\"") && listed.body.contains("\"region\": \"Uusimaa\"")
            && listed.body.contains("\"kind\": \"shop:supermarket\"") && listed.body.contains("\"default\": false"), "\(listed.body)")
    }

    /// A store alice added takes her receipts over HTTP (`POST /receipts?store=mine-1`): their
    /// price records are there, her inflation at `store=mine-1` and within 300 m of it counts
    /// them, and everyone's inflation (admin, `all-users`) does not; bob has no `mine-1`.
    @Test func anAddedStoreTakesReceiptsAndCountsInInflation() async throws {
        let (write, tokens) = (try #require(f.tokens["aliceWrite"]), f.tokens)
        let answers = try await f.withClient { client in
            var out = [try await client.call("/api/v1/stores", token: write, method: .post,
                                             body: #"{"name": "Oma Kauppa", "lat": 60.1841, "lon": 24.95, "kind": "supermarket"}"#)]
            for (day, price) in [("2025-03-01", "1,19"), ("2025-09-01", "1,31")] {
                out.append(try await client.call("/api/v1/receipts?store=mine-1&at=\(day)T10:00:00Z", token: write, method: .post,
                                                 body: "Oma Kauppa\nMilch \(price)\nSUMME \(price)\n"))
            }
            for query in ["store=mine-1", "near=60.1841,24.95&radius=300m"] {
                out.append(try await client.call("/api/v1/prices/inflation?\(query)&as-of=2025-12-31", token: tokens["alice"]))
            }
            out.append(try await client.call("/api/v1/prices/inflation?near=60.1841,24.95&radius=300m&as-of=2025-12-31&all-users=true", token: tokens["admin"]))
            out.append(try await client.call("/api/v1/stores/mine-1", token: tokens["bob"]))
            return out
        }
        #expect(answers[0].status.code == 201, "\(answers[0].body)")
        for receipt in answers[1...2] {
            #expect(receipt.status.code == 201 && receipt.body.contains(#""status": "ok""#) && receipt.body.contains(#""price_records": 1"#), "\(receipt.body)")
        }
        for inflation in answers[3...4] {
            #expect(inflation.status.code == 200 && inflation.body.contains(#""records": 2,"#), "\(inflation.body)")
        }
        #expect(answers[5].body.contains(#""records": 0,"#), "nobody else's view counts alice's own store: \(answers[5].body)")
        expectProblem(answers[6], status: 404, says: #"no store \"mine-1\""#)
    }

    @Test func refusalsAreProblems() async throws {
        let write = try #require(f.tokens["aliceWrite"])
        let answers = try await f.withClient { client in
            [try await client.call("/api/v1/stores", token: write, method: .post, body: #"{"name": "X", "lat": 91, "lon": 24, "kind": "supermarket"}"#),
             try await client.call("/api/v1/stores", token: write, method: .post, body: #"{"name": "X", "lat": 60, "lon": 24, "kind": "super market"}"#),
             try await client.call("/api/v1/stores", token: write, method: .post, body: #"{"lat": 60, "lon": 24, "kind": "supermarket"}"#),
             try await client.call("/api/v1/stores", token: write, method: .post, body: "[1]"),
             try await client.call("/api/v1/stores/mine-9", token: write),
             try await client.call("/api/v1/stores/nope/favourite", token: write, method: .put),
             try await client.call("/api/v1/users/me/default-store", token: write, method: .put, body: #"{"store": "nope"}"#),
             try await client.call("/api/v1/users/me/default-store", token: write, method: .put, body: "{}")]
        }
        expectProblem(answers[0], status: 400, says: "--lat/--lon")
        expectProblem(answers[1], status: 400, says: "--kind")
        expectProblem(answers[2], status: 400, says: "name, lat, lon and kind are required")
        expectProblem(answers[3], status: 400, says: "JSON object")
        expectProblem(answers[4], status: 404, says: #"no store \"mine-9\""#)
        expectProblem(answers[5], status: 404, says: #"no store \"nope\""#)
        expectProblem(answers[6], status: 404, says: #"no store \"nope\""#)
        expectProblem(answers[7], status: 400, says: "store is required")
        // A read token cannot add.
        let read = try await f.withClient {
            try await $0.call("/api/v1/stores", token: f.tokens["alice"], method: .post, body: #"{"name": "X", "lat": 60, "lon": 24, "kind": "kiosk"}"#)
        }
        #expect(read.status.code == 403, "\(read.body)")
        #expect(try f.cli(["stores", "list", "--user", alice, "--format", "json"], db: f.db) == "[]\n")
    }
}
