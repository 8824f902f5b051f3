import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The location history and geotagging over HTTP (issue 36): the same answers as the CLI, for the
/// token's user only. Data: make demo's person (Data/examples/demo-person) filed under alice.
@Suite(.serialized) struct GeotagRouteTests {
    let f: ServiceFixture
    static let timeline = try! String(contentsOfFile: ServiceFixture.repo.appendingPathComponent("Data/examples/demo-person/Timeline.json").path, encoding: .utf8)

    init() throws {
        f = try ServiceFixture()
        _ = try f.cli(["import", "expenses", "Data/examples/demo-person/statement.ofx", "--preset", "ofx", "--user", ServiceFixture.alice], db: f.db)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test func historyInGeotagAndUndoAnswerAsTheCLI() async throws {
        let write = f.tokens["aliceWrite"]
        let first = try await f.withClient { try await $0.call("/api/v1/positions?format=google-timeline", token: write, method: .post, body: Self.timeline) }
        #expect(first.status == .ok, "\(first.body)")
        #expect(try json(first.body)["positions_added"] as? Int == 1330 && json(first.body)["visits_added"] as? Int == 77, "\(first.body)")
        let again = try await f.withClient { try await $0.call("/api/v1/positions", token: write, method: .post, body: Self.timeline) }
        #expect(try json(again.body)["positions_added"] as? Int == 0 && json(again.body)["positions_unchanged"] as? Int == 1330, "\(again.body)")

        // Reads: byte for byte the CLI's JSON.
        let zone = ["--timezone", "Europe/Helsinki"]
        let summary = try await f.withClient { try await $0.call("/api/v1/positions/summary?timezone=Europe/Helsinki", token: f.tokens["alice"]) }
        #expect(summary.body == (try f.cli(["positions", "summary", "--user", ServiceFixture.alice, "--format", "json"] + zone, db: f.db)))
        let dry = try await f.withClient { try await $0.call("/api/v1/geotag?timezone=Europe/Helsinki", token: f.tokens["alice"]) }
        let cliDry = try f.cli(["geotag", "--user", ServiceFixture.alice, "--dry-run", "--format", "json"] + zone, db: f.db)
        #expect(dry.status == .ok && dry.body == cliDry)
        // The statement's 29 in-person payments (alice's other unplaced rows may be placed by their merchant too).
        let statementIDs = { (body: String, key: String) throws -> [String] in
            (try json(body)[key] as? [Any] ?? []).compactMap { ($0 as? [String: Any])?["id"] as? String ?? $0 as? String }
                .filter { $0.hasPrefix("\(ServiceFixture.alice)/ofx/") }
        }
        #expect(try statementIDs(dry.body, "placed").count == 29, "\(dry.body.prefix(2000))")

        // POST without apply is a dry run too; with apply it writes as the CLI does on a copy.
        let copy = try f.copy()
        let posted = try await f.withClient { try await $0.call("/api/v1/geotag?timezone=Europe/Helsinki", token: write, method: .post) }
        #expect(posted.body == cliDry)
        let applied = try await f.withClient { try await $0.call("/api/v1/geotag?timezone=Europe/Helsinki&apply=true", token: write, method: .post) }
        #expect(applied.body == (try f.cli(["geotag", "--user", ServiceFixture.alice, "--format", "json"] + zone, db: copy)))
        let list = { (db: String) throws -> String in try f.cli(["expenses", "list", "--user", ServiceFixture.alice, "--limit", "100", "--format", "json"], db: db) }
        #expect(try list(f.db) == list(copy))

        // Bob sees none of it: no fixes, and his runs never use alice's history.
        let bob = try await f.withClient { try await $0.call("/api/v1/positions", token: f.tokens["bob"]) }
        #expect(try json(bob.body)["total_positions"] as? Int == 0, "\(bob.body)")

        let undone = try await f.withClient { try await $0.call("/api/v1/geotag/undo", token: write, method: .post) }
        #expect(try statementIDs(undone.body, "restored").count == 29, "\(undone.body)")
        let cut = try await f.withClient { try await $0.call("/api/v1/positions?before=2026-03-09&timezone=Europe/Helsinki", token: write, method: .delete) }
        let deleted = try json(cut.body)["positions"] as? Int ?? 0
        #expect(deleted > 0 && deleted < 1330, "\(cut.body)")
    }

    @Test func confirmSettlesOneExpense() async throws {
        let write = f.tokens["aliceWrite"]
        let id = "\(ServiceFixture.alice)/ofx/2026000003"  // NETFLIX.COM: online, so never placed by geotag; settled by hand here
        let a = try await f.withClient { try await $0.call("/api/v1/geotag/confirm?id=\(id)&store=288130404", token: write, method: .post) }
        #expect(a.status == .ok, "\(a.body)")
        #expect(try json(a.body)["position_source"] as? String == "store" && json(a.body)["store_id"] as? String == "288130404")
        let twice = try await f.withClient { try await $0.call("/api/v1/geotag/confirm?id=\(id)&lat=60.17&lon=24.94", token: write, method: .post) }
        expectProblem(twice, status: 409, says: "already has a position")
        let missing = try await f.withClient { try await $0.call("/api/v1/geotag/confirm?id=nope&lat=60.17&lon=24.94", token: write, method: .post) }
        expectProblem(missing, status: 404, says: "no expense")
    }

    @Test(arguments: [
        ("alice", HTTPRequest.Method.post, "/api/v1/positions", 403, "needs a write token"),
        ("aliceWrite", .post, "/api/v1/positions?format=kml", 400, "format:"),
        ("aliceWrite", .post, "/api/v1/positions?format=csv", 400, "body"),
        ("alice", .get, "/api/v1/geotag?timezone=Mars/Olympus", 400, "timezone:"),
        ("alice", .get, "/api/v1/geotag?apply=true", 400, "POST"),
        ("alice", .get, "/api/v1/geotag?min-confidence=2", 400, "min-confidence"),
        ("alice", .get, "/api/v1/positions?from=2026-03-09&to=2026-03-01", 400, "from"),
        ("aliceWrite", .post, "/api/v1/geotag/confirm?id=x", 400, "give store"),
        (nil, .get, "/api/v1/positions", 401, "Bearer"),
    ] as [(String?, HTTPRequest.Method, String, Int, String)])
    func refusals(token: String?, method: HTTPRequest.Method, uri: String, status: Int, says: String) async throws {
        let a = try await f.withClient { try await $0.call(uri, token: token.flatMap { f.tokens[$0] }, method: method, body: method == .post ? "time,lat\n1,2\n" : nil) }
        expectProblem(a, status: status, says: says)
    }
}
