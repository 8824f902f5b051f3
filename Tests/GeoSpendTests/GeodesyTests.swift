import Foundation
import Testing

@testable import GeoSpend

/// Distances against GeographicLib's Python port (fixture recipe: scripts/fixtures/geodesic_fixtures.py).
@Suite struct GeodesyTests {
    /// 25,016 pairs: 20,000 random (uniform on the sphere, and short lines) and edge cases
    /// (near-antipodal, on the equator nearly opposite, poles, ±180°, identical, hand-picked).
    /// Prints the error per kind; the figures in the docs come from this output.
    @Test func distancesAgreeWithGeographicLib() throws {
        let text = try String(contentsOfFile: Fixtures.path("Tests/Fixtures/geodesic-distances.csv"), encoding: .utf8)
        var errors: [String: (count: Int, maxAbs: Double, sumAbs: Double, maxRel: Double, sumRel: Double)] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("kind,") {
            let f = line.split(separator: ",")
            let v = f.dropFirst().map { Double($0)! }
            let d = Geodesic.distance(latitude1: v[0], longitude1: v[1], latitude2: v[2], longitude2: v[3])
            let error = abs(d - v[4]), relative = v[4] > 0 ? error / v[4] : error
            #expect(error <= 1e-6, "\(line): \(d)")
            var e = errors[String(f[0]), default: (0, 0, 0, 0, 0)]
            e = (e.count + 1, max(e.maxAbs, error), e.sumAbs + error, max(e.maxRel, relative), e.sumRel + relative)
            errors[String(f[0])] = e
        }
        #expect(errors.values.reduce(0) { $0 + $1.count } == 25_016)
        #expect(errors["random"]!.count + errors["short"]!.count == 20_000)
        var all = (count: 0, maxAbs: 0.0, sumAbs: 0.0, maxRel: 0.0, sumRel: 0.0)
        for (kind, e) in errors.sorted(by: { $0.key < $1.key }) {
            print("geodesic vs GeographicLib \(kind): n=\(e.count) max \(e.maxAbs) m, mean \(e.sumAbs / Double(e.count)) m, max relative \(e.maxRel), mean relative \(e.sumRel / Double(e.count))")
            all = (all.count + e.count, max(all.maxAbs, e.maxAbs), all.sumAbs + e.sumAbs, max(all.maxRel, e.maxRel), all.sumRel + e.sumRel)
        }
        print("geodesic vs GeographicLib all: n=\(all.count) max \(all.maxAbs) m, mean \(all.sumAbs / Double(all.count)) m, max relative \(all.maxRel), mean relative \(all.sumRel / Double(all.count))")
        // Karney's algorithm on both sides (nanometres), and below 200 m the mid-latitude metric
        // (Geodesic.shortDistance: under a micrometre).
        #expect(all.maxAbs < 1e-6)
    }

    @Test func distanceIsSymmetricAndZeroForIdenticalPoints() {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<500 {
            let a = Coordinate(uncheckedLatitude: rng.unit() * 180 - 90, longitude: rng.unit() * 360 - 180)
            let b = Coordinate(uncheckedLatitude: rng.unit() * 180 - 90, longitude: rng.unit() * 360 - 180)
            #expect(abs(Geodesic.distance(a, b) - Geodesic.distance(b, a)) < 1e-6)
            #expect(Geodesic.distance(a, a) == 0)
        }
    }

    /// The prefilter must never drop a point within the radius: sample points at distance
    /// r·(1 − 1e-9) in every direction (Karney's direct problem) and check each lies in a box.
    @Test(arguments: [
        (0.0, 0.0), (60.171, 24.9414), (10.0, 179.999), (-41.3, -179.9995), (89.999, 40.0), (-89.9995, -120.0),
        (85.0, -170.0), (-70.0, 179.0), (89.0, 0.0),
    ])
    func searchBoxesContainTheWholeCircle(lat: Double, lon: Double) {
        let center = Coordinate(uncheckedLatitude: lat, longitude: lon)
        for radius in [1.0, 50, 500, 5_000, 150_000, 2_000_000, 12_000_000] {
            let boxes = SearchBox.boxes(around: center, radius: .meters(radius))
            #expect(boxes.count <= 2)
            for step in 0..<720 {
                let p = Geodesic.destination(from: center, azimuth: Double(step) / 2, distance: radius * (1 - 1e-9))
                #expect(boxes.contains { $0.contains(p) }, "r=\(radius) az=\(Double(step) / 2) missed \(p)")
            }
        }
    }

