import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/users/me` GET and PATCH against `geospend users edit`: the same checks and answers;
/// the name and email are in `users export`.
@Suite(.serialized) struct UserProfileRouteTests {
    let f: ServiceFixture
    init() throws { f = try ServiceFixture() }

    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #""created_at": ?"[^"]*""#, with: "\"time\"", options: .regularExpression)
    }

    @Test func nameAndEmailAsWithTheCLI() async throws {
        let copy = try f.copy()
        let write = try #require(f.tokens["aliceWrite"])
        let alice = ServiceFixture.alice
        let answers = try await f.withClient { client in
            [try await client.call("/api/v1/users/me", token: write, method: .patch, body: #"{"name": " Alice  Example ", "email": "alice@example.org"}"#),
             try await client.call("/api/v1/users/me", token: write, method: .patch, body: #"{"email": null}"#),
             try await client.call("/api/v1/users/me", token: write, method: .patch, body: #"{"email": "alice at example"}"#),
             try await client.call("/api/v1/users/me", token: write, method: .patch, body: #"{"nick": "a"}"#),
             try await client.call("/api/v1/users/me", token: f.tokens["alice"], method: .patch, body: #"{"name": "X"}"#),
             try await client.call("/api/v1/users/me", token: f.tokens["alice"])]
        }
        #expect(answers.map(\.status.code) == [200, 200, 400, 400, 403, 200], "\(answers.map(\.body))")
        let cli = [try f.cli(["users", "edit", "--user", alice, "--name", " Alice  Example ", "--email", "alice@example.org"], db: copy),
                   try f.cli(["users", "edit", "--user", alice, "--email", ""], db: copy)]
        #expect(Self.masked(answers[0].body) == Self.masked(cli[0]) && Self.masked(answers[1].body) == Self.masked(cli[1]))
        #expect(answers[0].body.contains("\"name\": \"Alice  Example\"") && answers[0].body.contains("\"email\": \"alice@example.org\""), "\(answers[0].body)")
        #expect(answers[5].body == answers[1].body)
        #expect(answers[2].body.contains("is not an email address"), "\(answers[2].body)")
        let bad = try f.geospend(["users", "edit", "--user", alice, "--email", "alice at example", "--db", copy])
        #expect(bad.status == 2 && bad.err.contains("--email: \"alice at example\" is not an email address"), "\(bad.err)")
        // The export carries them.
        let exported = try await f.withClient { try await $0.call("/api/v1/users/me/export", token: f.tokens["alice"]) }
        #expect(exported.body.contains("\"display_name\":\"Alice  Example\",\"email\":null"), "\(exported.body.prefix(300))")
    }
}
