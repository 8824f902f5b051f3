import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/community` against `geospend community` on the same database: the feed, an entry and
/// a level are the CLI's `--format json` byte for byte; the feed is shared but names no user id;
/// refusals are problems; deleting bob takes his entries out of alice's feed.
@Suite(.serialized) struct CommunityRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice, bob = ServiceFixture.bob

    init() throws { f = try ServiceFixture() }

    @Test func feedIsTheCLIsAndSharedWithoutUserIDs() async throws {
        let write = try #require(f.tokens["aliceWrite"])
        // bob joins and reviews a store from the CLI; alice from the service.
        _ = try f.cli(["community", "join", "--user", bob, "--display-name", "Bob B"], db: f.db)
        _ = try f.cli(["community", "post", "--user", bob, "--type", "store_review", "--store", "56418307", "--rating", "2", "--text", "Slow"], db: f.db)
        let before = try await f.withClient { try await $0.call("/api/v1/community/posts", token: write, method: .post, body: #"{"type": "general", "text": "hi"}"#) }
        #expect(before.status == .forbidden && before.body.contains("community join"), "\(before.body)")
        let joined = try await f.withClient { try await $0.call("/api/v1/community/join", token: write, method: .post, body: #"{"display_name": "Alice A"}"#) }
        #expect(joined.status == .ok, "\(joined.body)")
        let taken = try await f.withClient { try await $0.call("/api/v1/community/join", token: write, method: .post, body: #"{"display_name": "bob b"}"#) }
        #expect(taken.status == .conflict, "\(taken.body)")
        let posted = try await f.withClient {
            try await $0.call("/api/v1/community/posts", token: write, method: .post, body: #"{"type": "store_review", "store": "56418307", "rating": 5, "text": "Great"}"#)
        }
        #expect(posted.status == .created && posted.body.contains("\"display_name\": \"Alice A\""), "\(posted.body)")
        let comment = try await f.withClient {
            try await $0.call("/api/v1/community/posts/1/comments", token: write, method: .post, body: #"{"text": "Not for me"}"#)
        }
        #expect(comment.status == .created, "\(comment.body)")
        // Every user reads the same feed, the CLI's.
        let cliFeed = try f.cli(["community", "feed", "--format", "json"], db: f.db)
        for token in ["alice", "bob"] {
            let feed = try await f.withClient { try await $0.call("/api/v1/community/feed", token: f.tokens[token]) }
            #expect(feed.status == .ok && feed.body == cliFeed, "\(feed.body)")
        }
        #expect(!cliFeed.contains(alice) && !cliFeed.contains(bob) && cliFeed.contains("Bob B"))
        let filtered = try await f.withClient { try await $0.call("/api/v1/community/feed?type=store_review&near=60.17,24.94&radius=20km&limit=1", token: f.tokens["alice"]) }
        #expect(filtered.body == (try f.cli(["community", "feed", "--type", "store_review", "--near", "60.17,24.94", "--radius", "20km", "--limit", "1", "--format", "json"], db: f.db)))
        let shown = try await f.withClient { try await $0.call("/api/v1/community/posts/1", token: f.tokens["alice"]) }
        #expect(shown.body == (try f.cli(["community", "show", "1", "--format", "json"], db: f.db)))
        let level = try await f.withClient { try await $0.call("/api/v1/community/level", token: f.tokens["alice"]) }
        #expect(level.body == (try f.cli(["community", "level", "--user", alice, "--format", "json"], db: f.db)))
        // Refusals.
        let answers = try await f.withClient { client in
            [try await client.call("/api/v1/community/posts", token: write, method: .post, body: #"{"type": "general", "rating": 3, "text": "x"}"#),
             try await client.call("/api/v1/community/posts", token: write, method: .post, body: #"{"type": "store_review", "store": "56418307", "text": "x"}"#),
             try await client.call("/api/v1/community/posts/1", token: write, method: .delete),  // bob's
             try await client.call("/api/v1/community/posts/999", token: f.tokens["alice"]),
             try await client.call("/api/v1/community/posts", token: f.tokens["alice"], method: .post, body: #"{"type": "general", "text": "x"}"#),
             try await client.call("/api/v1/community/feed?near=91,0", token: f.tokens["alice"])]
        }
        #expect(answers.map(\.status.code) == [400, 400, 404, 404, 403, 400], "\(answers.map(\.body))")
        for a in answers { #expect(a.headers[.contentType] == "application/problem+json", "\(a.body)") }
        // Deleting bob takes his entry out of alice's feed.
        _ = try f.cli(["users", "delete", bob, "--yes"], db: f.db)
        let after = try await f.withClient { try await $0.call("/api/v1/community/feed", token: f.tokens["alice"]) }
        #expect(!after.body.contains("Bob B") && !after.body.contains("Slow") && after.body.contains("Great"), "\(after.body)")
    }
}
