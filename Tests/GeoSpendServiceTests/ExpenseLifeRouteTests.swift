import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// One expense's life over HTTP — POST, PATCH, search, DELETE under /api/v1 — against
/// `geospend expenses add|edit|show|search|delete` on a copy of the same database: the service's
/// answers are the CLI's `--format json` (byte for byte where the CLI shows the same row; the
/// generated id and clock times apart where each made its own), its refusals the CLI's
/// messages, and another user's token finds nothing (404).
@Suite(.serialized) struct ExpenseLifeRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice

    init() throws { f = try ServiceFixture() }

    /// The id and the clock times, which the CLI and the service each make for themselves.
    func blanked(_ json: String) throws -> String {
        json.replacing(try Regex(#""(id|created_at|updated_at)": "[^"]*""#), with: "\"$1\": \"…\"")
    }

    @Test func anExpensesLifeIsTheCLIs() async throws {
        let copy = try f.copy()
        let write = try #require(f.tokens["aliceWrite"])
        // add
        let body = #"{"amount": "4.50", "currency": "EUR", "at": "2025-03-01T10:00:00+01:00", "title": "Coffee at Zorblat", "category": "Food", "lat": 60.1699, "lon": 24.9384, "remind-at": "2025-03-05T09:00:00+01:00"}"#
        let added = try await f.withClient { try await $0.call("/api/v1/expenses", token: write, method: .post, body: body) }
        #expect(added.status == .created, "\(added.body)")
        let id = try #require(added.body.firstMatch(of: /"id": "([^"]+)"/).map { String($0.1) })
        #expect(added.headers[.location] == "/api/v1/expenses/\(id)")
        #expect(added.body == (try f.cli(["expenses", "show", id, "--user", alice, "--format", "json"], db: f.db)))
        let cliAdded = try f.cli([
            "expenses", "add", "--user", alice, "--amount", "4.50", "--currency", "EUR", "--at", "2025-03-01T10:00:00+01:00",
            "--title", "Coffee at Zorblat", "--category", "Food", "--lat", "60.1699", "--lon", "24.9384",
            "--remind-at", "2025-03-05T09:00:00+01:00", "--format", "json",
        ], db: copy)
        #expect(try blanked(added.body) == (try blanked(cliAdded)))
        let cliID = try #require(cliAdded.firstMatch(of: /"id": "([^"]+)"/).map { String($0.1) })
        // edit: a new amount and notes, the place and reminder unset
        let patch = #"{"amount": 5.2, "notes": "with a croissant", "lat": null, "lon": "", "remind-at": ""}"#
        let edited = try await f.withClient { try await $0.call("/api/v1/expenses/\(id)", token: write, method: .patch, body: patch) }
        #expect(edited.status == .ok, "\(edited.body)")
        #expect(edited.body == (try f.cli(["expenses", "show", id, "--user", alice, "--format", "json"], db: f.db)))
        let cliEdited = try f.cli([
            "expenses", "edit", cliID, "--user", alice, "--amount", "5.2", "--notes", "with a croissant", "--lat", "", "--lon", "",
            "--remind-at", "", "--format", "json",
        ], db: copy)
        #expect(try blanked(edited.body) == (try blanked(cliEdited)))
        #expect(edited.body.contains("\"notes\": \"with a croissant\"") && !edited.body.contains("\"lat\": 60"))
        // search
        let found = try await f.withClient { try await $0.call("/api/v1/search/expenses?text=zorblat", token: f.tokens["alice"]) }
        #expect(found.status == .ok)
        #expect(found.body == (try f.cli(["expenses", "search", "--user", alice, "zorblat", "--format", "json"], db: f.db)))
        #expect(found.body.contains(id))
        // bob's token: alice's expense does not exist for it, and stays as it was
        let bobWrite = try f.token(user: ServiceFixture.bob, scope: "write")
        let statuses = try await f.withClient { client in
            [try await client.call("/api/v1/expenses/\(id)", token: bobWrite).status,
             try await client.call("/api/v1/expenses/\(id)", token: bobWrite, method: .patch, body: #"{"amount": "1"}"#).status,
             try await client.call("/api/v1/expenses/\(id)", token: bobWrite, method: .delete).status]
        }
        #expect(statuses == [.notFound, .notFound, .notFound])
        #expect(try f.cli(["expenses", "show", id, "--user", alice, "--format", "json"], db: f.db) == edited.body)
        // delete
        let deleted = try await f.withClient { try await $0.call("/api/v1/expenses/\(id)", token: write, method: .delete) }
        #expect(deleted.status == .ok)
        // The row is zeroed at once; the file's rewrite follows within the delay (BatchedRewrite), run here.
        #expect(deleted.body == "{\n  \"deleted\": \"\(id)\",\n  \"notes\": [\n    \"the file is rewritten (VACUUM) within 10 s, once for the deletions made meanwhile\"\n  ]\n}\n", "\(deleted.body)")
        #expect(try await f.store().rewriteAfterDeletions() == [])
        let gone = try await f.withClient { try await $0.call("/api/v1/expenses/\(id)", token: write) }
        #expect(gone.status == .notFound)
        #expect(try f.geospend(["expenses", "show", id, "--user", alice, "--db", f.db]).status == 2)
        #expect(!(try Data(contentsOf: URL(fileURLWithPath: f.db))).contains(Data("Zorblat".utf8)))  // no trace in the file
    }

    @Test(arguments: [
        ("alice", HTTPRequest.Method.post, "/api/v1/expenses", #"{"amount": "1", "currency": "EUR", "at": "2025-03-01"}"#, 403, "needs a write token"),
        ("aliceWrite", .post, "/api/v1/expenses", #"{"currency": "EUR", "at": "2025-03-01"}"#, 400, "--amount is required to add an expense"),
        ("aliceWrite", .post, "/api/v1/expenses", #"{"amount": "1", "currency": "EUR", "at": "2025-03-01", "category": "Fod"}"#, 400, "did you mean \\\"Food\\\""),
        ("aliceWrite", .post, "/api/v1/expenses", #"{"amount": "1", "currency": "EUR", "at": "2025-03-01", "category": "Salary"}"#, 400, "is an income category"),
        ("aliceWrite", .post, "/api/v1/expenses", #"{"amount": "-1", "currency": "EUR", "at": "2025-03-01"}"#, 400, "--amount:"),
        ("aliceWrite", .post, "/api/v1/expenses", #"{"amount": "1", "currency": "EUR", "at": "2025-03-01", "user": "user7"}"#, 400, "unknown field \\\"user\\\""),
        ("aliceWrite", .post, "/api/v1/expenses", #"{"amount": true}"#, 400, "JSON object of strings or numbers"),
        ("aliceWrite", .post, "/api/v1/expenses", "amount=1", 400, "JSON object"),
        ("aliceWrite", .post, "/api/v1/expenses", #"{"amount": "1", "currency": "EUR", "at": "2025-03-01", "remind-at": "2025-03-05"}"#, 400, "--remind-at: \\\"2025-03-05\\\" is a date"),
        ("aliceWrite", .patch, "/api/v1/expenses/nope", #"{"amount": "1"}"#, 404, "you have no expense \\\"nope\\\""),
        ("aliceWrite", .delete, "/api/v1/expenses/nope", nil, 404, "you have no expense"),
        ("alice", .get, "/api/v1/search/expenses", nil, 400, "text is required"),
    ] as [(String, HTTPRequest.Method, String, String?, Int, String)])
    func refusals(token: String, method: HTTPRequest.Method, uri: String, body: String?, status: Int, says: String) async throws {
        let a = try await f.withClient { try await $0.call(uri, token: f.tokens[token], method: method, body: body) }
        expectProblem(a, status: status, says: says)
    }

    /// A PATCH of one of lat/lon is refused with the CLI's words; the expense is unchanged.
    @Test func aPatchRefusedChangesNothing() async throws {
        let first = try f.cli(["expenses", "list", "--user", alice, "--limit", "1", "--format", "json"], db: f.db)
        let id = try #require(first.firstMatch(of: /"id": "([^"]+)"/).map { String($0.1) })
        let before = try f.cli(["expenses", "show", id, "--user", alice, "--format", "json"], db: f.db)
        let a = try await f.withClient { try await $0.call("/api/v1/expenses/\(id)", token: f.tokens["aliceWrite"], method: .patch, body: #"{"lat": 60.2, "amount": "9"}"#) }
        #expect(a.status == .badRequest)
        #expect(a.body.contains("--lat alone: give --lat and --lon together"), "\(a.body)")
        #expect(try f.cli(["expenses", "show", id, "--user", alice, "--format", "json"], db: f.db) == before)
    }
}
