import Foundation
import GeoSpendTestSupport
import Testing

/// `export grid --shape hex|square` wherever the data is (docs/GRIDS.md): at the poles, on both
/// sides of ±180°, on every continent at once. Run as the built binary; each layer is checked by
/// shapely and pyproj (Tests/validators/check_grid_cells.py: validity, counter-clockwise rings,
/// every expense in exactly one cell and the counts, cell areas), by geojson-validator,
/// geojson-pydantic and geopandas (check_geojson.py), and by GDAL (`ogrinfo -dialect sqlite`,
/// SpatiaLite's ST_IsValid).
@Suite(.serialized) struct GlobalGridTests {
    let python = CLITests.repo.appendingPathComponent(".venv/bin/python").path

    func geospend(_ args: [String]) throws -> ProgramOutput {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    /// Generated expenses, the same every run: a linear congruential sequence (Knuth's MMIX
    /// constants) seeded with 21 places points uniformly on the sphere's surface within `km` of a
    /// centre (spherical destination formula, radius 6,371 km), plus positions given exactly.
    struct Points {
        var seed: UInt64 = 21
        var rows: [(lat: Double, lon: Double)] = []

        mutating func next() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53)
        }

        mutating func near(_ lat0: Double, _ lon0: Double, km: Double, _ n: Int) {
            let (la0, lo0) = (lat0 * .pi / 180, lon0 * .pi / 180)
            for _ in 0..<n {
                let d = km * next().squareRoot() / 6371, bearing = 2 * .pi * next()
                let la = asin(sin(la0) * cos(d) + cos(la0) * sin(d) * cos(bearing))
                let lo = lo0 + atan2(sin(bearing) * sin(d) * cos(la0), cos(d) - sin(la0) * sin(la))
                var lon = (lo * 180 / .pi + 180).truncatingRemainder(dividingBy: 360)
                if lon < 0 { lon += 360 }
                rows.append((la * 180 / .pi, lon - 180))
            }
        }

        mutating func anywhere(_ n: Int) {
            for _ in 0..<n { rows.append((asin(2 * next() - 1) * 180 / .pi, 360 * next() - 180)) }
        }

