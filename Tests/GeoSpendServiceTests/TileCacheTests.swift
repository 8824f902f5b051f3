import Foundation
import GeoSpendService
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// The tile cache (TileCache.swift) against the same router without one: cached answers are the
/// uncached ones byte for byte and are really served from the cache (its hit count), one user's
/// tile is never another's, and a CLI import into the file — another process — is seen at once.
@Suite(.serialized) struct TileCacheTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    /// Each tile's status and bytes from a router with `cache` (none: nil), in order.
    func fetch(_ uris: [(uri: String, token: String)], cache: TileCache?) async throws -> [(status: UInt, bytes: [UInt8])] {
        let app = Application(
            router: buildRouter(store: try f.store(), timeLimit: ServiceFixture.patient, tileCache: cache), logger: ServiceFixture.quiet)
        return try await app.test(.router) { client in
            var answers: [(status: UInt, bytes: [UInt8])] = []
            for (uri, token) in uris {
                answers.append(try await client.execute(uri: uri, method: .get, headers: [.authorization: "Bearer \(token)"]) { r in
                    (UInt(r.status.code), Array(r.body.readableBytesView))
                })
            }
            return answers
        }
    }

    /// The zoom-z tile holding a point (Web Mercator, y = 0 at the north).
    static func tile(z: Int, lat: Double, lon: Double) -> String {
        let n = Double(1 << z), φ = lat * .pi / 180
        return "\(z)/\(Int((lon + 180) / 360 * n))/\(Int((1 - log(tan(φ) + 1 / cos(φ)) / .pi) / 2 * n))"
    }

    /// Central Helsinki, where the sample data's expenses are.
    static let centre = tile(z: 12, lat: 60.1737, lon: 24.9377)

    @Test func cachedTilesAreTheUncachedOnesAndEachUsersOwn() async throws {
        let (alice, bob, admin) = (try #require(f.tokens["alice"]), try #require(f.tokens["bob"]), try #require(f.tokens["admin"]))
        var uris: [(uri: String, token: String)] = []
        for layer in ["heat", "points", "places"] {
            for tile in ["0/0/0", Self.centre, "12/0/0"] {
                // alice first, so bob's request finds alice's tile cached if the key forgot whose it is
                uris += [("/tiles/\(layer)/\(tile).mvt?max-zoom=12", alice), ("/tiles/\(layer)/\(tile).mvt?max-zoom=12", bob)]
            }
        }
        uris.append(("/tiles/heat/0/0/0.mvt?all-users=true&min-users=3", admin))
        let uncached = try await fetch(uris, cache: nil)
        let cache = try #require(try TileCache(store: try f.store(), maxBytes: 64 << 20))
        let cached = try await fetch(uris + uris, cache: cache)  // the second round all from the cache
        #expect(cache.hits == uris.count)
        for (n, answer) in cached.enumerated() {
            let expected = uncached[n % uris.count]
            #expect(answer.status == expected.status && answer.bytes == expected.bytes, "\(uris[n % uris.count].uri) (round \(n / uris.count + 1))")
        }
        // The test means something: the users' tiles differ where both have data.
        let heatCentre = uris.indices.filter { uris[$0].uri == "/tiles/heat/\(Self.centre).mvt?max-zoom=12" }
        #expect(heatCentre.count == 2 && uncached[heatCentre[0]].status == 200 && uncached[heatCentre[0]].bytes != uncached[heatCentre[1]].bytes)
    }

    @Test func aTileChangesWhenAnotherProcessImports() async throws {
        let alice = try #require(f.tokens["alice"])
        let uri = "/tiles/heat/\(Self.centre).mvt?max-zoom=12"
        let cache = try #require(try TileCache(store: try f.store(), maxBytes: 64 << 20))
        let before = try await fetch([(uri, alice), (uri, alice)], cache: cache)
        #expect(cache.hits == 1)
        // Three new expenses of alice's in that tile, imported by the CLI while the cache holds it.
        let csv = f.dir.appendingPathComponent("more.csv")
        try """
            id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes
            cache1,\(ServiceFixture.alice),expense,12.00,EUR,2025-05-01T12:00:00+03:00,Lunch,Food,Jufu,60.1736696,24.9377374,10,,
            cache2,\(ServiceFixture.alice),expense,8.50,EUR,2025-05-02T12:00:00+03:00,Lunch,Food,Jufu,60.1736696,24.9377374,10,,
            cache3,\(ServiceFixture.alice),expense,30.25,EUR,2025-05-03T12:00:00+03:00,Dinner,Food,Jufu,60.1700000,24.9400000,10,,

            """.write(to: csv, atomically: true, encoding: .utf8)
        _ = try f.cli(["import", "expenses", csv.path], db: f.db)
        let after = try await fetch([(uri, alice)], cache: cache)
        let uncachedAfter = try await fetch([(uri, alice)], cache: nil)
        #expect(before[0].status == 200 && before[0].bytes == before[1].bytes)
        #expect(after[0].bytes != before[0].bytes, "the tile cached before the import was served after it")
        #expect(after[0].status == uncachedAfter[0].status && after[0].bytes == uncachedAfter[0].bytes)
    }
}
