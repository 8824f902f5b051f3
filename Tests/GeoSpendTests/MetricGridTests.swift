import CProj
import Foundation
import Testing

@testable import GeoSpend

/// The export grids' geometry: the equal-area projection against PROJ (an independent
/// implementation of the same projection), cell assignment against a brute-force nearest-centre
/// search, ring orientation and closure, and cells cut at ±180°.
struct MetricGridTests {
    /// PROJ's own `laea`, as an oracle.
    final class ProjLAEA {
        let context: OpaquePointer?
        let pj: OpaquePointer?
        init(_ origin: Coordinate) {
            context = proj_context_create()
            pj = proj_create(context, "+proj=laea +lat_0=\(origin.latitude) +lon_0=\(origin.longitude) +ellps=WGS84 +units=m")
        }
        deinit {
            proj_destroy(pj)
            proj_context_destroy(context)
        }
        func forward(_ lat: Double, _ lon: Double) -> (Double, Double) {
            let c = proj_trans(pj, PJ_FWD, proj_coord(lon * .pi / 180, lat * .pi / 180, 0, 0))
            return (c.xy.x, c.xy.y)
        }
    }

    static let origins = [
        Coordinate(uncheckedLatitude: 60, longitude: 25), Coordinate(uncheckedLatitude: 0, longitude: 180),
        Coordinate(uncheckedLatitude: -45, longitude: -70), Coordinate(uncheckedLatitude: 89, longitude: 0),
        Coordinate(uncheckedLatitude: -33, longitude: 151),
    ]

    @Test(arguments: origins) func projectionAgreesWithPROJ(origin: Coordinate) throws {
        let ours = EqualAreaProjection(origin: origin)
        let proj = ProjLAEA(origin)
        #expect(proj.pj != nil)
        var rng = SplitMix64(seed: 4326)
        var worst = 0.0, worstRoundTrip = 0.0
        for _ in 0..<2_000 {
            // Points up to ~1,500 km from the origin, across ±180° where the origin is near it.
            let lat = max(-89.9, min(89.9, origin.latitude + (rng.unit() - 0.5) * 26))
            var lon = origin.longitude + (rng.unit() - 0.5) * 26
            if lon > 180 { lon -= 360 }
            if lon < -180 { lon += 360 }
            let (x, y) = ours.forward(latitude: lat, longitude: lon)
            let (px, py) = proj.forward(lat, lon)
            worst = max(worst, hypot(x - px, y - py))
            let back = ours.inverse(x: x, y: y)
            let dLon = (back.longitude - lon).remainder(dividingBy: 360)
            worstRoundTrip = max(worstRoundTrip, abs(back.latitude - lat), abs(dLon) * cos(lat * .pi / 180))
        }
        #expect(worst < 1e-6, "largest difference from PROJ: \(worst) m")
        #expect(worstRoundTrip < 1e-10, "largest round-trip error: \(worstRoundTrip)°")
    }

    /// Centred exactly on a pole (a regional grid's cap, docs/GRIDS.md): before, on the South
    /// Pole q/qp rounded short of −1 and points came out up to 7·10¹⁴ m from PROJ's.
    @Test(arguments: [Coordinate(uncheckedLatitude: 90, longitude: 0), Coordinate(uncheckedLatitude: -90, longitude: 0)])
    func polarAspectAgreesWithPROJ(origin: Coordinate) throws {
        try projectionAgreesWithPROJ(origin: origin)
    }

