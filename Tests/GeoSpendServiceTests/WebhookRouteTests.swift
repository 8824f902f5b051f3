import Foundation
import GeoSpend
import GeoSpendService
import Hummingbird
import HummingbirdTesting
import Testing

/// Webhooks over HTTP (issue 39): the token user's webhooks added (the secret in that answer
/// alone), listed without secrets, tested against a real receiver on loopback whose signature
/// check is the documented recipe, their deliveries listed, deleted; bad input and private
/// addresses refused with problems. Per-budget thresholds over HTTP too.
@Suite(.serialized) struct WebhookRouteTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    func withClient<T: Sendable>(allowPrivate: Bool, _ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let router = buildRouter(store: try f.store(), timeLimit: ServiceFixture.patient, webhooks: WebhookSettings(allowPrivate: allowPrivate))
        return try await Application(router: router, logger: ServiceFixture.quiet).test(.router) { client in try await body(client) }
    }

    static func object(_ a: Answer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(a.body.utf8)) as? [String: Any], "\(a.body)")
    }

    @Test func aWebhookIsAddedListedTestedAndDeleted() async throws {
        let receiver = try WebhookLiveTests.Receiver(dir: f.dir)
        let read = try #require(f.tokens["alice"]), write = try #require(f.tokens["aliceWrite"])
        let url = "http://127.0.0.1:\(receiver.port)/hook"
        let body = #"{"url": "\#(url)", "events": ["webhook.test", "budget.threshold", "webhook.test"]}"#
        let (refused, added) = try await withClient(allowPrivate: true) { client in
            (try await client.call("/api/v1/webhooks", token: read, method: .post, body: body),
             try await client.call("/api/v1/webhooks", token: write, method: .post, body: body))
        }
        expectProblem(refused, status: 403, says: "needs a write token")
        #expect(added.status == .created, "\(added.body)")
        let hook = try Self.object(added)
        let id = try #require(hook["id"] as? String), secret = try #require(hook["secret"] as? String)
        #expect(id.hasPrefix("wh_") && secret.hasPrefix("whsec_") && hook["url"] as? String == url)
        #expect(hook["events"] as? [String] == ["budget.threshold", "webhook.test"])
        try receiver.setSecret(secret)

        let (listed, tested, none) = try await withClient(allowPrivate: true) { client in
            (try await client.call("/api/v1/webhooks", token: read),
             try await client.call("/api/v1/webhooks/\(id)/test", token: write, method: .post),
             try await client.call("/api/v1/webhooks/\(id)/deliveries", token: read))
        }
        #expect(listed.status == .ok && listed.body.contains(id) && !listed.body.contains("whsec_"), "never a secret: \(listed.body)")
        let test = try Self.object(tested)
        #expect(test["status"] as? Int == 200 && test["delivered"] as? Bool == true, "\(tested.body)")
        let got = receiver.wait(timeout: 30) { !$0.isEmpty }
        #expect(got.count == 1 && got.first?["type"] as? String == "webhook.test" && got.first?["verified"] as? Bool == true, "\(got)")
        #expect(got.first?["id"] as? String == test["event_id"] as? String)
        #expect(none.status == .ok && none.body.hasPrefix("[") && !none.body.contains("\"id\""), "a test is not stored: \(none.body)")

        // An event of a type it wants makes a delivery, listed by the route.
        let store = try f.store()
        _ = try await store.raise([NewNotificationEvent(userID: ServiceFixture.alice, type: NotificationType.budgetThreshold, key: "k1", payload: .object([]))])
        #expect(try await store.fanOut(limit: 100) == 1)
        let (deliveries, deleted, again, after) = try await withClient(allowPrivate: true) { client in
            (try await client.call("/api/v1/webhooks/\(id)/deliveries?limit=10", token: read),
             try await client.call("/api/v1/webhooks/\(id)", token: write, method: .delete),
             try await client.call("/api/v1/webhooks/\(id)", token: write, method: .delete),
             try await client.call("/api/v1/webhooks", token: read))
        }
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(deliveries.body.utf8)) as? [[String: Any]], "\(deliveries.body)")
        #expect(rows.count == 1 && rows.first?["type"] as? String == "budget.threshold" && rows.first?["status"] as? String == "pending")
        #expect(deleted.status == .ok && deleted.body.contains(id))
        expectProblem(again, status: 404, says: "no webhook \\\"\(id)")
        #expect(!after.body.contains(id))
    }

    @Test func badInputAndPrivateAddressesAreProblems() async throws {
        let write = try #require(f.tokens["aliceWrite"])
        let local = try f.cli(["webhooks", "add", "--user", ServiceFixture.alice, "--url", "http://127.0.0.1:9/hook", "--format", "json"], db: f.db)
        let localID = try #require((try JSONSerialization.jsonObject(with: Data(local.utf8)) as? [String: String])?["id"])
        let answers = try await withClient(allowPrivate: false) { client in
            [try await client.call("/api/v1/webhooks", token: write, method: .post, body: #"{"url": "ftp://example.org/x"}"#),
             try await client.call("/api/v1/webhooks", token: write, method: .post, body: #"{"url": "https://example.org/x", "events": ["budget.thresholds"]}"#),
             try await client.call("/api/v1/webhooks", token: write, method: .post, body: #"{"events": []}"#),
             try await client.call("/api/v1/webhooks", token: write, method: .post, body: "not json"),
             try await client.call("/api/v1/webhooks", token: write, method: .post, body: #"{"url": "http://127.0.0.1:8080/hook"}"#),
             try await client.call("/api/v1/webhooks", token: write, method: .post, body: #"{"url": "http://10.1.2.3/hook"}"#),
             try await client.call("/api/v1/webhooks/\(localID)/test", token: write, method: .post),
             try await client.call("/api/v1/webhooks/wh_0000000000000000/test", token: write, method: .post)]
        }
        expectProblem(answers[0], status: 400, says: "is not an http(s) URL with a host (url)")
        expectProblem(answers[1], status: 400, says: "is not an event type (events)")
        expectProblem(answers[2], status: 400, says: "url is required")
        expectProblem(answers[3], status: 400, says: "the body must be a JSON object")
        expectProblem(answers[4], status: 400, says: "127.0.0.1 is 127.0.0.1, a loopback, private or reserved address")
        expectProblem(answers[5], status: 400, says: "--allow-private-webhooks")
        expectProblem(answers[6], status: 400, says: "--allow-private-webhooks")
        expectProblem(answers[7], status: 404, says: "GET /api/v1/webhooks lists them")
        #expect(!(try f.cli(["webhooks", "list", "--user", ServiceFixture.alice], db: f.db)).contains("10.1.2.3"), "refused: not stored")
    }

    @Test func budgetsTakeAndShowThresholds() async throws {
        let write = try #require(f.tokens["aliceWrite"])
        let body = #"{"name": "Food", "amount": "100.00", "currency": "EUR", "from": "2031-01-01", "to": "2031-12-31", "every": "month", "thresholds": [100, 50, 50]}"#
        let (added, bad, big, edited) = try await withClient(allowPrivate: false) { client in
            let added = try await client.call("/api/v1/budgets", token: write, method: .post, body: body)
            let id = (try? Self.object(added))?["id"] as? Int ?? 0
            return (added,
                    try await client.call("/api/v1/budgets/\(id)", token: write, method: .patch, body: #"{"thresholds": [0, 80]}"#),
                    try await client.call("/api/v1/budgets/\(id)", token: write, method: .patch, body: #"{"thresholds": [1001]}"#),
                    try await client.call("/api/v1/budgets/\(id)", token: write, method: .patch, body: #"{"thresholds": [90]}"#))
        }
        #expect(added.status == .created, "\(added.body)")
        #expect(try Self.object(added)["thresholds"] as? [Int] == [50, 100], "\(added.body)")
        expectProblem(bad, status: 400, says: "thresholds: 0 is not a whole percentage from 1 to 1000")
        expectProblem(big, status: 400, says: "thresholds: 1001 is not a whole percentage")
        #expect(edited.status == .ok, "\(edited.body)")
        #expect(try Self.object(edited)["thresholds"] as? [Int] == [90], "\(edited.body)")
    }
}
