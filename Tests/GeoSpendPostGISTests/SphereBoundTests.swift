import Foundation
import GeoSpend
@testable import GeoSpendPostGIS
import Testing

/// `SphereBound.stretch` against pairs of points: the great-circle distance on PostGIS's sphere
/// (its `<->` on geography) over `Geodesic`'s distance on WGS 84 never passes the bound, and
/// comes close to it, so the bound is neither wrong nor idle.
@Suite struct SphereBoundTests {
    /// PostGIS's sphere: WGS 84's mean radius, (2a + b) / 3.
    static let radius = (2 * 6_378_137.0 + 6_356_752.314_245) / 3

    static func sphereDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let (p1, p2) = (a.latitude * .pi / 180, b.latitude * .pi / 180)
        let (dp, dl) = (p2 - p1, (b.longitude - a.longitude) * .pi / 180)
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * radius * asin(min(1, sqrt(h)))
    }

    @Test func theSphereNeverStretchesPastTheBound() {
        var rng = SplitMix64(seed: 40)
        var closest = 0.0  // the largest share of its bound a pair reached
        for _ in 0..<4_000 {
            let center = Coordinate(uncheckedLatitude: rng.unit() * 178 - 89, longitude: rng.unit() * 360 - 180)
            let meters = pow(10, rng.unit() * 6.3)  // 1 m to 2,000 km
            let other = Geodesic.destination(from: center, azimuth: rng.unit() * 360, distance: meters)
            let spheroid = Geodesic.distance(center, other)
            let ratio = Self.sphereDistance(center, other) / spheroid
            let bound = SphereBound.stretch(latitude: center.latitude, within: spheroid)
            #expect(ratio <= bound * (1 + 1e-9) || spheroid < 1e-3, "\(center) \(meters) m: \(ratio) > \(bound)")
            #expect(Self.sphereDistance(center, other) < SphereBound.sphereReach(of: spheroid, around: center))
            closest = max(closest, ratio / bound)
        }
        #expect(closest > 0.999)
    }

    /// Near 60° the sphere shortens distances, so the nearest stores' candidates rarely need the
    /// second statement there; near the equator it lengthens them by up to 0.56 %.
    @Test func theBoundFollowsTheLatitude() {
        #expect(SphereBound.stretch(latitude: 60.17, within: 5_000) < 0.999)
        #expect(SphereBound.stretch(latitude: -60.17, within: 5_000) == SphereBound.stretch(latitude: 60.17, within: 5_000))
        #expect(abs(SphereBound.stretch(latitude: 0, within: 10) - 1.00562) < 0.00001)
        #expect(SphereBound.stretch(latitude: 1, within: 500_000) == SphereBound.stretch(latitude: 0, within: 0))
    }
}