    /// Every position lies in the region whose box GridRegion says, and the regions' boxes are
    /// the 62 documented ones.
    @Test func regionsHoldTheirPoints() {
        var rng = SplitMix64(seed: 62)
        #expect(GridRegion.all.count == 62)
        #expect(Set(GridRegion.all.map(\.origin)).count == 62)
        for n in 0..<20_000 {
            let lat = n < 8 ? [90, -90, 75, -75, 74.999, -75.001, 0, 45][n] : asin(2 * rng.unit() - 1) * 180 / .pi
            let lon = n < 8 ? [180, -180, 165, -165, 0, 15, -15, 179.999][n] : 360 * rng.unit() - 180
            let r = GridRegion.containing(latitude: lat, longitude: lon)
            let u = r.unwrap(lon)
            #expect(r.south <= lat && (lat < r.north || (r.north == 90 && lat == 90)), "\(lat) not in \(r.origin)")
            #expect(r.isCap || (r.west <= u && u < r.east) || (u == r.east && abs(lon) == 180), "\(lon) not in \(r.origin)")
        }
    }

    @Test func equalAreaScaleIsTrueNearTheOrigin() {
        // 1 km east and north of the origin on the ground is 1 km in the plane (to 0.1 mm).
        let p = EqualAreaProjection(origin: Coordinate(uncheckedLatitude: 60, longitude: 25))
        let east = Geodesic.destination(from: Coordinate(uncheckedLatitude: 60, longitude: 25), azimuth: 90, distance: 1000)
        let north = Geodesic.destination(from: Coordinate(uncheckedLatitude: 60, longitude: 25), azimuth: 0, distance: 1000)
        let e = p.forward(latitude: east.latitude, longitude: east.longitude)
        let n = p.forward(latitude: north.latitude, longitude: north.longitude)
        #expect(abs(hypot(e.x, e.y) - 1000) < 1e-4)
        #expect(abs(n.y - 1000) < 1e-4 && abs(n.x) < 1e-6)
    }

    @Test(arguments: [MetricGrid.Shape.hex, .square]) func everyPointFallsInTheCellWithTheNearestCentre(shape: MetricGrid.Shape) {
        // A regular tiling's cell is the one whose centre is nearest (hexagons: exactly; squares:
        // in the max-norm). Brute force over the neighbourhood, including points on edges/corners.
        let grid = MetricGrid(shape: shape, size: 250, projection: EqualAreaProjection(origin: Coordinate(uncheckedLatitude: 60, longitude: 25)))
        var rng = SplitMix64(seed: 7)
        var samples: [(Double, Double)] = (0..<20_000).map { _ in ((rng.unit() - 0.5) * 20_000, (rng.unit() - 0.5) * 20_000) }
        samples += [(0, 0), (125, 0), (375, 216.50635094610965), (-250, 0), (250, 250), (-0.0, -250)]
        for (x, y) in samples {
            let c = grid.cell(x: x, y: y)
            let (cx, cy) = grid.center(c)
            let mine = shape == .hex ? hypot(x - cx, y - cy) : max(abs(x - cx), abs(y - cy))
            for di in -2...2 {
                for dj in -2...2 {
                    let other = MetricGrid.Cell(i: c.i + di, j: c.j + dj)
                    let (ox, oy) = grid.center(other)
                    let d = shape == .hex ? hypot(x - ox, y - oy) : max(abs(x - ox), abs(y - oy))
                    #expect(mine <= d + 1e-9, "\(x),\(y) in \(c) but nearer to \(other)")
                }
            }
        }
    }

    @Test(arguments: [MetricGrid.Shape.hex, .square]) func cellRingsAreClosedCounterClockwiseAndOfTheRightArea(shape: MetricGrid.Shape) {
        let projection = EqualAreaProjection(origin: Coordinate(uncheckedLatitude: 60, longitude: 25))
        let grid = MetricGrid(shape: shape, size: 250, projection: projection)
        for c in [MetricGrid.Cell(i: -9, j: 42), .init(i: 0, j: 0), .init(i: 17, j: -5)] {
            let rings = grid.polygons(c)
            #expect(rings.count == 1)
            let ring = rings[0]
            #expect(ring.first! == ring.last!)
            #expect(ring.count == (shape == .hex ? 7 : 5))
            // Shoelace in the projected plane: positive = counter-clockwise; area = s² or 3√3/2·s².
            let xy = ring.map { projection.forward(latitude: $0[1], longitude: $0[0]) }
            var twice = 0.0
            for k in 0..<(xy.count - 1) { twice += xy[k].x * xy[k + 1].y - xy[k + 1].x * xy[k].y }
            let expected = shape == .hex ? 3 * 3.0.squareRoot() / 2 * 250 * 250 : 250.0 * 250
            #expect(abs(twice / 2 - expected) < 1e-3, "area \(twice / 2) vs \(expected)")
        }
    }

