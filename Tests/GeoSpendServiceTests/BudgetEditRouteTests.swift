import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Budgets for a place (`zone-around`/`zone-radius`) and PATCH `/api/v1/budgets/{id}` against
/// `geospend budgets add --zone-around … --zone-radius …` and `budgets edit` on a copy: the
/// answers are the CLI's `--format json` (creation times apart), and the zone budget's summary
/// and alerts are the CLI's on the same data.
@Suite(.serialized) struct BudgetEditRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice

    init() throws { f = try ServiceFixture() }

    func cli(_ args: [String], db: String) throws -> String { try f.cli(args + ["--format", "json"], db: db) }

    func call(_ uri: String, _ token: String, method: HTTPRequest.Method = .get, body: String? = nil) async throws -> Answer {
        try await f.withClient { try await $0.call(uri, token: f.tokens[token], method: method, body: body) }
    }

    static var created: Regex<AnyRegexOutput> { try! Regex(#""created_at": "[^"]*""#) }

    @Test func zoneBudgetsAndEditsAreTheCLIs() async throws {
        let copy = try f.copy()
        let added = try await call("/api/v1/budgets", "aliceWrite", method: .post, body: """
            {"name": "Centre", "amount": "100.00", "currency": "EUR", "from": "2025-03-01", "to": "2025-12-31", "every": "month",
             "zone-around": "60.1699,24.9384", "zone-radius": "3km"}
            """)
        #expect(added.status == .created, "\(added.body)")
        let cliAdded = try cli([
            "budgets", "add", "--user", alice, "--name", "Centre", "--amount", "100.00", "--currency", "EUR", "--from", "2025-03-01",
            "--to", "2025-12-31", "--every", "month", "--zone-around", "60.1699,24.9384", "--zone-radius", "3km",
        ], db: copy)
        #expect(added.body.replacing(Self.created, with: "") == cliAdded.replacing(Self.created, with: ""))
        #expect(added.body.contains("\"zone\": {"), "\(added.body)")
        let edited = try await call("/api/v1/budgets/1", "aliceWrite", method: .patch, body: #"{"amount": "20.00", "to": "2025-06-30", "category-limits": ["food=10.00"]}"#)
        #expect(edited.status == .ok, "\(edited.body)")
        let cliEdited = try cli([
            "budgets", "edit", "--user", alice, "--id", "1", "--amount", "20.00", "--to", "2025-06-30", "--category-limit", "food=10.00",
        ], db: copy)
        #expect(edited.body.replacing(Self.created, with: "") == cliEdited.replacing(Self.created, with: ""))
        let once = try await call("/api/v1/budgets/1", "aliceWrite", method: .patch, body: #"{"once": true, "no-category-limits": true, "name": "Centre Q2"}"#)
        #expect(once.status == .ok, "\(once.body)")
        let cliOnce = try cli(["budgets", "edit", "--user", alice, "--id", "1", "--once", "--no-category-limits", "--name", "Centre Q2"], db: copy)
        #expect(once.body.replacing(Self.created, with: "") == cliOnce.replacing(Self.created, with: ""))
        for (uri, args) in [
            ("/api/v1/budgets/1/summary?as-of=2025-03-15", ["budgets", "summary", "--user", alice, "--id", "1", "--as-of", "2025-03-15"]),
            ("/api/v1/budgets/alerts?as-of=2025-06-30", ["budgets", "alerts", "--user", alice, "--as-of", "2025-06-30"]),
        ] {
            let a = try await call(uri, "alice")
            #expect(a.status == .ok, "\(uri): \(a.body)")
            #expect(a.body.replacing(Self.created, with: "") == (try cli(args, db: copy)).replacing(Self.created, with: ""), "\(uri)")
        }
        // alice spent inside the zone: the summary compared figures, and the alert fires.
        let alerts = try await call("/api/v1/budgets/alerts?as-of=2025-06-30", "alice")
        #expect(alerts.body.contains("\"level\": \"exceeded\""), "\(alerts.body)")
        // bob's token: no budget 1 to edit
        let bob = try f.token(user: ServiceFixture.bob, scope: "write")
        let bobs = try await f.withClient { try await $0.call("/api/v1/budgets/1", token: bob, method: .patch, body: #"{"amount": "1"}"#) }
        expectProblem(bobs, status: 404, says: "no budget 1 of user")
        #expect(try cli(["budgets", "list", "--user", alice], db: f.db).contains("\"name\": \"Centre Q2\""))
    }

    @Test(arguments: [
        ("alice", HTTPRequest.Method.patch, "/api/v1/budgets/1", #"{"amount": "1"}"#, 403, "needs a write token"),
        ("aliceWrite", .patch, "/api/v1/budgets/9", #"{"amount": "1"}"#, 404, "no budget 9 of user"),
        ("aliceWrite", .patch, "/api/v1/budgets/1", #"{"currency": "USD"}"#, 400, "cannot be edited"),
        ("aliceWrite", .patch, "/api/v1/budgets/1", #"{"zone-radius": "1km"}"#, 400, "cannot be edited"),
        ("aliceWrite", .patch, "/api/v1/budgets/1", #"{"every": "month", "once": true}"#, 400, "contradict each other"),
        ("aliceWrite", .patch, "/api/v1/budgets/1", #"{"category-limits": ["Food=1"], "no-category-limits": true}"#, 400, "contradict each other"),
        ("aliceWrite", .patch, "/api/v1/budgets/1", #"{"amount": "abc"}"#, 400, "abc"),
        ("aliceWrite", .patch, "/api/v1/budgets/1", #"{"to": "2024-01-01"}"#, 400, "is not after --from"),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "Z", "amount": "5", "currency": "EUR", "from": "2025-03-01", "to": "2025-03-31", "zone-around": "60.1,24.9"}"#, 400, "go together"),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "Z", "amount": "5", "currency": "EUR", "from": "2025-03-01", "to": "2025-03-31", "zone-around": "60.1", "zone-radius": "1km"}"#, 400, "give LAT,LON in degrees"),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "Z", "amount": "5", "currency": "EUR", "from": "2025-03-01", "to": "2025-03-31", "zone-around": "91,24.9", "zone-radius": "1km"}"#, 400, "--zone-around"),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "Z", "amount": "5", "currency": "EUR", "from": "2025-03-01", "to": "2025-03-31", "zone-around": "60.1,24.9", "zone-radius": "0m"}"#, 400, "--zone-radius: \\\"0m\\\" must be a positive"),
        ("aliceWrite", .post, "/api/v1/budgets", #"{"name": "Z", "amount": "5", "currency": "EUR", "from": "2025-03-01", "to": "2025-03-31", "once": true}"#, 400, "are for PATCH"),
    ] as [(String, HTTPRequest.Method, String, String?, Int, String)])
    func refusals(token: String, method: HTTPRequest.Method, uri: String, body: String?, status: Int, says: String) async throws {
        // budget 1 exists (2025-03-01 … 2025-03-31), so refusals are about the request, not a missing budget
        _ = try cli(["budgets", "add", "--user", alice, "--name", "M", "--amount", "5", "--currency", "EUR", "--from", "2025-03-01", "--to", "2025-03-31"], db: f.db)
        let a = try await call(uri, token, method: method, body: body)
        expectProblem(a, status: status, says: says)
    }
}
