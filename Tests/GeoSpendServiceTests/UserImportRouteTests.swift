import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /api/v1/users/me/import` against `geospend users import`: alice's export restored into
/// carol, a user holding only her token and the default categories, gives carol alice's export
/// (but for the id, the generation time and the tokens, which are never restored); a user with
/// data is 409, a read token 403, a corrupt body 422 naming the JSON path; alice and bob are
/// untouched. In process (`.router`), as the other route suites.
@Suite(.serialized) struct UserImportRouteTests {
    let f: ServiceFixture
    init() throws { f = try ServiceFixture() }

    /// A user with the default categories and a write token, nothing else.
    func newUser(_ user: String) throws -> String {
        _ = try f.cli(["categories", "add", "--user", user, "--name", "Scratch"], db: f.db)
        _ = try f.cli(["categories", "delete", "Scratch", "--user", user], db: f.db)
        return try f.token(user: user, scope: "write")
    }

    /// The export without what differs by design: the generation time and the tokens section.
    static func comparable(_ export: String) -> String {
        export.replacingOccurrences(of: #""generated_at":"[^"]*""#, with: "\"generated_at\":\"-\"", options: .regularExpression)
            .replacingOccurrences(of: #""api_tokens":\[[^\]]*\],"#, with: "\"api_tokens\":-,", options: .regularExpression)
    }

    @Test func restoresIntoTheSignedInUserAsTheCLIDoes() async throws {
        let alice = ServiceFixture.alice
        let carol = try newUser("carol")
        let dave = try newUser("dave")
        let write = try #require(f.tokens["aliceWrite"])
        let answers = try await f.withClient { client in
            let aliceBefore = try await client.call("/api/v1/users/me/export", token: f.tokens["alice"])
            let bobBefore = try await client.call("/api/v1/users/me/export", token: f.tokens["bob"])
            let restored = try await client.call("/api/v1/users/me/import", token: carol, method: .post, body: aliceBefore.body)
            let carolExport = try await client.call("/api/v1/users/me/export", token: carol)
            let again = try await client.call("/api/v1/users/me/import", token: carol, method: .post, body: aliceBefore.body)
            let intoAlice = try await client.call("/api/v1/users/me/import", token: write, method: .post, body: aliceBefore.body)
            let readOnly = try await client.call("/api/v1/users/me/import", token: f.tokens["bob"], method: .post, body: aliceBefore.body)
            let corrupt = try await client.call(
                "/api/v1/users/me/import", token: dave, method: .post,
                body: aliceBefore.body.replacingOccurrences(of: #""currency":"EUR""#, with: #""currency":"EURO""#))
            let daveExport = try await client.call("/api/v1/users/me/export", token: dave)
            let aliceAfter = try await client.call("/api/v1/users/me/export", token: f.tokens["alice"])
            let bobAfter = try await client.call("/api/v1/users/me/export", token: f.tokens["bob"])
            return [aliceBefore, bobBefore, restored, carolExport, again, intoAlice, readOnly, corrupt, daveExport, aliceAfter, bobAfter]
        }
        let (aliceBefore, bobBefore, restored, carolExport) = (answers[0], answers[1], answers[2], answers[3])
        #expect(aliceBefore.status == .ok && restored.status == .created, "\(restored.body)")
        let expenses = aliceBefore.body.components(separatedBy: "\"user\":\"\(alice)\"").count - 1
        #expect(expenses > 10)
        #expect(restored.body.contains("\"user\": \"carol\"") && restored.body.contains("\"expenses\": \(expenses)"), "\(restored.body)")
        let expected = Self.comparable(aliceBefore.body)
            .replacingOccurrences(of: "{\"id\":\"\(alice)\",", with: "{\"id\":\"carol\",")
            .replacingOccurrences(of: "\"user\":\"\(alice)\"", with: "\"user\":\"carol\"")
        #expect(Self.comparable(carolExport.body) == expected)
        expectProblem(answers[4], status: 409, says: "user \\\"carol\\\" already has data")
        expectProblem(answers[5], status: 409, says: "already has data")
        expectProblem(answers[6], status: 403, says: "needs a write token")
        expectProblem(answers[7], status: 422, says: "].currency: ")
        // Nothing of the refused body was written: dave still has the defaults alone.
        #expect(answers[8].body.contains("\"expenses\":[],") && !answers[8].body.contains("\"display_name\":\"Alice"), "\(answers[8].body.prefix(400))")
        #expect(Self.comparable(answers[9].body) == Self.comparable(aliceBefore.body), "alice untouched")
        #expect(Self.comparable(answers[10].body) == Self.comparable(bobBefore.body), "bob untouched")
    }
}
