import Foundation
import GeoSpendTestSupport
import Testing

/// The map rollups through the built binary (docs/ROLLUPS.md): `export grid --shape h3` and
/// `export tiles --layer heat` write the same bytes from the rollups as with
/// `GEOSPEND_MAP_ROLLUPS=scan`, after an import, an edit, a delete and a user's deletion;
/// `doctor` finds them equal to a recomputation. All-users layers read the cells' rollups
/// (`map_cell_rollups`), one user's the per-user rows.
@Suite(.serialized) struct MapRollupCLITests {
    /// Helsinki's stores and `geospend generate` data (8 users, seed 33) in a fresh database; the folder is removed afterwards.
    func withDatabase(_ body: (_ dir: URL, _ db: String) throws -> Void) throws {
        let dir = Reliability.scratch("rollups")
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("e.csv").path, db = dir.appendingPathComponent("r.sqlite").path
        for step in [
            ["generate", "--users", "8", "--expenses", "3000", "--seed", "33", "--out", csv],
            ["import", "stores", "Data/helsinki-places.geojson", "--db", db],
            ["import", "expenses", csv, "--db", db],
        ] {
            let r = try Reliability.geospend(step)
            try #require(r.status == 0, "\(step): \(r.err)")
        }
        try body(dir, db)
    }

    /// Every output of the layers the rollups serve, with the rollups or with a scan.
    func outputs(_ dir: URL, _ db: String, scan: Bool) throws -> [String] {
        let env = ["SOURCE_DATE_EPOCH": "1767225600"].merging(scan ? ["GEOSPEND_MAP_ROLLUPS": "scan"] : [:]) { $1 }
        var out: [String] = []
        for args in [
            ["export", "grid", "--shape", "h3", "--resolution", "9", "--all-users"],
            ["export", "grid", "--shape", "h3", "--resolution", "7", "--all-users", "--min-users", "2", "--metric", "count"],
            ["export", "grid", "--shape", "h3", "--resolution", "10", "--user", "user2", "--currency", "EUR"],
            ["export", "grid", "--shape", "h3", "--resolution", "8", "--all-users", "--min-users", "1", "--kind", "expense", "--kind", "income"],
        ] {
            let r = try Reliability.geospend(args + ["--db", db], env: env)
            #expect(r.status == 0, "\(args): \(r.err)")
            out.append(r.out)
        }
        for maxZoom in ["12", "16"] {
            let mbtiles = dir.appendingPathComponent("heat-\(UUID().uuidString).mbtiles").path
            let r = try Reliability.geospend(
                ["export", "tiles", "--layer", "heat", "--all-users", "--max-zoom", maxZoom, "--out", mbtiles, "--db", db], env: env)
            #expect(r.status == 0, "\(r.err)")
            out.append(try Reliability.sql(
                mbtiles, "SELECT name, value FROM metadata ORDER BY name; SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles ORDER BY 1, 2, 3;",
                shell: Reliability.sqlite3).joined(separator: "\n"))
        }
        return out
    }

    @Test func layersAreTheSameFromRollupsAndFromAScan() throws {
        try withDatabase { dir, db in
            func compare(_ when: String) throws {
                let (rolled, scanned) = (try outputs(dir, db, scan: false), try outputs(dir, db, scan: true))
                for (n, (a, b)) in zip(rolled, scanned).enumerated() {
                    #expect(a == b, "\(when): output \(n) differs")
                    #expect(a.count > 1000, "\(when): output \(n) publishes cells")
                }
            }
            try compare("after the import")
            let first = try Reliability.sql(db, "SELECT id, user_id FROM expenses WHERE lat IS NOT NULL ORDER BY id LIMIT 2")
            let (edited, deleted) = (first[0].split(separator: "|").map(String.init), first[1].split(separator: "|").map(String.init))
            for step in [
                ["expenses", "edit", edited[0], "--user", edited[1], "--lat", "60.2", "--lon", "24.9", "--amount", "12.34"],
                ["expenses", "delete", deleted[0], "--user", deleted[1]],
                ["users", "delete", "user5", "--yes"],
            ] {
                let r = try Reliability.geospend(step + ["--db", db])
                #expect(r.status == 0, "\(step): \(r.err)")
            }
            try compare("after an edit, a delete and a user's deletion")
            #expect(try Reliability.sql(db, "SELECT count(*) FROM map_rollups WHERE user_id = 'user5'") == ["0"])
            let doctor = try Reliability.geospend(["doctor", "--db", db, "--format", "json"])
            #expect(doctor.status == 0 && doctor.out.contains("equal to a recomputation from the expenses"), "\(doctor.out)\(doctor.err)")
        }
    }
}
