import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

extension ServiceIsolationTests {
    /// `POST /api/v1/users/me/import` (issue 38) joins the suite: whichever user a document
    /// names, it lands in the token's user. bob's export (price records, a list, a pantry
    /// item) posted with alice's write token is 409 — she has data — and nothing of hers or
    /// bob's changes; posted with a new user's token it becomes that user's, bob untouched.
    @Test func anImportAlwaysLandsInTheTokensUser() async throws {
        let bob = ServiceFixture.bob
        for args in [["prices", "import", PriceRouteTests.pricesCSV.path, "--user", bob],
                     ["lists", "add", "--user", bob, "--name", "Bob's", "--budget", "5", "--currency", "EUR", "--item", "Vollmilch=2", "--over-budget"],
                     ["pantry", "add", "--user", bob, "--name", "Bob's yoghurt", "--expires", "2026-03-20"]] {
            let r = try f.geospend(args + ["--db", f.db])
            try #require(r.status == 0, "\(r.err)")
        }
        let file = f.dir.appendingPathComponent("bob-export.json")
        _ = try f.cli(["users", "export", bob, "--out", file.path], db: f.db)
        // A member's display name is unique: the copy's must be its own.
        let document = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: "\"member\":{\"display_name\":\"", with: "\"member\":{\"display_name\":\"copy of ")
        #expect(document.contains("{\"id\":\"\(bob)\",") && document.contains("\"price_records\":[\n") && document.contains("\"shopping_lists\":[\n"))
        _ = try f.cli(["categories", "add", "--user", "erin", "--name", "Scratch"], db: f.db)
        _ = try f.cli(["categories", "delete", "Scratch", "--user", "erin"], db: f.db)
        let erin = try f.token(user: "erin", scope: "write")
        let a = try await f.withClient { client in
            [
                try await client.call("/api/v1/users/me/export", token: f.tokens["alice"]),
                try await client.call("/api/v1/users/me/export", token: f.tokens["bob"]),
                try await client.call("/api/v1/users/me/import", token: f.tokens["aliceWrite"], method: .post, body: document),
                try await client.call("/api/v1/users/me/import", token: erin, method: .post, body: document),
                try await client.call("/api/v1/users/me/export", token: erin),
                try await client.call("/api/v1/users/me/export", token: f.tokens["alice"]),
                try await client.call("/api/v1/users/me/export", token: f.tokens["bob"]),
            ]
        }
        expectProblem(a[2], status: 409, says: "already has data")
        #expect(a[3].status == .created, "\(a[3].body)")
        #expect(a[4].body.contains("{\"id\":\"erin\",") && !a[4].body.contains("\"user\":\"\(bob)\""), "\(a[4].body.prefix(400))")
        #expect(a[4].body.contains("\"price_records\":[\n") && a[4].body.contains("\"name\":\"Bob's\""))
        #expect(UserImportRouteTests.comparable(a[5].body) == UserImportRouteTests.comparable(a[0].body), "alice untouched")
        #expect(UserImportRouteTests.comparable(a[6].body) == UserImportRouteTests.comparable(a[1].body), "bob untouched")
    }
}
