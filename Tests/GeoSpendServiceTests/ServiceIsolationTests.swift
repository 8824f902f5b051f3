import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite
import Hummingbird
import HummingbirdTesting
import Testing

/// Isolation over HTTP (the HTTP part of Tests/GeoSpendCLITests/IsolationTests.swift's
/// guarantee): what alice's token gets from every endpoint is the same, byte for byte, from a
/// database holding only her expenses (`alone`) as from the sample database where every other
/// user spends at the same stores and places (`shared`). It cannot pass vacuously: filed under
/// alice (`merged`), bob's rows change every answer. Guessing another user's id gives 404.
@Suite(.serialized) struct ServiceIsolationTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    /// Every endpoint that answers with the token user's data.
    static let endpoints = [
        "/api/v1/near?lat=60.1699&lon=24.9384&radius=5km",
        "/api/v1/insights",
        "/api/v1/insights?by=store",
        "/api/v1/summary",
        "/api/v1/expenses?limit=1000",
        "/api/v1/export/points",
        "/api/v1/export/grid",
        "/api/v1/export/density?cell=200m",
        "/api/v1/export/places",
        "/api/v1/users/me/export",
        "/ogc/collections/expenses/items?limit=10000",
        "/ogc/collections/places/items?limit=10000",
        "/ogc/collections/hex/items?limit=10000",
        "/ogc/collections/density/items?limit=10000",
        "/tiles/heat/0/0/0.mvt",
        "/tiles/points/0/0/0.mvt",
        "/tiles/places/0/0/0.mvt",
        "/tiles/points.json",
        "/api/v1/snap?tolerance=80m",
        "/api/v1/search/expenses?text=e&limit=1000",
    ]

    /// A database from the sample stores and the sample expenses `keep` picks (renamed by `rename`).
    func database(_ name: String, keep: (String) -> Bool, rename: (String) -> String = { $0 }) throws -> String {
        let csv = try String(contentsOf: ServiceFixture.repo.appendingPathComponent("Data/sample-expenses.csv"), encoding: .utf8)
        var lines = csv.split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        let rows = lines.compactMap { line -> String? in
            var fields = line.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard keep(fields[1]) else { return nil }
            fields[1] = rename(fields[1])
            return fields.joined(separator: ",")
        }
        let file = f.dir.appendingPathComponent("\(name).csv")
        try ([header] + rows).joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
        let db = f.dir.appendingPathComponent("\(name).sqlite").path
        for args in [["import", "stores", "Data/helsinki-places.geojson"], ["import", "expenses", file.path]] {
            let r = try f.geospend(args + ["--db", db])
            try #require(r.status == 0, "\(r.err)")
        }
        return db
    }

    /// alice's answers from `db`, with the instants that differ between runs (generation and
    /// creation times) blanked.
    func answers(_ db: String) async throws -> [String] {
        let store = try SpatiaLiteStore(path: db)
        let made = TokenAuth.newToken()
        _ = try await store.addToken(userID: ServiceFixture.alice, scope: .read, lookup: made.lookup, sha256: made.sha256, expiresAt: nil)
        let token = made.text
        let app = Application(router: buildRouter(store: store, timeLimit: ServiceFixture.patient), logger: ServiceFixture.quiet)
        let bodies = try await app.test(.router) { client in
            var out: [String] = []
            for uri in Self.endpoints {
                let a = try await client.call(uri, token: token)
                out.append("\(a.status.code) " + a.body)
            }
            return out
        }
        let times = try Regex(#""(generated_at|created_at|timeStamp)": ?"[^"]*""#)
        return bodies.map { $0.replacing(times, with: "\"time\"") }
    }

    @Test func aliceGetsTheSameAnswersWhateverOtherUsersHold() async throws {
        let alone = try await answers(try database("alone", keep: { $0 == ServiceFixture.alice }))
        let shared = try await answers(try database("shared", keep: { _ in true }))
        let merged = try await answers(try database("merged", keep: { [ServiceFixture.alice, ServiceFixture.bob].contains($0) }, rename: { _ in ServiceFixture.alice }))
        for (n, uri) in Self.endpoints.enumerated() {
            #expect(alone[n].hasPrefix("200 "), "\(uri): \(alone[n].prefix(300))")
            #expect(shared[n] == alone[n], "\(uri)")
            #expect(merged[n] != alone[n], "\(uri): bob's rows under alice's name change nothing, so the comparison proves nothing")
        }
    }

    @Test func guessedIdsOfOtherUsersAre404() async throws {
        let bobs = try f.geospend(["expenses", "list", "--user", ServiceFixture.bob, "--limit", "1000", "--format", "json", "--db", f.db])
        let ids = bobs.out.split(separator: "\n").filter { $0.hasPrefix("      \"id\": ") }.map { String($0.split(separator: "\"")[3]) }
        #expect(ids.count > 100)
        let statuses = try await f.withClient { client in
            var s: Set<UInt16> = []
            for id in ids { s.insert(UInt16(try await client.call("/api/v1/expenses/\(id)", token: f.tokens["alice"]).status.code)) }
            return s
        }
        #expect(statuses == [404])
    }
}
