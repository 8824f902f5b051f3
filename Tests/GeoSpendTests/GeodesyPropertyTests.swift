import Foundation
import PropertyBased
import Testing

@testable import GeoSpend

/// Geodesic distance is a metric, and the bounding-box prefilter never loses a point within the
/// radius, with boundary coordinates (±90, ±180, 0) and radii (1 mm … beyond pole to pole)
/// generated on purpose.
@Suite struct GeodesyPropertyTests {
    /// The longest geodesic on WGS84 (pole to pole along a meridian), in metres.
    static let halfMeridian = 20_003_931.458_625_5

    @Test func distanceIsSymmetricNonNegativeAndZeroOnlyAtThePoint() async {
        await propertyCheck(count: 3000, input: Boundary.coordinate, Boundary.coordinate) { a, b in
            let ab = Geodesic.distance(a, b), ba = Geodesic.distance(b, a)
            #expect(ab >= 0 && ab <= Self.halfMeridian + 1e-6)
            #expect(abs(ab - ba) <= 1e-7, "\(a) \(b): \(ab) vs \(ba)")
            #expect(Geodesic.distance(a, a) == 0)
            // ±180° is one meridian; at a pole every longitude is the same point.
            let twin = Coordinate(uncheckedLatitude: a.latitude, longitude: a.longitude == 180 ? -180 : a.longitude == -180 ? 180 : a.longitude)
            #expect(Geodesic.distance(a, twin) <= 1e-9)
            if abs(a.latitude) == 90 {
                #expect(Geodesic.distance(a, Coordinate(uncheckedLatitude: a.latitude, longitude: b.longitude)) <= 1e-9)
            }
        }
    }

    /// d(a, c) ≤ d(a, b) + d(b, c); c is often near the antipode of a, where geodesics are
    /// least stable, and b often near the path.
    @Test func triangleInequalityHolds() async {
        let nearAntipode = Gen.double(in: -1e-3...1e-3)
        await propertyCheck(count: 3000, input: Boundary.coordinate, Boundary.coordinate, nearAntipode, Gen.bool) { a, b, wobble, antipodal in
            let c = antipodal
                ? Coordinate(
                    uncheckedLatitude: max(-90, min(90, -a.latitude + wobble)),
                    longitude: a.longitude > 0 ? a.longitude - 180 + wobble : a.longitude + 180 - wobble)
                : b
            let mid = antipodal ? b : Geodesic.destination(from: a, azimuth: wobble * 1e5, distance: Geodesic.distance(a, c) / 2)
            let direct = Geodesic.distance(a, c)
            let viaMid = Geodesic.distance(a, mid) + Geodesic.distance(mid, c)
            #expect(direct <= viaMid + 1e-6, "\(a) → \(mid) → \(c): \(direct) > \(viaMid)")
        }
    }

    /// Every point within r of the centre lies in one of `SearchBox.boxes(around:radius:)`.
    /// Points are reached along geodesics of length ≤ r in any direction (so they are within r),
    /// mostly at the circle's edge.
    @Test func noPointWithinTheRadiusIsOutsideTheBoxes() async {
        let fraction = Boundary.double(0...1, boundaries: [1, 1 - 1e-12, 0.999_999, 0])
        await propertyCheck(count: 5000, input: Boundary.coordinate, Boundary.radius, Gen.double(in: 0..<360), fraction) {
            center, radius, azimuth, f in
            let boxes = SearchBox.boxes(around: center, radius: .meters(radius))
            #expect(boxes.count == 1 || boxes.count == 2)
            for box in boxes {
                #expect(box.south <= box.north && box.west <= box.east && box.south >= -90 && box.north <= 90)
                #expect(box.west >= -180 && box.east <= 180)
            }
            let point = Geodesic.destination(from: center, azimuth: azimuth, distance: radius * f)
            #expect(boxes.contains { $0.contains(point) }, "r=\(radius) from \(center): \(point) outside \(boxes)")
        }
    }

    /// `LatLonBox.minimumDistance` never exceeds the distance to any point of the box (else
    /// the nearest-store search would prune a node holding the nearest store).
    @Test func boxDistanceIsALowerBound() async {
        let corner = zip(Boundary.latitude, Boundary.latitude, Boundary.longitude, Boundary.longitude)
            .map { s, n, w, e in LatLonBox(south: min(s, n), west: min(w, e), north: max(s, n), east: max(w, e)) }
        let unit = Boundary.double(0...1, boundaries: [0, 1, 0.5])
        await propertyCheck(count: 5000, input: corner, unit, unit, Boundary.coordinate) { box, u, v, from in
            // Clamped: south + (north − south)·1 can round to just above 90, which is no latitude.
            let inside = Coordinate(
                uncheckedLatitude: min(box.north, box.south + (box.north - box.south) * u),
                longitude: min(box.east, box.west + (box.east - box.west) * v))
            let bound = box.minimumDistance(from: from)
            #expect(bound >= 0 && bound <= Geodesic.distance(from, inside) + 1e-6, "\(box) from \(from): \(bound) > d to \(inside)")
            if box.contains(from) { #expect(bound == 0) }
        }
    }
}
