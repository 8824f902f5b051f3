import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/tiles/{layer}/{z}/{x}/{y}.mvt` and `/tiles/{layer}.json` against `geospend export tiles`:
/// every tile of the CLI's MBTiles file, fetched from the real `geospend serve`, is the file's
/// tile byte for byte and decodes alike (PyPI mapbox-vector-tile), the tiles around them are 204,
/// the TileJSON matches the file's metadata, and GDAL reads a tile over HTTP
/// (Tests/validators/check_served_tiles.py). Refusals are problems with the CLI's reasons.
@Suite(.serialized) struct TileRouteTests {
    let f: ServiceFixture
    let python = ServiceFixture.repo.appendingPathComponent(".venv/bin/python").path
    let checker = ServiceFixture.repo.appendingPathComponent("Tests/validators/check_served_tiles.py").path

    init() throws { f = try ServiceFixture() }

    /// The CLI's MBTiles file for `args`.
    func mbtiles(_ name: String, _ args: [String]) throws -> String {
        let out = f.dir.appendingPathComponent("\(name).mbtiles").path
        let r = try f.geospend(["export", "tiles"] + args + ["--db", f.db, "--out", out])
        try #require(r.status == 0, "\(r.err)")
        return out
    }

    @Test func servedTilesAreTheCLIsMBTilesTiles() throws {
        let server = try LiveServerTests.Server(db: f.db, in: f.dir)
        defer { _ = server.stop() }
        // Each user's own layers (bob's too: the same positions answer differently per token),
        // then every user's heat for an admin, with the suppression of --min-users 3 (the service's floor).
        var cases: [(file: String, layer: String, token: String, query: String)] = []
        for layer in ["heat", "points", "places"] {
            for (name, user) in [("alice", ServiceFixture.alice), ("bob", ServiceFixture.bob)] {
                let file = try mbtiles("\(name)-\(layer)", ["--layer", layer, "--user", user, "--max-zoom", "12"])
                cases.append((file, layer, try #require(f.tokens[name]), "max-zoom=12"))
            }
        }
        let all = try mbtiles("all-heat", ["--layer", "heat", "--all-users", "--min-users", "3", "--min-zoom", "3", "--max-zoom", "13"])
        cases.append((all, "heat", try #require(f.tokens["admin"]), "all-users=true&min-users=3&min-zoom=3&max-zoom=13"))
        for c in cases {
            let r = try runProgram(python, [checker, c.file, "http://127.0.0.1:\(server.port)/tiles/\(c.layer)", c.token, c.query])
            #expect(r.status == 0, "\(c.file): \(r.out) \(r.err)")
            #expect(r.out.hasPrefix("ok: "), "\(c.file): \(r.out)")
        }
    }

    /// What the tiles refuse, each a problem saying why (and an empty tile: 204, no body).
    @Test(arguments: [
        ("/tiles/heat/12/0/0.mvt", "alice", 204, ""),
        ("/tiles/roads/0/0/0.mvt", "alice", 404, "the tile layers are heat, points and places"),
        ("/tiles/heat/3/8/0.mvt", "alice", 404, "x and y go from 0 to 2^z − 1"),
        ("/tiles/heat/15/0/0.mvt", "alice", 404, "zooms 0–14"),
        ("/tiles/heat/2/1/1.mvt?min-zoom=3", "alice", 404, "zooms 3–14"),
        ("/tiles/heat/0/0/0.mvt?max-zoom=17", "alice", 400, "max-zoom must be a whole number between 0 and 16"),
        ("/tiles/heat/0/0/0.mvt?all-users=true", "alice", 403, "need an admin token"),
        ("/tiles/heat.json?all-users=yes", "admin", 400, "all-users: \\\"yes\\\" is not true or false"),
        ("/tiles/points/0/0/0.mvt?all-users=true", "admin", 400, "raw positions"),
        ("/tiles/points/0/0/0.mvt?min-users=2", "alice", 400, "not points"),
        ("/tiles/heat/0/0/0.mvt?category=Fod", "alice", 400, "did you mean \\\"Food\\\""),
        ("/tiles/heat/0/0/0.mvt?all-users=true&period=1", "admin", 400, "does not go with all-users"),
        ("/tiles/heat/0/0/0.mvt", nil, 401, "Bearer"),
    ] as [(String, String?, Int, String)])
    func refusals(uri: String, token: String?, status: Int, says: String) async throws {
        let a = try await f.withClient { try await $0.call(uri, token: token.flatMap { f.tokens[$0] }) }
        if status == 204 {
            #expect(a.status == .noContent && a.body.isEmpty, "\(uri): \(a.body)")
        } else {
            expectProblem(a, status: status, says: says)
        }
    }
}
