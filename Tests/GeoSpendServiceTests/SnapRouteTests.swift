import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/snap`: GET is `geospend snap --dry-run`, POST is `geospend snap`, both for the
/// token's user and answering the CLI's `--format json` byte for byte; POST changes the
/// database as the CLI does, and only the token user's expenses.
@Suite(.serialized) struct SnapRouteTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    func cli(_ args: [String], db: String) throws -> String {
        let r = try f.geospend(args + ["--format", "json", "--db", db])
        try #require(r.status == 0, "\(args): \(r.err)")
        return r.out
    }

    @Test func dryRunIsTheCLIsDryRun() async throws {
        let a = try await f.withClient { try await $0.call("/api/v1/snap?tolerance=80m&ambiguity=2m", token: f.tokens["alice"]) }
        let expected = try cli(["snap", "--user", ServiceFixture.alice, "--tolerance", "80m", "--ambiguity", "2m", "--dry-run"], db: f.db)
        #expect(a.status == .ok)
        #expect(a.body == expected)
        #expect(a.body.contains("\"dry_run\": true"))
    }

    @Test func postAssignsLikeTheCLIAndTouchesNoOneElse() async throws {
        // The CLI snaps a copy; the service snaps the original; both end alike.
        let copy = try f.copy()
        let lists = { (db: String) throws -> [String] in
            try [ServiceFixture.alice, ServiceFixture.bob].map { try self.cli(["expenses", "list", "--user", $0, "--limit", "1000"], db: db) }
        }
        let before = try lists(f.db)
        let a = try await f.withClient { try await $0.call("/api/v1/snap?tolerance=80m", token: f.tokens["aliceWrite"], method: .post) }
        let expected = try cli(["snap", "--user", ServiceFixture.alice, "--tolerance", "80m"], db: copy)
        #expect(a.status == .ok)
        #expect(a.body == expected)
        let written = try #require(a.body.firstMatch(of: /"written": (\d+)/).map { Int($0.1)! })
        #expect(written > 0)  // something was assigned, so the comparisons below can fail
        let after = try lists(f.db)
        #expect(after == (try lists(copy)))
        #expect(after[0] != before[0])
        #expect(after[1] == before[1])  // bob's expenses as they were
        let again = try await f.withClient { try await $0.call("/api/v1/snap?tolerance=80m", token: f.tokens["aliceWrite"], method: .post) }
        #expect(again.body.contains("\"written\": 0"))
    }

    @Test(arguments: [
        ("alice", HTTPRequest.Method.post, "/api/v1/snap", 403, "needs a write token"),
        ("alice", .get, "/api/v1/snap?kind=cafe", 400, "--kind cafe: no store has this kind"),
        ("alice", .get, "/api/v1/snap?tolerance=-5m", 400, "tolerance:"),
        (nil, .get, "/api/v1/snap", 401, "Bearer"),
    ] as [(String?, HTTPRequest.Method, String, Int, String)])
    func refusals(token: String?, method: HTTPRequest.Method, uri: String, status: Int, says: String) async throws {
        let a = try await f.withClient { try await $0.call(uri, token: token.flatMap { f.tokens[$0] }, method: method) }
        expectProblem(a, status: status, says: says)
    }
}
