import Foundation
import GeoSpend
import GeoSpendService
import Hummingbird
import HummingbirdTesting
import Testing

/// The cross-user store reports over HTTP: `report stores|store --format json` byte for byte,
/// for admin tokens only.
@Suite(.serialized) struct ReportRouteTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    /// With the service's floor (3, as the CLI's default) and, for the cafés near the centre, a
    /// service started with `--min-users 2` answering `min-users=2` as the CLI does.
    @Test(arguments: [
        ("/api/v1/report/stores", ["report", "stores"], 3),
        ("/api/v1/report/stores?near=60.1710,24.9414&radius=500m&kind=amenity:cafe&min-users=2&limit=5",
         ["report", "stores", "--near", "60.1710,24.9414", "--radius", "500m", "--kind", "amenity:cafe", "--min-users", "2", "--limit", "5"], 2),
        ("/api/v1/report/store/4773918022?from=2025-01-01&to=2025-12-31", ["report", "store", "4773918022", "--from", "2025-01-01", "--to", "2025-12-31"], 3),
    ])
    func adminReportsAnswerTheCLIsJSON(uri: String, cli: [String], floor: Int) async throws {
        let app = Application(
            router: buildRouter(store: try f.store(), timeLimit: ServiceFixture.patient, settings: ServiceSettings(minUsersFloor: floor)),
            logger: ServiceFixture.quiet)
        let a = try await app.test(.router) { try await $0.call(uri, token: f.tokens["admin"]) }
        let expected = try f.geospend(cli + ["--format", "json", "--db", f.db])
        try #require(expected.status == 0, "\(expected.err)")
        #expect(a.status == .ok, "\(a.body)")
        #expect(a.body == expected.out)
        #expect(a.body.contains("\"total\""))  // figures published, so the comparison holds some
    }

    @Test func otherScopesGet403() async throws {
        for token in [f.tokens["alice"], f.tokens["aliceWrite"]] {
            let a = try await f.withClient { try await $0.call("/api/v1/report/stores", token: token) }
            #expect(a.status == .forbidden)
            #expect(a.body.contains("admin token"))
        }
        let unknown = try await f.withClient { try await $0.call("/api/v1/report/store/nope", token: f.tokens["admin"]) }
        #expect(unknown.status == .notFound)
    }
}
