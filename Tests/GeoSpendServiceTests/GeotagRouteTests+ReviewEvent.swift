import Foundation
import GeoSpend
import Testing

/// `POST /api/v1/geotag?apply=true` raises `geotag.review_waiting` as the CLI does (issue 39):
/// one event with the ambiguous expenses' count and ids, in the token user's feed only; a dry
/// run (GET, POST without apply) none.
extension GeotagRouteTests {
    @Test func anAppliedRunWithExpensesToReviewIsInTheFeedOnce() async throws {
        let write = f.tokens["aliceWrite"]
        let history = try await f.withClient { try await $0.call("/api/v1/positions?format=google-timeline", token: write, method: .post, body: Self.timeline) }
        try #require(history.status == .ok, "\(history.body)")
        let store = try f.store()
        func waiting(_ user: String) async throws -> [NotificationEvent] {
            try await store.notifications(userID: user, after: nil, limit: 1000, unreadOnly: false).filter { $0.type == NotificationType.geotagReviewWaiting }
        }
        _ = try await f.withClient { try await $0.call("/api/v1/geotag?timezone=Europe/Helsinki", token: write, method: .post) }
        #expect(try await waiting(ServiceFixture.alice).isEmpty, "a dry run raises nothing")
        let applied = try await f.withClient { try await $0.call("/api/v1/geotag?timezone=Europe/Helsinki&apply=true", token: write, method: .post) }
        let ambiguous = try #require(try json(applied.body)["ambiguous"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        try #require(!ambiguous.isEmpty, "the demo person's statement leaves some to review: \(applied.body.prefix(500))")
        let events = try await waiting(ServiceFixture.alice)
        #expect(events.count == 1)
        let data = try #require(try JSONSerialization.jsonObject(with: Data((events.first?.payload ?? "{}").utf8)) as? [String: Any])
        #expect(data["waiting"] as? Int == ambiguous.count && data["expense_ids"] as? [String] == Array(ambiguous.sorted().prefix(100)), "\(data)")
        #expect(try await waiting(ServiceFixture.bob).isEmpty)
        _ = try await f.withClient { try await $0.call("/api/v1/geotag?timezone=Europe/Helsinki&apply=true", token: write, method: .post) }
        #expect(try await waiting(ServiceFixture.alice).count == 1, "the same expenses still waiting: not again")
    }
}
