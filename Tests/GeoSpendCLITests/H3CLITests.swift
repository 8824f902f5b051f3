import Foundation
import GeoSpendTestSupport
import Testing

/// `geospend h3` and `export grid --shape h3` run as the built binary, checked by PyPI h3, GDAL
/// (ogrinfo, pyogrio) and DuckDB (Tests/validators/check_h3_layer.py).
@Suite(.serialized) struct H3CLITests {
    let python = CLITests.repo.appendingPathComponent(".venv/bin/python").path

    func geospend(_ args: [String]) throws -> ProgramOutput {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-h3cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: d) }
        return try body(d)
    }

    /// Positions where H3 is hardest: the poles, both sides of ±180°, pentagon base cell 4's centre
    /// (64.7°N 10.5°E) and an ordinary city.
    static let places: [(lat: Double, lon: Double)] = [
        (60.1699, 24.9384), (89.9999, 45), (-90, 0), (-89.95, -120), (12.5, 179.9999), (12.5, -179.9999),
        (-16.8, 180), (64.7, 10.54), (0, 0), (-33.92, 18.42),
    ]

    @Test func cellPrintsH3PysIdsAndRejectsBadInput() throws {
        for (n, p) in Self.places.enumerated() {
            let res = n % 16
            let r = try geospend(["h3", "cell", "--lat", String(p.lat), "--lon", String(p.lon), "--resolution", String(res)])
            let want = try runProgram(python, ["-c", "import h3; print(h3.latlng_to_cell(\(p.lat), \(p.lon), \(res)))"])
            #expect(r.status == 0 && r.out == want.out, "\(p) r\(res): \(r.out)\(r.err) vs h3-py \(want.out)\(want.err)")
        }
        let badLat = try geospend(["h3", "cell", "--lat", "91", "--lon", "0", "--resolution", "3"])
        #expect(badLat.status == 2 && badLat.err.contains("latitude must be within"))
        let badRes = try geospend(["h3", "cell", "--lat", "1", "--lon", "0", "--resolution", "16"])
        #expect(badRes.status == 2 && badRes.err.contains("use 0 (cells ~1,100 km across) to 15"))
        let badID = try geospend(["h3", "boundary", "--cell", "8f28308280fffff"])
        #expect(badID.status == 2 && badID.err.contains("is not an H3 cell id") && badID.err.contains("digit 10 is 7"))
        let boundary = try geospend(["h3", "boundary", "--cell", "801dfffffffffff"])  // a pentagon
        let json = try #require(try JSONSerialization.jsonObject(with: Data(boundary.out.utf8)) as? [String: Any])
        let ring = try #require((json["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])
        #expect(boundary.status == 0 && ring.first?.count == 6, "a pentagon's closed ring has 6 positions: \(boundary.out)")
    }

    @Test func gridLayerKeysCellsAsH3PyAndDuckDBDo() throws {
        try withFolder { dir in
            // 900 EUR expenses by 6 users: clusters at the places above plus spread over the globe
            // (a fixed linear congruential sequence, so the file is the same every run).
            var seed: UInt64 = 21
            func next() -> Double {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                return Double(seed >> 11) / Double(1 << 53)
            }
            var csv = "id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes\n"
            for n in 0..<900 {
                var lat: Double, lon: Double
                if n % 3 == 0 {
                    lat = asin(2 * next() - 1) * 180 / .pi
                    lon = 360 * next() - 180
                } else {
                    let p = Self.places[n % Self.places.count]
                    lat = max(-90, min(90, p.lat + (next() - 0.5) * 0.5))
                    lon = p.lon + (next() - 0.5) * 0.5
                    if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
                }
                let amount = String(format: "%.2f", 1 + 99 * next())
                csv += "h\(n),u\(n % 6),expense,\(amount),EUR,2025-05-01T12:00:00Z,t,Food,m,\(lat),\(lon),,,\n"
            }
            let expenses = dir.appendingPathComponent("e.csv").path, db = dir.appendingPathComponent("h3.sqlite").path
            try csv.write(toFile: expenses, atomically: true, encoding: .utf8)
            let imported = try geospend(["import", "expenses", expenses, "--db", db])
            #expect(imported.status == 0, "\(imported.err)")
            for (res, minCount) in [(2, 1), (4, 2), (9, 1)] {
                let out = dir.appendingPathComponent("h3-\(res).geojson").path
                let r = try geospend([
                    "export", "grid", "--shape", "h3", "--resolution", String(res), "--all-users", "--min-users", "1",
                    "--min-count", String(minCount), "--db", db, "--out", out,
                ])
                #expect(r.status == 0, "\(r.err)")
                let features = try #require(r.err.split(separator: " ").drop { $0 != "wrote" }.dropFirst().first.flatMap { Int($0) })
                let info = try runProgram("/usr/bin/ogrinfo", ["-ro", "-al", "-so", out])
                #expect(info.status == 0 && info.out.contains("Feature Count: \(features)"), "\(info.out)\(info.err)")
                let check = try runProgram(python, ["Tests/validators/check_h3_layer.py", expenses, out, String(res), String(minCount)], directory: CLITests.repo)
                #expect(check.status == 0 && check.out == "ok\n", "resolution \(res): \(check.out)\(check.err)")
            }
            let noRes = try geospend(["export", "grid", "--shape", "h3", "--all-users", "--db", db])
            #expect(noRes.status == 2 && noRes.err.contains("--shape h3 needs --resolution"))
            let withCell = try geospend(["export", "grid", "--shape", "h3", "--resolution", "5", "--cell", "250m", "--all-users", "--db", db])
            #expect(withCell.status == 2 && withCell.err.contains("not --cell"))
        }
    }
}
