import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// `/api/v1/users/me/settings` and what the settings change over HTTP: the answers are
/// `geospend users settings --format json`'s, bad values are 400s naming the key, only the
/// token's user's settings are ever read or written, the user's zone is the routes' default
/// (else UTC, never the server's), and `PositionRetentionService` prunes at start.
@Suite(.serialized) struct UserSettingsRouteTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    func settings(_ user: String, db: String? = nil) throws -> String {
        try f.cli(["users", "settings", "--user", user, "--format", "json"], db: db ?? f.db)
    }

    @Test func showSetAndRefuse() async throws {
        let (read, write, bob) = (f.tokens["alice"], f.tokens["aliceWrite"], f.tokens["bob"])
        let defaults = try await f.withClient { try await $0.call("/api/v1/users/me/settings", token: read) }
        #expect(try defaults.status == .ok && defaults.body == settings(ServiceFixture.alice))
        #expect(defaults.body.contains("\"time_zone\": null") && defaults.body.contains("\"position_retention_days\": null"), "\(defaults.body)")

        let body = #"{"time_zone": "Europe/Helsinki", "position_retention_days": 36500}"#
        let refused = try await f.withClient { try await $0.call("/api/v1/users/me/settings", token: read, method: .put, body: body) }
        expectProblem(refused, status: 403, says: "write token")
        let set = try await f.withClient { try await $0.call("/api/v1/users/me/settings", token: write, method: .put, body: body) }
        #expect(set.status == .ok, "\(set.body)")
        #expect(try set.body == settings(ServiceFixture.alice), "what the CLI shows after it")
        #expect(set.body.contains("\"time_zone\": \"Europe/Helsinki\"") && set.body.contains("\"position_retention_days\": 36500"), "\(set.body)")

        // Bob's token reads bob's settings: alice's are nowhere in his answer.
        let bobs = try await f.withClient { try await $0.call("/api/v1/users/me/settings", token: bob) }
        #expect(bobs.status == .ok && bobs.body == defaults.body, "\(bobs.body)")
        #expect(try settings(ServiceFixture.bob) == defaults.body)

        // A key left out keeps its value; null unsets.
        let unset = try await f.withClient { try await $0.call("/api/v1/users/me/settings", token: write, method: .put, body: #"{"time_zone": null}"#) }
        #expect(unset.body.contains("\"time_zone\": null") && unset.body.contains("\"position_retention_days\": 36500"), "\(unset.body)")

        for (bad, says) in [
            (#"{"time_zone": "Mars/Olympus"}"#, #"time_zone: \"Mars/Olympus\" is not an IANA time zone name"#),
            (#"{"time_zone": 3}"#, "time_zone: give an IANA time zone name"),
            (#"{"position_retention_days": 0}"#, "position_retention_days: 0 is not a number of days from 1 to 36500"),
            (#"{"position_retention_days": 36501}"#, "position_retention_days: 36501 is not"),
            (#"{"position_retention_days": "365"}"#, "position_retention_days: give a whole number of days"),
            (#"{"position_retention_days": 1.5}"#, "position_retention_days: give a whole number"),
            (#"{"position_retention_days": true}"#, "position_retention_days: give a whole number"),
            (#"{"retention": 30}"#, #"unknown key \"retention\"; the keys are time_zone, position_retention_days"#),
            ("[1]", "the body must be a JSON object"),
            ("not json", "the body must be a JSON object"),
        ] {
            let a = try await f.withClient { try await $0.call("/api/v1/users/me/settings", token: write, method: .put, body: bad) }
            expectProblem(a, status: 400, says: says)
        }
        #expect(try settings(ServiceFixture.alice) == unset.body, "nothing refused was written")
    }

    /// Setting a retention over HTTP deletes the older history before the answer; bob's stays.
    @Test func aShorterRetentionAppliesAtOnce() async throws {
        for user in [ServiceFixture.alice, ServiceFixture.bob] {
            _ = try f.cli(["import", "positions", "Data/examples/positions/google-records.json", "--user", user], db: f.db)
        }
        func total(_ token: String?) async throws -> String {
            let a = try await f.withClient { try await $0.call("/api/v1/positions?limit=1", token: token) }
            return String(a.body.split(separator: "\n").first { $0.contains("total_positions") } ?? "")
        }
        let before = try await total(f.tokens["alice"])
        #expect(!before.hasSuffix(" 0"), "\(before)")
        // The fixture's fixes are of 2026-03-05: a day's retention leaves none of them.
        let set = try await f.withClient {
            try await $0.call("/api/v1/users/me/settings", token: f.tokens["aliceWrite"], method: .put, body: #"{"position_retention_days": 1}"#)
        }
        #expect(set.status == .ok, "\(set.body)")
        #expect(try await total(f.tokens["alice"]).hasSuffix(" 0"))
        #expect(try await total(f.tokens["bob"]) == before, "bob keeps his")
        // An import keeps the retention too: the same old fixes are gone again at its end.
        let imported = try await f.withClient {
            try await $0.call(
                "/api/v1/positions", token: f.tokens["aliceWrite"], method: .post,
                body: try String(contentsOfFile: ServiceFixture.repo.appendingPathComponent("Data/examples/positions/google-records.json").path, encoding: .utf8))
        }
        #expect(imported.status == .ok, "\(imported.body)")
        #expect(try await total(f.tokens["alice"]).hasSuffix(" 0"))
        // The answer says so: the retention, and that the rows it just added went again.
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(imported.body.utf8)) as? [String: Any])
        let retention = try #require(answer["retention"] as? [String: Any], "\(imported.body)")
        let added = try #require(answer["positions_added"] as? Int)
        #expect(added > 0 && retention["days"] as? Int == 1 && retention["positions_deleted"] as? Int == added, "\(imported.body)")
        #expect((retention["kept_from"] as? String)?.hasSuffix("Z") == true, "\(imported.body)")
        // Bob keeps his history: no retention in his answer.
        let bobWrite = try f.token(user: ServiceFixture.bob, scope: "write")
        let bobs = try await f.withClient {
            try await $0.call(
                "/api/v1/positions", token: bobWrite, method: .post,
                body: try String(contentsOfFile: ServiceFixture.repo.appendingPathComponent("Data/examples/positions/google-records.json").path, encoding: .utf8))
        }
        #expect(bobs.status == .ok && bobs.body.contains("\"retention\": null"), "\(bobs.body)")
    }

    /// A date-only K-Market booking on 2026-03-10 and a 25-minute stay at K-Market Esplanadi
    /// (one of three K-Markets) at 22:30–22:55 UTC, which is 00:30 on the 11th in Helsinki: in
    /// UTC the stay is on the booking's day and decides the branch; in Helsinki it is the day
    /// after, so the chain stays ambiguous. The routes read the user's zone when given none.
    @Test func geotagReadsTheUsersZone() async throws {
        let statement = f.dir.appendingPathComponent("late.csv").path
        try "id,amount,currency,occurred_at,merchant\nkm-late,12.40,EUR,2026-03-10,K-MARKET\n".write(toFile: statement, atomically: true, encoding: .utf8)
        _ = try f.cli(["import", "expenses", statement, "--user", ServiceFixture.alice], db: f.db)
        let start = ISO8601DateFormatter().date(from: "2026-03-10T22:30:00Z")!
        let fixes = (0..<25).map { m in
            "\(ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(m) * 60))),\(60.1670104 + Double(m % 3 - 1) * 0.00002),24.9452837,10"
        }
        let history = f.dir.appendingPathComponent("late-history.csv").path
        try (["time,lat,lon,accuracy"] + fixes).joined(separator: "\n").appending("\n").write(toFile: history, atomically: true, encoding: .utf8)
        _ = try f.cli(["import", "positions", history, "--user", ServiceFixture.alice], db: f.db)

        func decision(_ query: String) async throws -> String {
            let a = try await f.withClient { try await $0.call("/api/v1/geotag\(query)", token: f.tokens["alice"]) }
            try #require(a.status == .ok, "\(a.body)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(a.body.utf8)) as? [String: Any])
            for key in ["placed", "ambiguous", "unplaced"] {
                if (report[key] as? [[String: Any]] ?? []).contains(where: { $0["id"] as? String == "km-late" }) { return key }
            }
            return "missing"
        }
        #expect(try await decision("") == "placed", "no setting: UTC")
        #expect(try await decision("?timezone=Europe/Helsinki") == "ambiguous")
        let set = try await f.withClient {
            try await $0.call("/api/v1/users/me/settings", token: f.tokens["aliceWrite"], method: .put, body: #"{"time_zone": "Europe/Helsinki"}"#)
        }
        #expect(set.status == .ok, "\(set.body)")
        #expect(try await decision("") == "ambiguous", "the user's zone")
        #expect(try await decision("?timezone=UTC") == "placed", "a parameter comes first")
        let summary = try await f.withClient { try await $0.call("/api/v1/positions/summary", token: f.tokens["alice"]) }
        #expect(summary.body.contains("\"timezone\": \"Europe/Helsinki\"") && summary.body.contains("\"day\": \"2026-03-11\""), "\(summary.body.prefix(400))")
    }

    /// The retention service prunes every user's history when it starts, then sleeps.
    @Test func theServicePrunesAtStart() async throws {
        _ = try f.cli(["import", "positions", "Data/examples/positions/google-records.json", "--user", ServiceFixture.alice], db: f.db)
        _ = try f.cli(["import", "positions", "Data/examples/positions/google-records.json", "--user", ServiceFixture.bob], db: f.db)
        let store = try f.store()
        // Set directly: setting it through the CLI or the API would prune already.
        #expect(try await store.setUserSettings(try UserSettings(timeZone: nil, positionRetentionDays: 1), userID: ServiceFixture.alice))
        #expect(try await store.locationHistory(userID: ServiceFixture.alice, from: nil, to: nil).positions.count > 0)
        let app = Application(
            router: buildRouter(store: store, timeLimit: ServiceFixture.patient),
            services: [PositionRetentionService(store: store, interval: .seconds(3600), logger: ServiceFixture.quiet)], logger: ServiceFixture.quiet)
        let left = try await app.test(.router) { _ in
            var left = -1
            for _ in 0..<200 {
                left = try await store.locationHistory(userID: ServiceFixture.alice, from: nil, to: nil).positions.count
                if left == 0 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            return left
        }
        #expect(left == 0)
        #expect(try await store.locationHistory(userID: ServiceFixture.bob, from: nil, to: nil).positions.count > 0, "bob set no retention")
    }
}
