import Foundation
import GeoSpend
import Testing

/// The pull feed and reminders over HTTP (issue 39): the token user's events, keyset-paged, marked
/// read; another user's never seen; `/reminders` answers `reminders due --format json`.
@Suite struct NotificationRouteTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    @Test func theFeedPagesMarksReadAndKeepsUsersApart() async throws {
        let store = try f.store()
        let raised = try await store.raise((1...3).map {
            NewNotificationEvent(userID: ServiceFixture.alice, type: NotificationType.test, key: "k\($0)", payload: .object([("n", .integer(Int64($0)))]))
        })
        #expect(raised.count == 3)
        let token = try #require(f.tokens["alice"]), write = try #require(f.tokens["aliceWrite"])
        let (first, second, read, unread, bobs, bad, reminders) = try await f.withClient { client in
            // After the fixture import's own import.finished event.
            let first = try await client.call("/api/v1/notifications?limit=2&after=\(raised[0].sequence - 1)", token: token)
            let json = try JSONSerialization.jsonObject(with: Data(first.body.utf8)) as? [String: Any]
            let next = json?["next"] as? String ?? ""
            let second = try await client.call("/api/v1/notifications?limit=2&after=\(next)", token: token)
            let read = try await client.call("/api/v1/notifications/read?through=\(raised[1].sequence)", token: write, method: .post)
            let unread = try await client.call("/api/v1/notifications?unread=true", token: token)
            let bobs = try await client.call("/api/v1/notifications", token: f.tokens["bob"])
            let bad = try await client.call("/api/v1/notifications/read", token: write, method: .post)
            let reminders = try await client.call("/api/v1/reminders?as-of=2030-01-01T00:00:00Z", token: token)
            return (first, second, read, unread, bobs, bad, reminders)
        }
        #expect(first.status == .ok && first.body.contains(raised[0].id) && first.body.contains(raised[1].id) && !first.body.contains(raised[2].id))
        #expect(second.body.contains(raised[2].id) && second.body.contains("\"next\":null"), "\(second.body)")
        #expect(read.status == .ok && read.body.contains("\"marked\": 3"), "the import's event and two: \(read.body)")
        #expect(unread.body.contains(raised[2].id) && !unread.body.contains(raised[0].id), "\(unread.body)")
        #expect(!bobs.body.contains(raised[0].id), "another user's events are never in the feed")
        expectProblem(bad, status: 400, says: "through")
        #expect(reminders.status == .ok && reminders.body.hasPrefix("["), "\(reminders.body)")
    }
}
