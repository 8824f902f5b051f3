import Foundation
import Testing

@testable import GeoSpend

/// `ProximityTest` must answer every pair as `Geodesic.isWithin` does (clustering's results are
/// defined by it), and `isWithin` as the distance does (the border-point pass measures only
/// pairs `isWithin` accepts).
@Suite struct ProximityTestTests {
    /// 20,000 pairs per latitude band, three in four within 2 m of the 75 m limit, the rest up to
    /// 300 m apart; one start in seven next to ±180°. Narrow bands are decided mostly by the
    /// set-wide bounds, wide ones mostly by `isWithin` itself.
    @Test(arguments: [(60.0, 60.3), (-0.2, 0.2), (69.9, 70.1), (0.0, 80.0), (85.0, 89.99), (-89.99, 89.99)])
    func answersAsIsWithin(lowestLatitude: Double, highestLatitude: Double) {
        var rng = SplitMix64(seed: UInt64(lowestLatitude + 100) * 1000 + UInt64(highestLatitude + 100))
        var coordinates: [Coordinate] = []
        for k in 0..<20_000 {
            let start = Coordinate(
                uncheckedLatitude: lowestLatitude + rng.unit() * (highestLatitude - lowestLatitude),
                longitude: k % 7 == 0 ? 179.9995 : rng.unit() * 360 - 180)
            let distance = k % 4 == 0 ? rng.unit() * 300 : 75 + (rng.unit() - 0.5) * 4
            coordinates += [start, Geodesic.destination(from: start, azimuth: rng.unit() * 360, distance: distance)]
        }
        let proximity = ProximityTest(coordinates: coordinates, meters: 75)
        var differentFromIsWithin = 0, differentFromDistance = 0, within = 0
        for k in stride(from: 0, to: coordinates.count, by: 2) {
            let expected = Geodesic.isWithin(coordinates[k], coordinates[k + 1], meters: 75)
            if proximity.isWithin(k, k + 1) != expected || proximity.isWithin(k + 1, k) != expected { differentFromIsWithin += 1 }
            if expected != (Geodesic.distance(coordinates[k], coordinates[k + 1]) <= 75) { differentFromDistance += 1 }
            if expected { within += 1 }
        }
        #expect(differentFromIsWithin == 0)
        #expect(differentFromDistance == 0)
        #expect(within > 5_000 && within < 15_000)  // both answers well represented
    }
}