        var csv: String {
            var text = "id,user,kind,amount,currency,occurred_at,category,lat,lon\n"
            for (n, p) in rows.enumerated() {
                text += "e\(n),u\(n % 4),expense,\(1 + n % 97).25,EUR,2025-05-01T12:00:00Z,Food,\(p.lat),\(p.lon)\n"
            }
            return text
        }
    }

    /// 300 points within 1 km of each pole, and the poles themselves under several longitudes.
    static func pole(north: Bool) -> Points {
        var p = Points()
        let s = north ? 1.0 : -1.0
        p.near(90 * s, 0, km: 1, 300)
        p.rows += [(90 * s, 0), (90 * s, 135), (90 * s, -180), (90 * s, 180), (89.99999 * s, 45)]
        return p
    }

    /// Fiji and Chukotka, both on ±180°: 200 points within 60 km and (by default) 300 km of it,
    /// and points exactly on it written as 180 and as -180.
    static func pacific(chukotkaKm: Double = 300) -> Points {
        var p = Points()
        p.near(-17, 180, km: 60, 200)
        p.near(66, 180, km: chukotkaKm, 200)
        p.rows += [(-17.2, 180), (-17.3, -180), (66.5, 180), (65.9, -180)]
        return p
    }

    /// Every continent in one layer: 60 points within 5 km of Helsinki, New York, São Paulo,
    /// Nairobi, Tokyo, Sydney, McMurdo (Antarctica), Utqiaġvik (Alaska), Fiji (179.9° E) and
    /// Chukotka (179.9° W), and `anywhere` (300) anywhere.
    static func world(anywhere: Int = 300) -> Points {
        var p = Points()
        for (lat, lon) in [
            (60.17, 24.94), (40.71, -74.0), (-23.55, -46.63), (-1.29, 36.82), (35.68, 139.69), (-33.87, 151.21),
            (-77.85, 166.67), (71.29, -156.79), (-17.0, 179.9), (66.0, -179.9),
        ] {
            p.near(lat, lon, km: 5, 60)
        }
        p.anywhere(anywhere)
        return p
    }

    /// Exports both shapes at 1 km and 50 km cells and runs every check; returns the problems.
    func check(_ points: Points, name: String) throws -> [String] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-globalgrid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let expenses = dir.appendingPathComponent("\(name).csv").path, db = dir.appendingPathComponent("g.sqlite").path
        try points.csv.write(toFile: expenses, atomically: true, encoding: .utf8)
        let imported = try geospend(["import", "expenses", expenses, "--db", db])
        guard imported.status == 0 else { return ["import: \(imported.err)"] }
        var problems: [String] = []
        var layers: [(file: String, layer: String, what: String)] = []
        for shape in ["hex", "square"] {
            for cell in [1_000, 50_000] {
                let out = dir.appendingPathComponent("\(name)-\(shape)-\(cell).geojson").path
                // 9 decimals (0.1 mm): coordinates rounded to 6 would move edges by up to 11 cm.
                let r = try geospend([
                    "export", "grid", "--shape", shape, "--cell", "\(cell)m", "--all-users", "--min-users", "1", "--precision", "9",
                    "--db", db, "--out", out,
                ])
                let what = "\(name) \(shape) \(cell) m"
                guard r.status == 0 else {
                    problems.append("\(what): export: \(r.err)")
                    continue
                }
                let cells = try runProgram(python, ["Tests/validators/check_grid_cells.py", expenses, out, String(cell), shape], directory: CLITests.repo)
                if cells.status != 0 || !cells.out.hasPrefix("ok\n") { problems.append("\(what): \(cells.out)\(cells.err)") }
                layers.append((out, "\(name)-\(shape)-\(cell)", what))
            }
        }
        return problems + (try readerProblems(layers))
    }

    /// What geojson-validator, geojson-pydantic and geopandas (check_geojson.py) and GDAL with
    /// SpatiaLite's ST_IsValid find wrong in layer files (`layer`: the name GDAL gives the file's
    /// layer; `what`: how a problem names it). One Python run checks them all: importing its
    /// readers takes about 2.5 s of CPU, more than checking a small layer (test-cpu-profile.sh).
    func readerProblems(_ layers: [(file: String, layer: String, what: String)]) throws -> [String] {
        guard !layers.isEmpty else { return [] }
        var problems: [String] = []
        // 9 decimals and the many positions of a cell drawn around a pole are expected here.
        let readers = try runProgram(
            python, ["Tests/validators/check_geojson.py", "--allow", "excessive_coordinate_precision,excessive_vertices"] + layers.map(\.file),
            directory: CLITests.repo)
        if readers.status != 0 { problems.append("\(layers.map(\.what).joined(separator: ", ")): \(readers.out)\(readers.err)") }
        for (file, layer, what) in layers {
            let gdal = try runProgram("/usr/bin/ogrinfo", [
                "-ro", "-q", "-dialect", "sqlite", "-sql",
                "SELECT count(*) AS bad FROM \"\(layer)\" WHERE NOT ST_IsValid(geometry) OR ST_IsValid(geometry) IS NULL", file,
            ])
            if gdal.status != 0 || !gdal.out.contains("bad (Integer) = 0") { problems.append("\(what): GDAL: \(gdal.out)\(gdal.err)") }
        }
        return problems
    }

    @Test(arguments: [true, false])
    func cellsAtAPoleAreValidAndHoldEveryExpense(north: Bool) throws {
        let problems = try check(Self.pole(north: north), name: north ? "north" : "south")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test(arguments: ["pacific", "world"])
    func cellsOnBothSidesOfTheAntimeridianAndOnEveryContinent(name: String) throws {
        let problems = try check(name == "pacific" ? Self.pacific() : Self.world(), name: name)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The layer says which grid it is: one projection for a city, regions for the globe.
    @Test func provenanceNamesTheRegions() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-globalgrid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let expenses = dir.appendingPathComponent("w.csv").path, db = dir.appendingPathComponent("g.sqlite").path
        try Self.world().csv.write(toFile: expenses, atomically: true, encoding: .utf8)
        #expect(try geospend(["import", "expenses", expenses, "--db", db]).status == 0)
        let r = try geospend(["export", "grid", "--cell", "50000m", "--all-users", "--min-users", "1", "--db", db])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("\"projection\":\"per region: +proj=laea"), "\(r.out.prefix(1500))")
        #expect(r.out.contains("\"cell_id\":\"hex-50000m@region-90,0:"), "McMurdo lies in the south cap")
        #expect(r.out.contains("\"cell_id\":\"hex-50000m@region60,30:"), "Helsinki lies in the box centred on 60° N 30° E")
    }
}
