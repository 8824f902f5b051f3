import Foundation
import GeoSpendTestSupport
import Testing

/// `export density` wherever the data is (docs/GRIDS.md): at the poles, on both sides of ±180°,
/// on every continent, and kernels reaching across region borders. Run as the built binary on
/// GlobalGridTests' seeded points; each surface is checked by Tests/validators/check_density.py
/// (shapely: valid counter-clockwise cells, each expense in exactly one; every cell's density and
/// count recomputed with pyproj and numpy from the CSV; the surface's mass against the total)
/// and by the readers GlobalGridTests uses (geojson-validator, geojson-pydantic, geopandas, GDAL).
/// The six surfaces are checked in one test, each Python checker run once over all of them: a
/// checker's imports cost about 2.5 s of CPU, more than a small surface's checks.
@Suite struct GlobalDensityTests {
    let grids = GlobalGridTests()

    /// A surface to export and check: its points, its cell and its kernel's radius in metres.
    struct Surface {
        let name: String
        let points: GlobalGridTests.Points
        let cell: Int
        let bandwidth: Int
    }

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

    static var surfaces: [Surface] {
        var helsinki = GlobalGridTests.Points()
        helsinki.near(60.17, 24.94, km: 5, 200)
        return [
            Surface(name: "north", points: GlobalGridTests.pole(north: true), cell: 1_000, bandwidth: 5_000),
            Surface(name: "south", points: GlobalGridTests.pole(north: false), cell: 1_000, bandwidth: 5_000),
            // Smaller than the grids' (Chukotka's points within 150 km, not 300; 100 points
            // anywhere, not 300): a kernel of radius 5 cells covers about 80 cells, each checked
            // by four readers, and the two took about 40 s of make test's CPU as the grids have them.
            Surface(name: "pacific", points: GlobalGridTests.pacific(chukotkaKm: 150), cell: 5_000, bandwidth: 25_000),
            Surface(name: "world", points: GlobalGridTests.world(anywhere: 100), cell: 4_000, bandwidth: 20_000),
            Surface(name: "borders", points: borders, cell: 500, bandwidth: 5_000),
            Surface(name: "helsinki", points: helsinki, cell: 100, bandwidth: 500),
        ]
    }

    /// Imports each surface's points into a file of its own, exports its density, and runs every
    /// check over all of them; returns the problems and each layer's text by surface name.
    func check(_ surfaces: [Surface]) throws -> (problems: [String], layers: [String: String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-globaldensity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var problems: [String] = [], layers: [String: String] = [:]
        var densityArguments: [String] = [], exported: [(file: String, layer: String, what: String)] = []
        for s in surfaces {
            let expenses = dir.appendingPathComponent("\(s.name).csv").path, db = dir.appendingPathComponent("\(s.name).sqlite").path
            try s.points.csv.write(toFile: expenses, atomically: true, encoding: .utf8)
            let imported = try grids.geospend(["import", "expenses", expenses, "--db", db])
            guard imported.status == 0 else { problems.append("\(s.name): import: \(imported.err)"); continue }
            let layer = "\(s.name)-density", out = dir.appendingPathComponent("\(layer).geojson").path
            let r = try grids.geospend([
                "export", "density", "--cell", "\(s.cell)m", "--bandwidth", "\(s.bandwidth)m", "--all-users", "--min-users", "1",
                "--precision", "9", "--db", db, "--out", out,
            ])
            guard r.status == 0 else { problems.append("\(s.name): export: \(r.err)"); continue }
            densityArguments += [expenses, out, String(s.cell), String(s.bandwidth)]
            exported.append((out, layer, s.name))
            layers[s.name] = try String(contentsOfFile: out, encoding: .utf8)
        }
        guard !exported.isEmpty else { return (problems, layers) }
        let checked = try runProgram(grids.python, ["Tests/validators/check_density.py"] + densityArguments, directory: CLITests.repo)
        let oks = checked.out.split(separator: "\n").filter { $0.contains(".geojson: ok, cells ") }
        if checked.status != 0 || oks.count != exported.count { problems.append("check_density.py: \(checked.out)\(checked.err)") }
        problems += try grids.readerProblems(exported)
        return (problems, layers)
    }

    @Test func densityIsValidAndKeepsItsMassAtThePolesAcrossTheAntimeridianOnEveryContinentAndInACity() throws {
        let (problems, layers) = try check(Self.surfaces)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")

        let world = layers["world"] ?? ""
        #expect(world.contains("\"projection\":\"per region: +proj=laea"), "\(world.prefix(1500))")
        #expect(world.contains("\"distance\":\"d in the plane of the cell's region"))

        // Kernels cut by a region border: the cells on the far side count the expenses too (with
        // each expense spread in its own region only, check_density.py finds those cells'
        // densities and counts short of the recomputed ones). Both boxes of the 15° E meridian at
        // 40° N hold cells.
        let borders = layers["borders"] ?? ""
        #expect(borders.contains("\"cell_id\":\"square-500m@region30,0:"))
        #expect(borders.contains("\"cell_id\":\"square-500m@region30,30:"))

        // A city's surface keeps its one projection (its golden file is ExportTests').
        let helsinki = layers["helsinki"] ?? ""
        #expect(helsinki.contains("\"projection\":\"+proj=laea +lat_0=60 +lon_0=25 "), "\(helsinki.prefix(1500))")
    }
}
