import Foundation
import Testing

@testable import GeoSpend

/// `Geodesic.distance` measures lines up to 200 m with the mid-latitude metric instead of
/// `geod_inverse`; it must stay within a micrometre of Karney's algorithm everywhere it is used.
@Suite struct ShortGeodesicTests {
    /// Seeded pairs at every latitude up to ±80° (and across ±180°), up to 260 m apart, made with
    /// Karney's direct problem; the shortcut must agree with `geod_inverse` to 1 µm, and pairs
    /// outside its domain must go to `geod_inverse`.
    @Test func shortcutAgreesWithKarneyToAMicrometre() throws {
        var rng = SplitMix64(seed: 42)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + Double(rng.next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
        }
        var worst = 0.0, used = 0
        for k in 0..<50_000 {
            let lat = uniform(-81...81)
            let lon = k % 10 == 0 ? 179.9995 : uniform(-180...180)
            let start = Coordinate(uncheckedLatitude: lat, longitude: lon)
            let end = Geodesic.destination(from: start, azimuth: uniform(0...360), distance: uniform(0...260))
            let exact = Geodesic.karneyDistance(
                latitude1: start.latitude, longitude1: start.longitude, latitude2: end.latitude, longitude2: end.longitude)
            guard let short = Geodesic.shortDistance(
                latitude1: start.latitude, longitude1: start.longitude, latitude2: end.latitude, longitude2: end.longitude)
            else {
                #expect(exact > 199 || abs(start.latitude) > 80 || abs(end.latitude) > 80, "shortcut refused \(start) → \(end)")
                continue
            }
            used += 1
            #expect(short <= 200)
            worst = max(worst, abs(short - exact))
        }
        #expect(worst < 1e-6, "worst difference \(worst) m")
        #expect(used > 35_000)
        print("short-line geodesic: \(used) pairs, worst difference \(worst * 1e9) nm")
    }
}
