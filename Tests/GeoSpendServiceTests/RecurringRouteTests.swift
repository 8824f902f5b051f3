import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/recurring` against `geospend recurring add|edit|run|delete|list` on a copy of the
/// same database: after each step the user's rules (`--format json`) are the CLI's byte for byte
/// (times aside), as are the answers; refusals are problems with the CLI's words.
@Suite(.serialized) struct RecurringRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice

    init() throws { f = try ServiceFixture() }

    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #""(created|updated)_at": ?"[^"]*""#, with: "\"time\"", options: .regularExpression)
    }

    @Test func rulesChangeAsWithTheCLI() async throws {
        let copy = try f.copy()
        let write = try #require(f.tokens["aliceWrite"])
        let u = ["--user", alice]
        let steps: [(HTTPRequest.Method, String, String?, Int, [String])] = [
            (.post, "/api/v1/recurring", #"{"every": "monthly", "from": "2025-01-31", "amount": "950", "currency": "EUR", "title": "Rent", "category": "Bills"}"#, 201,
             ["recurring", "add"] + u + ["--every", "monthly", "--from", "2025-01-31", "--amount", "950", "--currency", "EUR", "--title", "Rent",
                                         "--category", "Bills", "--format", "json"]),
            (.post, "/api/v1/recurring/run", #"{"as_of": "2025-04-29"}"#, 200, ["recurring", "run"] + u + ["--as-of", "2025-04-29", "--format", "json"]),
            (.patch, "/api/v1/recurring/1", #"{"amount": 990, "until": "2025-12-31"}"#, 200,
             ["recurring", "edit", "1"] + u + ["--amount", "990", "--until", "2025-12-31", "--format", "json"]),
            (.post, "/api/v1/recurring/run", #"{"as_of": "2025-06-30"}"#, 200, ["recurring", "run"] + u + ["--as-of", "2025-06-30", "--format", "json"]),
            (.delete, "/api/v1/recurring/1", nil, 200, []),
        ]
        for (method, uri, body, status, args) in steps {
            let a = try await f.withClient { try await $0.call(uri, token: write, method: method, body: body) }
            #expect(Int(a.status.code) == status, "\(uri): \(a.body)")
            if !args.isEmpty { #expect(Self.masked(a.body) == Self.masked(try f.cli(args, db: copy)), "\(uri)") } else {
                _ = try f.cli(["recurring", "delete", "1"] + u, db: copy)
                #expect(a.body == "{\n  \"deleted\": 1\n}\n")
            }
            let served = try await f.withClient { try await $0.call("/api/v1/recurring", token: f.tokens["alice"]) }
            #expect(Self.masked(served.body) == Self.masked(try f.cli(["recurring", "list"] + u + ["--format", "json"], db: copy)), "\(uri)")
        }
        // The expenses the runs made, the same on both.
        let listed = ["expenses", "search"] + u + ["Rent", "--limit", "20", "--format", "json"]
        let served = try await f.withClient { try await $0.call("/api/v1/search/expenses?text=Rent&limit=20", token: f.tokens["alice"]) }
        #expect(served.body == (try f.cli(listed, db: copy)))
        #expect(served.body.components(separatedBy: "\"recurring-1-").count - 1 == 6, "January to June")
    }

    @Test func refusalsAreProblems() async throws {
        let write = try #require(f.tokens["aliceWrite"])
        let answers = try await f.withClient { client in
            [try await client.call("/api/v1/recurring", token: write, method: .post, body: #"{"every": "fortnightly", "from": "2025-01-31", "amount": "1", "currency": "EUR"}"#),
             try await client.call("/api/v1/recurring", token: write, method: .post, body: #"{"from": "2025-01-31", "amount": "1", "currency": "EUR"}"#),
             try await client.call("/api/v1/recurring", token: write, method: .post, body: #"{"every": "weekly", "from": "2025-01-31", "amount": "1", "currency": "EUR", "lat": 60}"#),
             try await client.call("/api/v1/recurring", token: write, method: .post, body: "[1]"),
             try await client.call("/api/v1/recurring/7", token: write, method: .patch, body: #"{"amount": "1"}"#),
             try await client.call("/api/v1/recurring/x", token: write, method: .delete),
             try await client.call("/api/v1/recurring/run", token: write, method: .post, body: #"{"as_of": "tomorrow"}"#),
             try await client.call("/api/v1/recurring", token: f.tokens["alice"], method: .post, body: #"{"every": "weekly", "from": "2025-01-31", "amount": "1", "currency": "EUR"}"#)]
        }
        #expect(answers.map(\.status.code) == [400, 400, 400, 400, 404, 404, 400, 403], "\(answers.map(\.body))")
        #expect(answers[0].body.contains("--every: \\\"fortnightly\\\" is not a schedule"), "\(answers[0].body)")
        #expect(answers[1].body.contains("--every is required"), "\(answers[1].body)")
        #expect(answers[2].body.contains("unknown field \\\"lat\\\""), "\(answers[2].body)")
        #expect(answers[4].body.contains("no recurring rule 7 of user"), "\(answers[4].body)")
        for a in answers { #expect(a.headers[.contentType] == "application/problem+json", "\(a.body)") }
    }
}