    @Test func cellsAcrossTheAntimeridianAreCutInTwo() {
        // Origin on ±180°: the column of squares at x ∈ [-250, 0) lies west of it, [0, 250) east;
        // a hexagon centred on x = 0 straddles it.
        let grid = MetricGrid(shape: .hex, size: 250, projection: EqualAreaProjection(origin: Coordinate(uncheckedLatitude: 0, longitude: 180)))
        let rings = grid.polygons(MetricGrid.Cell(i: 0, j: 0))
        #expect(rings.count == 2)
        for ring in rings {
            #expect(ring.first! == ring.last!)
            #expect(ring.allSatisfy { (-180...180).contains($0[0]) })
        }
        let lons = rings.map { r in r.map { $0[0] } }
        #expect(lons.contains { $0.contains(180) && $0.allSatisfy { $0 > 179 } })
        #expect(lons.contains { $0.contains(-180) && $0.allSatisfy { $0 < -179 } })
        // A cell fully east of the line stays whole.
        #expect(grid.polygons(MetricGrid.Cell(i: 2, j: 0)).count == 1)
    }

    @Test func cellIDsNameTheGridAndAreStable() {
        let grid = MetricGrid(shape: .hex, size: 250, projection: EqualAreaProjection(origin: Coordinate(uncheckedLatitude: 60, longitude: 25)))
        #expect(grid.id(MetricGrid.Cell(i: -9, j: 42)) == "hex-250m@60,25:-9,42")
        #expect(grid.cell(latitude: 60.1650, longitude: 24.9390) == MetricGrid.Cell(i: -9, j: 42))
        #expect(MetricGrid.origin(around: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)) == Coordinate(uncheckedLatitude: 60, longitude: 25))
    }

    @Test func byteSinkWritesNumbersExactly() {
        let sink = ByteSink()
        sink.fixed(24.9377374, decimals: 6); sink.byte(32)
        sink.fixed(-0.0000004, decimals: 6); sink.byte(32)
        sink.fixed(-73.985, decimals: 2); sink.byte(32)
        sink.fixed(1e-7, decimals: 15); sink.byte(32)
        sink.money(1234, digits: 2); sink.byte(32)
        sink.money(5, digits: 3); sink.byte(32)
        sink.money(7, digits: 0); sink.byte(32)
        sink.integer(Int64.min); sink.byte(32)
        sink.jsonString("a\"b\\c\n\u{1}\u{2028}é")
        #expect(String(decoding: sink.bytes, as: UTF8.self)
            == #"24.937737 0 -73.99 0.0000001 12.34 0.005 7 -9223372036854775808 "a\"b\\c\n\u0001\u2028é""#)
    }

    @Test func rfc3339KeepsTheRecordedOffset() throws {
        for text in ["2026-03-05T23:30:00-05:00", "2026-03-05T08:15:00.250+02:00", "1969-12-31T23:59:59.999Z", "2024-02-29T00:00:00+14:00"] {
            let t = try Timestamp(parsing: text)
            #expect(Timestamp.rfc3339(epochMilliseconds: t.epochMilliseconds, utcOffsetMinutes: t.utcOffsetMinutes) == t.text)
        }
        for date in ["2026-03-05", "1969-12-31", "1900-02-28"] {
            #expect(Timestamp.rfc3339(epochMilliseconds: try Timestamp(parsing: date).epochMilliseconds, utcOffsetMinutes: nil) == date)
        }
    }
}
