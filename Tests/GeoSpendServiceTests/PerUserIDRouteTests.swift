import Foundation
import GeoSpend
import GeoSpendService
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 35, item 11 over HTTP: expense ids are unique per user. Bob storing `w9` first neither
/// blocks Alice's import of `w9` nor tells her he has it; each token reads, edits and deletes
/// its own `w9` only.
@Suite(.serialized) struct PerUserIDRouteTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    static let header = "id,kind,amount,currency,occurred_at,title,category,merchant,lat,lon"

    @Test func anotherUsersIDNeitherBlocksNorShows() async throws {
        let bobWrite = try f.token(user: ServiceFixture.bob, scope: "write")
        let aliceWrite = try #require(f.tokens["aliceWrite"])
        let bobs = Self.header + "\nw9,expense,9.99,EUR,2025-05-01,Bobs,Food,,,\n"
        let alices = Self.header + "\nw9,expense,1.25,EUR,2025-05-02,Alices,Food,,,\n"
        let (b, a, aAgain, aChanged) = try await f.withClient { client in
            (try await client.call("/api/v1/import/expenses?format=csv", token: bobWrite, method: .post, body: bobs),
             try await client.call("/api/v1/import/expenses?format=csv", token: aliceWrite, method: .post, body: alices),
             try await client.call("/api/v1/import/expenses?format=csv", token: aliceWrite, method: .post, body: alices),
             try await client.call(
                "/api/v1/import/expenses?format=csv", token: aliceWrite, method: .post, body: alices.replacingOccurrences(of: "1.25", with: "2.50")))
        }
        #expect(b.status == .ok && b.body.contains("\"inserted\": 1"), "\(b.body)")
        #expect(a.status == .ok && a.body.contains("\"inserted\": 1"), "\(a.body)")
        #expect(aAgain.status == .ok && aAgain.body.contains("\"unchanged\": 1"), "\(aAgain.body)")
        // Her own changed row is refused, naming the id; nothing says Bob's exists.
        #expect(aChanged.status == .badRequest && aChanged.body.contains("is already stored with different content"), "\(aChanged.body)")
        #expect(!aChanged.body.contains("Bobs") && !aChanged.body.contains(ServiceFixture.bob))

        let (aliceSees, bobSees, edited, deleted, bobAfter) = try await f.withClient { client in
            (try await client.call("/api/v1/expenses/w9", token: aliceWrite),
             try await client.call("/api/v1/expenses/w9", token: bobWrite),
             try await client.call("/api/v1/expenses/w9", token: aliceWrite, method: .patch, body: #"{"title": "Edited"}"#),
             try await client.call("/api/v1/expenses/w9", token: aliceWrite, method: .delete),
             try await client.call("/api/v1/expenses/w9", token: bobWrite))
        }
        #expect(aliceSees.status == .ok && aliceSees.body.contains("Alices") && !aliceSees.body.contains("Bobs"), "\(aliceSees.body)")
        #expect(bobSees.status == .ok && bobSees.body.contains("Bobs"), "\(bobSees.body)")
        #expect(edited.status == .ok && edited.body.contains("Edited"), "\(edited.body)")
        #expect(deleted.status == .ok || deleted.status == .noContent, "\(deleted.status) \(deleted.body)")
        #expect(bobAfter.status == .ok && bobAfter.body.contains("Bobs") && !bobAfter.body.contains("Edited"), "\(bobAfter.body)")
    }
}
