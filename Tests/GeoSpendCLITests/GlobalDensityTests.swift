import Foundation
import GeoSpendTestSupport
import Testing

/// `export density` wherever the data is (docs/GRIDS.md): at the poles, on both sides of ±180°,
/// on every continent, and kernels reaching across region borders. Run as the built binary on
/// GlobalGridTests' seeded points; each surface is checked by Tests/validators/check_density.py
/// (shapely: valid counter-clockwise cells, each expense in exactly one; every cell's density and
/// count recomputed with pyproj and numpy from the CSV; the surface's mass against the total)
/// and by the readers GlobalGridTests uses (geojson-validator, geojson-pydantic, geopandas, GDAL).
@Suite(.serialized) struct GlobalDensityTests {
    let grids = GlobalGridTests()

    /// 40 points within 3 km of places on region borders: a meridian (15° E), a parallel (45° N),
    /// the corner of four boxes, the north cap's edge (75° N), the south cap's edge, 165° E (the
    /// edge of the box across ±180°) and ±180° itself.
    static var borders: GlobalGridTests.Points {
        var p = GlobalGridTests.Points()
        for (lat, lon) in [(40.0, 15.0), (45.0, 60.0), (45.0, 15.0), (75.0, 100.0), (-75.0, -60.0), (0.0, 165.0), (10.0, 180.0)] {
            p.near(lat, lon, km: 3, 40)
        }
        return p
    }

    /// Imports the points, exports density with `--cell` and `--bandwidth`, and runs every check;
    /// returns the problems and the density file's text.
    func check(_ points: GlobalGridTests.Points, name: String, cell: Int, bandwidth: Int) throws -> (problems: [String], layer: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-globaldensity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let expenses = dir.appendingPathComponent("\(name).csv").path, db = dir.appendingPathComponent("g.sqlite").path
        try points.csv.write(toFile: expenses, atomically: true, encoding: .utf8)
        let imported = try grids.geospend(["import", "expenses", expenses, "--db", db])
        guard imported.status == 0 else { return (["import: \(imported.err)"], "") }
        let layer = "\(name)-density", out = dir.appendingPathComponent("\(layer).geojson").path
        let r = try grids.geospend([
            "export", "density", "--cell", "\(cell)m", "--bandwidth", "\(bandwidth)m", "--all-users", "--min-users", "1",
            "--precision", "9", "--db", db, "--out", out,
        ])
        guard r.status == 0 else { return (["\(name): export: \(r.err)"], "") }
        var problems: [String] = []
        let checked = try runProgram(
            grids.python, ["Tests/validators/check_density.py", expenses, out, String(cell), String(bandwidth)], directory: CLITests.repo)
        if checked.status != 0 || !checked.out.hasPrefix("ok\n") { problems.append("\(name): \(checked.out)\(checked.err)") }
        problems += try grids.readerProblems([(out, layer, name)])
        return (problems, try String(contentsOfFile: out, encoding: .utf8))
    }

    @Test(arguments: [true, false])
    func densityAtAPoleIsValidAndKeepsItsMass(north: Bool) throws {
        let (problems, _) = try check(GlobalGridTests.pole(north: north), name: north ? "north" : "south", cell: 1_000, bandwidth: 5_000)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    // The surfaces below are smaller than the grids' (Chukotka's points within 150 km, not 300;
    // 100 points anywhere, not 300): a kernel of radius 5 cells covers about 80 cells, each
    // checked by four readers, and the two took about 40 s of make test's CPU as the grids have them.
    @Test func densityOnBothSidesOfTheAntimeridian() throws {
        let (problems, _) = try check(GlobalGridTests.pacific(chukotkaKm: 150), name: "pacific", cell: 5_000, bandwidth: 25_000)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func densityOnEveryContinent() throws {
        let (problems, layer) = try check(GlobalGridTests.world(anywhere: 100), name: "world", cell: 4_000, bandwidth: 20_000)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(layer.contains("\"projection\":\"per region: +proj=laea"), "\(layer.prefix(1500))")
        #expect(layer.contains("\"distance\":\"d in the plane of the cell's region"))
    }

    /// Kernels cut by a region border: the cells on the far side count the expenses too (with
    /// each expense spread in its own region only, check_density.py finds those cells' densities
    /// and counts short of the recomputed ones), and the surface integrates to the total.
    @Test func kernelsReachAcrossRegionBorders() throws {
        let (problems, layer) = try check(Self.borders, name: "borders", cell: 500, bandwidth: 5_000)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        // Both boxes of the 15° E meridian at 40° N hold cells.
        #expect(layer.contains("\"cell_id\":\"square-500m@region30,0:"))
        #expect(layer.contains("\"cell_id\":\"square-500m@region30,30:"))
    }

    /// A city's surface keeps its one projection (its golden file is ExportTests').
    @Test func aCityKeepsOneProjection() throws {
        var p = GlobalGridTests.Points()
        p.near(60.17, 24.94, km: 5, 200)
        let (problems, layer) = try check(p, name: "helsinki", cell: 100, bandwidth: 500)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        #expect(layer.contains("\"projection\":\"+proj=laea +lat_0=60 +lon_0=25 "), "\(layer.prefix(1500))")
    }
}