    /// The bound-based test must agree with the exact distance, also within millimetres of the limit.
    @Test func isWithinAgreesWithExactDistance() {
        var rng = SplitMix64(seed: 12)
        for _ in 0..<20_000 {
            let a = Coordinate(uncheckedLatitude: rng.unit() * 179.8 - 89.9, longitude: rng.unit() * 360 - 180)
            let limit = [1.0, 50, 75, 500, 5_000][Int(rng.next() % 5)]
            // Aim at the boundary: a point at limit·(1 ± up to 2 %), or within a millimetre of it.
            let factor = rng.unit() < 0.5 ? 1 + (rng.unit() - 0.5) * 0.04 : 1 + (rng.unit() - 0.5) * 2e-6 / limit
            let b = Geodesic.destination(from: a, azimuth: rng.unit() * 360, distance: limit * factor)
            #expect(Geodesic.isWithin(a, b, meters: limit) == (Geodesic.distance(a, b) <= limit), "\(a) \(b) \(limit)")
        }
    }

    @Test func boxesSplitAtTheAntimeridianAndOpenAtThePoles() {
        let east = SearchBox.boxes(around: Coordinate(uncheckedLatitude: 10, longitude: 179.999), radius: .meters(500))
        #expect(east.count == 2)
        #expect(east.contains { $0.east == 180 } && east.contains { $0.west == -180 })
        let pole = SearchBox.boxes(around: Coordinate(uncheckedLatitude: 89.999, longitude: 40), radius: .meters(300))
        #expect(pole.count == 1 && pole[0].west == -180 && pole[0].east == 180 && pole[0].north == 90)
        let small = SearchBox.boxes(around: Coordinate(uncheckedLatitude: 60.171, longitude: 24.9414), radius: .meters(500))
        #expect(small.count == 1)
        // Not wildly wider than the circle: half-width in degrees ≈ 500 m / (111 km · cos φ) ≈ 0.009°.
        #expect(small[0].east - small[0].west < 0.0185)
    }

    /// The nearest-store search prunes R*Tree nodes by `LatLonBox.minimumDistance`: it must never
    /// exceed the geodesic to any point of the box (else a store is missed), and should be close
    /// to the true minimum (else the search reads needless nodes). Oracle: exact geodesics to a
    /// dense grid of points over each box, edges included.
    @Test func boxDistanceIsALowerBoundAndTight() throws {
        var rng = SplitMix64(seed: 17)
        var boxes: [LatLonBox] = [
            LatLonBox(south: -90, west: -180, north: 90, east: 180),  // the whole Earth
            LatLonBox(south: 89, west: -180, north: 90, east: 180),  // a polar cap
            LatLonBox(south: -10, west: 179, north: 10, east: 180),  // touching ±180°
            LatLonBox(south: -10, west: -180, north: 10, east: -179.5),
            LatLonBox(south: -80, west: 60, north: -10, east: 61),  // a tall strip, for points across the globe
            LatLonBox(south: 60.1, west: 24.9, north: 60.1, east: 24.9),  // a point
        ]
        for _ in 0..<300 {
            let size = [0.001, 0.05, 1, 20, 120][Int(rng.next() % 5)]
            let south = -90 + rng.unit() * (180 - min(size, 180))
            let west = -180 + rng.unit() * (360 - size)
            boxes.append(LatLonBox(south: south, west: west, north: min(90, south + size * rng.unit()), east: west + size * rng.unit()))
        }
        for box in boxes {
            let grid = 24
            var samples: [Coordinate] = []
            for i in 0...grid {
                for j in 0...grid {
                    samples.append(Coordinate(
                        uncheckedLatitude: box.south + (box.north - box.south) * Double(i) / Double(grid),
                        longitude: box.west + (box.east - box.west) * Double(j) / Double(grid)))
                }
            }
            for _ in 0..<8 {
                // Points near the box (within a few box sizes) and anywhere, poles and ±180° included.
                let anywhere = Coordinate(uncheckedLatitude: (rng.unit() * 2 - 1) * 90, longitude: rng.unit() * 360 - 180)
                let near = Coordinate(
                    uncheckedLatitude: min(90, max(-90, box.south + (rng.unit() * 3 - 1) * (box.north - box.south + 0.01))),
                    longitude: box.west + (rng.unit() * 3 - 1) * (box.east - box.west + 0.01))
                for point in [anywhere, near, Coordinate(uncheckedLatitude: 90, longitude: 0), Coordinate(uncheckedLatitude: -90, longitude: 0)] {
                    let wrapped = Coordinate(uncheckedLatitude: point.latitude, longitude: point.longitude > 180 ? point.longitude - 360 : point.longitude < -180 ? point.longitude + 360 : point.longitude)
                    let bound = box.minimumDistance(from: wrapped)
                    let nearest = samples.map { Geodesic.distance(wrapped, $0) }.min()!
                    #expect(bound <= nearest + 1e-6, "box \(box) point \(wrapped): bound \(bound) > \(nearest)")
                    // The sampled minimum overestimates the true one by up to a grid step; small boxes only.
                    if box.north - box.south <= 0.05 && box.east - box.west <= 0.05 && nearest > 10_000 {
                        #expect(bound >= nearest * 0.985, "box \(box) point \(wrapped): bound \(bound) far below \(nearest)")
                    }
                }
            }
        }
    }
}
