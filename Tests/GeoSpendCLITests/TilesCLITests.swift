import Foundation
import GeoSpendTestSupport
import Testing

/// `geospend export tiles` as the built binary, its MBTiles decoded by PyPI mapbox-vector-tile
/// and GDAL's MBTiles/MVT drivers and compared with an independent computation
/// (Tests/validators/check_tiles.py: its own Web Mercator binning and suppression rule).
@Suite(.serialized) struct TilesCLITests {
    let python = CLITests.repo.appendingPathComponent(".venv/bin/python").path
    let checker = CLITests.repo.appendingPathComponent("Tests/validators/check_tiles.py").path

    /// Helsinki stores and `expenses` generated expenses of `users` users (seed 21), imported into
    /// a fresh database; the folder is removed afterwards.
    func withDatabase(users: Int = 5, expenses: Int = 1500, _ body: (_ dir: URL, _ db: String, _ csv: String) throws -> Void) throws {
        let dir = Reliability.scratch("tiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("e.csv").path, db = dir.appendingPathComponent("t.sqlite").path
        let steps = [
            ["generate", "--users", String(users), "--expenses", String(expenses), "--seed", "21", "--out", csv],
            ["import", "stores", "Data/helsinki-places.geojson", "--db", db],
            ["import", "expenses", csv, "--db", db],
        ]
        for step in steps {
            let r = try Reliability.geospend(step)
            try #require(r.status == 0, "\(step): \(r.err)")
        }
        try body(dir, db, csv)
    }

    func check(_ args: [String]) throws -> ProgramOutput {
        try runProgram(python, [checker] + args, directory: CLITests.repo)
    }

    @Test(arguments: [(3, 1, 10), (1, 2, 12)])
    func heatTilesEqualAnIndependentBinningAtEveryZoom(minUsers: Int, minCount: Int, maxZoom: Int) throws {
        try withDatabase { dir, db, csv in
            let out = dir.appendingPathComponent("heat.mbtiles").path
            let r = try Reliability.geospend([
                "export", "tiles", "--layer", "heat", "--all-users", "--min-users", String(minUsers), "--min-count", String(minCount),
                "--max-zoom", String(maxZoom), "--db", db, "--out", out,
            ])
            #expect(r.status == 0 && r.err.contains("wrote ") && r.err.contains(" tiles, zooms 0–\(maxZoom)"), "\(r.err)")
            #expect(r.err.contains("suppressed"), "the fixture has cells to hide: \(r.err)")
            let c = try check(["heat", csv, out, "0", String(maxZoom), String(minCount), String(minUsers)])
            #expect(c.status == 0 && c.out.contains("\"ok\": true"), "\(c.out)\(c.err)")
        }
    }

    @Test func pointTilesCarryEveryPointOfTheUserAtEveryZoom() throws {
        try withDatabase { dir, db, csv in
            let out = dir.appendingPathComponent("points.mbtiles").path
            let r = try Reliability.geospend(["export", "tiles", "--layer", "points", "--user", "user1", "--max-zoom", "14", "--db", db, "--out", out])
            #expect(r.status == 0, "\(r.err)")
            let c = try check(["points", csv, out, "0", "14", "user1"])
            #expect(c.status == 0 && c.out.contains("\"ok\": true"), "\(c.out)\(c.err)")
            // On a terminal (util-linux `script` gives it one) progress counts tiles up to the total.
            let tty = try runProgram("/bin/sh", [
                "-c", "script -qec \"'$0' export tiles --layer points --user user1 --max-zoom 14 --db '$1' --out '$2'\" /dev/null",
                CLITests.binary, db, out,
            ])
            let total = r.err.components(separatedBy: "wrote ").last?.split(separator: " ").first.map(String.init) ?? "?"  // "wrote N tiles, …"
            #expect(tty.status == 0 && tty.out.contains("\(total) / \(total) tiles written"), "\(tty.out)")
            // Every user's raw positions: refused without --allow-raw-positions, as `export points`.
            let all = try Reliability.geospend(["export", "tiles", "--layer", "points", "--all-users", "--db", db, "--out", out])
            #expect(all.status == 2 && all.err.contains("--allow-raw-positions"), "\(all.err)")
        }
    }

    @Test func placeTilesCarryThePlacesLayer() throws {
        try withDatabase { dir, db, _ in
            let out = dir.appendingPathComponent("places.mbtiles").path, geojson = dir.appendingPathComponent("places.geojson").path
            let options = ["--all-users", "--min-users", "2", "--db", db]
            let places = try Reliability.geospend(["export", "places"] + options + ["--out", geojson])
            let r = try Reliability.geospend(["export", "tiles", "--layer", "places", "--max-zoom", "13"] + options + ["--out", out])
            #expect(places.status == 0 && r.status == 0, "\(places.err)\(r.err)")
            let c = try check(["places", geojson, out, "0", "13"])
            #expect(c.status == 0 && c.out.contains("\"ok\": true"), "\(c.out)\(c.err)")
        }
    }

    /// A tile over 500 KB is refused with the way out, and nothing is left behind; the database
    /// is never the output, an earlier MBTiles file is replaced.
    @Test func oversizedTilesAreRefusedAndOutputsChecked() throws {
        try withDatabase(users: 1, expenses: 12_000) { dir, db, _ in
            let out = dir.appendingPathComponent("big.mbtiles").path
            let big = try Reliability.geospend(["export", "tiles", "--layer", "points", "--user", "user1", "--db", db, "--out", out])
            #expect(big.status == 2, "\(big.err)")
            #expect(big.err.contains("vector tile 0/0/0 of the points layer would be") && big.err.contains("raise --min-zoom above 0"), "\(big.err)")
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("big") }
            #expect(left.isEmpty, "\(left)")
            let args = ["export", "tiles", "--layer", "heat", "--user", "user1", "--max-zoom", "8", "--db", db, "--out", out]
            let first = try Reliability.geospend(args), again = try Reliability.geospend(args)
            #expect(first.status == 0 && again.status == 0, "\(first.err)\(again.err)")
            let overDatabase = try Reliability.geospend(["export", "tiles", "--layer", "heat", "--user", "user1", "--db", db, "--out", db])
            #expect(overDatabase.status == 2 && overDatabase.err.contains("the database itself"), "\(overDatabase.err)")
            let noLayer = try Reliability.geospend(["export", "tiles", "--user", "user1", "--db", db, "--out", out])
            #expect(noLayer.status == 2 && noLayer.err.contains("--layer heat, points or places"), "\(noLayer.err)")
            let pointsSuppressed = try Reliability.geospend(["export", "tiles", "--layer", "points", "--user", "user1", "--min-users", "2", "--db", db, "--out", out])
            #expect(pointsSuppressed.status == 2 && pointsSuppressed.err.contains("not point tiles"), "\(pointsSuppressed.err)")
            let zooms = try Reliability.geospend(["export", "tiles", "--layer", "heat", "--user", "user1", "--min-zoom", "9", "--max-zoom", "8", "--db", db, "--out", out])
            #expect(zooms.status == 2 && zooms.err.contains("--min-zoom ≤ --max-zoom"), "\(zooms.err)")
        }
    }
}
