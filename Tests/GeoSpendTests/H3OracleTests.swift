import Foundation
import GeoSpendTestSupport
import Testing

@testable import GeoSpend

/// GeoSpend's own H3 against PyPI h3 (pinned in Tests/validators/requirements.txt) as the oracle:
/// scripts/h3/oracle.py draws seeded positions (30,000 per resolution band 0–4, 5–9, 10–15; a tenth
/// each near the poles, on and near ±180°, and near the 12 pentagons) and writes h3's cells, centres,
/// parents, boundaries, children and grid disks; every answer here must equal it (positions to 1e-9°).
@Suite("H3 against PyPI h3")
struct H3OracleTests {
    /// 30,000 in `make test` (with 100,000 the suite was 1.6 % of a whole run's perf samples);
    /// `GEOSPEND_H3_ORACLE_PER_BAND=100000 swift test --filter H3OracleTests` for more.
    static let perBand = ProcessInfo.processInfo.environment["GEOSPEND_H3_ORACLE_PER_BAND"].flatMap(Int.init) ?? 30_000

    struct OracleFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// The oracle's lines, written once per run into a temporary folder that is removed (an error,
    /// not a crash, when h3 is missing from .venv: run `make venv`).
    static let lines: Result<[Substring], Error> = Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-h3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("oracle.txt").path
        // Bounded: a hung oracle fails the suite (ProgramTimeout) instead of hanging it.
        let r = try runProgram(Fixtures.path(".venv/bin/python"), [Fixtures.path("scripts/h3/oracle.py"), "21", String(perBand), out], timeout: .seconds(600))
        guard r.status == 0 else {
            throw OracleFailed(description: "scripts/h3/oracle.py failed (status \(r.status)): is h3 installed in .venv? (make venv)\n\(r.err.suffix(2000))")
        }
        return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    }

    /// Within 1e-9° of arc. Near a pole h3 takes latitude as asin of a sine within 1e-12 of 1,
    /// which is only good to about 2⁻⁵²/cos(latitude) radians (4e-8° at 89.99993°); there the
    /// allowance is 4× that bound (GeoSpend builds the point as a vector and keeps its digits).
    static func close(_ a: (latitude: Double, longitude: Double), _ lat: Double, _ lng: Double) -> Bool {
        let r = Double.pi / 180
        let allowed = max(1e-9, 4 * Double.ulpOfOne / max(1e-300, cos(lat * r)) / r)
        let dLat = (a.latitude - lat) * r, dLng = (a.longitude - lng) * r
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * r) * cos(lat * r) * sin(dLng / 2) * sin(dLng / 2)
        return 2 * asin(min(1, h.squareRoot())) / r <= allowed
    }

    /// Failures as text (the first few), so one #expect reports them all.
    struct Misses {
        var count = 0
        var first: [String] = []
        mutating func add(_ s: @autoclosure () -> String) {
            count += 1
            if first.count < 8 { first.append(s()) }
        }
        var report: String { "\(count) mismatches, e.g.\n" + first.joined(separator: "\n") }
    }

    @Test("latLngToCell, cellToLatLng and cellToParent equal h3's on every drawn position")
    func points() throws {
        var misses = Misses()
        var checked = 0
        for line in try Self.lines.get() where line.hasPrefix("P ") {
            let f = line.split(separator: " ")
            let lat = Double(f[1])!, lng = Double(f[2])!, res = Int(f[3])!
            let cell = try H3.latLngToCell(latitude: lat, longitude: lng, resolution: res)
            checked += 1
            guard cell.id == f[4] else {
                misses.add("(\(lat), \(lng)) r\(res): \(cell.id), h3 \(f[4])")
                continue
            }
            let c = H3.cellToLatLng(cell)
            if !Self.close(c, Double(f[5])!, Double(f[6])!) { misses.add("centre of \(cell): \(c), h3 \(f[5]) \(f[6])") }
            let parent = try H3.cellToParent(cell, resolution: Int(f[7])!)
            if parent.id != f[8] { misses.add("parent of \(cell) r\(f[7]): \(parent), h3 \(f[8])") }
        }
        #expect(checked == 3 * Self.perBand)
        #expect(misses.count == 0, "\(misses.report)")
    }

    @Test("cellToBoundary equals h3's to 1e-9°, pentagons and their neighbours at every resolution included")
    func boundaries() throws {
        var misses = Misses()
        for line in try Self.lines.get() where line.hasPrefix("B ") {
            let f = line.split(separator: " ")
            let cell = try H3Cell(String(f[1]))
            let b = H3.cellToBoundary(cell)
            let n = Int(f[2])!
            guard b.count == n else {
                misses.add("\(cell): \(b.count) vertices, h3 \(n)")
                continue
            }
            for v in 0..<n where !Self.close(b[v], Double(f[3 + 2 * v])!, Double(f[4 + 2 * v])!) {
                misses.add("\(cell) vertex \(v): \(b[v]), h3 \(f[3 + 2 * v]) \(f[4 + 2 * v])")
                break
            }
        }
        #expect(misses.count == 0, "\(misses.report)")
    }

    @Test("cellToChildren and gridDisk give h3's sets")
    func sets() throws {
        var misses = Misses()
        for line in try Self.lines.get() where line.hasPrefix("C ") || line.hasPrefix("D ") {
            let f = line.split(separator: " ")
            let cell = try H3Cell(String(f[1]))
            let n = Int(f[2])!
            let want = Set(f[3...].map(String.init))
            let got = line.hasPrefix("C ")
                ? Set(try H3.cellToChildren(cell, resolution: n).map(\.id)) : Set(try H3.gridDisk(cell, k: n).map(\.id))
            if got != want {
                misses.add("\(f[0]) \(cell) \(n): \(got.subtracting(want).sorted()) extra, \(want.subtracting(got).sorted()) missing")
            }
        }
        #expect(misses.count == 0, "\(misses.report)")
    }
}
