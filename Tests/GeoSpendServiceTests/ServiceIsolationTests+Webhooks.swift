import Foundation
import GeoSpend
import Testing

/// Webhooks are per user over HTTP (issue 39): bob's webhook is in no answer alice's token
/// gets, and its id is a 404 to her on every route, like a missing one; it stays bob's.
extension ServiceIsolationTests {
    @Test func anotherUsersWebhookIsNeverListedAndItsIdIs404() async throws {
        let added = try f.cli(["webhooks", "add", "--user", ServiceFixture.bob, "--url", "https://example.org/bob", "--format", "json"], db: f.db)
        let id = try #require((try JSONSerialization.jsonObject(with: Data(added.utf8)) as? [String: String])?["id"])
        let store = try f.store()
        _ = try await store.raise([NewNotificationEvent(userID: ServiceFixture.bob, type: NotificationType.test, key: "bob1", payload: .object([]))])
        #expect(try await store.fanOut(limit: 100) == 1)
        let (list, answers) = try await f.withClient { client in
            (try await client.call("/api/v1/webhooks", token: f.tokens["alice"]),
             [try await client.call("/api/v1/webhooks/\(id)/deliveries", token: f.tokens["alice"]),
              try await client.call("/api/v1/webhooks/\(id)/test", token: f.tokens["aliceWrite"], method: .post),
              try await client.call("/api/v1/webhooks/\(id)", token: f.tokens["aliceWrite"], method: .delete)])
        }
        #expect(list.status == .ok && !list.body.contains(id) && !list.body.contains("example.org/bob"), "\(list.body)")
        for a in answers { expectProblem(a, status: 404, says: "no webhook") }
        #expect(try await store.webhooks(userID: ServiceFixture.bob).map(\.id) == [id], "still bob's")
        #expect(try await store.deliveries(userID: ServiceFixture.bob, webhookID: id, limit: 10).count == 1)
    }
}
