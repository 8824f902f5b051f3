import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/budgets` against `geospend budgets add|list|summary|alerts|delete`: the answers are
/// the CLI's `--format json` for the same data (the budget's creation time apart where the CLI
/// made its own on a copy); bob's token finds none of alice's budgets.
@Suite(.serialized) struct BudgetRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice

    init() throws { f = try ServiceFixture() }

    func cli(_ args: [String], db: String) throws -> String {
        let r = try f.geospend(args + ["--format", "json", "--db", db])
        try #require(r.status == 0, "\(args): \(r.err)")
        return r.out
    }

    @Test func budgetsAreTheCLIs() async throws {
        let copy = try f.copy()
        let body = #"{"name": "March", "amount": "500.00", "currency": "EUR", "from": "2025-03-01", "to": "2025-03-31", "category-limits": ["food=200.00"]}"#
        let added = try await f.withClient { try await $0.call("/api/v1/budgets", token: f.tokens["aliceWrite"], method: .post, body: body) }
        #expect(added.status == .created, "\(added.body)")
        let cliAdded = try cli([
            "budgets", "add", "--user", alice, "--name", "March", "--amount", "500.00", "--currency", "EUR", "--from", "2025-03-01",
            "--to", "2025-03-31", "--category-limit", "food=200.00",
        ], db: copy)
        let created = try Regex(#""created_at": "[^"]*""#)
        #expect(added.body.replacing(created, with: "") == cliAdded.replacing(created, with: ""))
        #expect(added.body.contains("\"Food\""))  // stored as the category is named
        for (uri, args) in [
            ("/api/v1/budgets", ["budgets", "list", "--user", alice]),
            ("/api/v1/budgets?all=true", ["budgets", "list", "--user", alice, "--all"]),
            ("/api/v1/budgets/1/summary?as-of=2025-03-15", ["budgets", "summary", "--user", alice, "--id", "1", "--as-of", "2025-03-15"]),
            ("/api/v1/budgets/alerts?as-of=2025-03-31", ["budgets", "alerts", "--user", alice, "--as-of", "2025-03-31"]),
        ] {
            let a = try await f.withClient { try await $0.call(uri, token: f.tokens["alice"]) }
            #expect(a.status == .ok, "\(uri): \(a.body)")
            #expect(a.body == (try cli(args, db: f.db)), "\(uri)")
        }
        let summary = try await f.withClient { try await $0.call("/api/v1/budgets/1/summary?as-of=2025-03-15", token: f.tokens["alice"]) }
        // alice spent in March, so figures were compared: the budget's first "spent" is not zero.
        #expect(summary.body.firstMatch(of: /"spent": "([^"]+)"/).map { String($0.1) } != "0.00", "\(summary.body)")
        // bob's token: no budget 1
        let bob = try f.token(user: ServiceFixture.bob, scope: "write")
        let bobs = try await f.withClient { client in
            [try await client.call("/api/v1/budgets?all=true", token: bob),
             try await client.call("/api/v1/budgets/1/summary?as-of=2025-03-15", token: bob),
             try await client.call("/api/v1/budgets/1", token: bob, method: .delete)]
        }
        #expect(bobs[0].body == "[]\n")
        #expect(bobs[1].status == .notFound && bobs[2].status == .notFound)
        // delete
        let deleted = try await f.withClient { try await $0.call("/api/v1/budgets/1", token: f.tokens["aliceWrite"], method: .delete) }
        #expect(deleted.status == .ok)
        #expect(deleted.body == "{\n  \"deleted\": 1\n}\n")
        #expect(try cli(["budgets", "list", "--user", alice, "--all"], db: f.db) == "[]\n")
    }

    @Test(arguments: [
        ("alice", HTTPRequest.Method.post, "/api/v1/budgets", #"{"name": "X"}"#, 403, "needs a write token"),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "X", "amount": "5", "currency": "eur", "from": "2025-03-01", "to": "2025-03-31"}"#, 400, "did you mean \\\"EUR\\\""),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "X", "amount": "5", "currency": "EUR", "from": "2025-03-31", "to": "2025-03-01"}"#, 400, "is not after --from"),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "X", "amount": "5", "currency": "EUR", "from": "2025-03-01", "to": "2025-03-31", "category": "Fod"}"#, 400, "did you mean \\\"Food\\\""),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "X", "amount": "5", "currency": "EUR", "from": "2025-03-01", "to": "2025-03-31", "every": "day"}"#, 400, "not week, month or year"),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "X"}"#, 400, "are required"),
        ("alice", .get, "/api/v1/budgets/alerts?as-of=2026-13-01", nil, 400, "--as-of"),
        ("alice", .get, "/api/v1/budgets/1/summary?as-of=2025-03-15", nil, 404, "no budget 1 of user"),
        ("alice", .get, "/api/v1/budgets/x/summary?as-of=2025-03-15", nil, 404, "budget ids are whole numbers"),
    ] as [(String, HTTPRequest.Method, String, String?, Int, String)])
    func refusals(token: String, method: HTTPRequest.Method, uri: String, body: String?, status: Int, says: String) async throws {
        let a = try await f.withClient { try await $0.call(uri, token: f.tokens[token], method: method, body: body) }
        expectProblem(a, status: status, says: says)
    }
}
