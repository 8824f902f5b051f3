import Foundation
import Testing

@testable import GeoSpend

/// The arithmetic behind export privacy, against outside references: SipHash-2-4's published
/// test vectors, Lambert W₋₁ against bisection and a published value, the planar Laplace radius
/// against its CDF, mask regions over many random homes, and the suppression rule.
struct PrivacyMathTests {
    /// Aumasson & Bernstein's reference vectors (vectors.h of the SipHash repository): key
    /// 00 01 … 0f, message 00 01 … (n−1), output read little-endian.
    @Test(arguments: [(0, 0x726f_db47_dd0e_0e31 as UInt64), (8, 0x93f5_f579_9a93_2462), (15, 0xa129_ca61_49be_45e5)])
    func sipHashMatchesTheReferenceVectors(length: Int, expected: UInt64) throws {
        let key = try MaskKey(hex: "000102030405060708090a0b0c0d0e0f")
        #expect(key.hash((0..<length).map { UInt8($0) }) == expected)
        #expect(key.hex == "000102030405060708090a0b0c0d0e0f")
    }

    @Test(arguments: ["", "0011", "zz0102030405060708090a0b0c0d0e0f", "+00102030405060708090a0b0c0d0e0f", "000102030405060708090a0b0c0d0e0f00"])
    func badMaskKeysAreRejected(hex: String) {
        #expect(throws: ValueError.self) { try MaskKey(hex: hex) }
    }

    /// W₋₁ by bisection on w·e^w = x over [−750, −1] (w·e^w falls from 0⁻ to −1/e as w rises there): slow,
    /// independent, exact to the last bits.
    static func bisectWm1(_ x: Double) -> Double {
        var (lo, hi) = (-750.0, -1.0)
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if mid * exp(mid) > x { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    @Test func lambertWm1AgreesWithBisectionAndAPublishedValue() {
        // W₋₁(−0.1) = −3.577152063957297… (DLMF §4.13; Wolfram ProductLog[-1, -0.1]).
        #expect(abs(PlanarLaplace.lambertWm1(-0.1) - -3.577152063957297) < 1e-12)
        #expect(PlanarLaplace.lambertWm1(-1 / M_E) == -1)
        var rng = SplitMix64(seed: 3)
        var xs: [Double] = [-1 / M_E + 1e-12, -0.3678, -0.3, -0.25, -0.2499, -1e-3, -1e-9, -1e-300]
        for _ in 0..<500 { xs.append(-rng.unit() / M_E) }
        for x in xs where x < 0 {
            let w = PlanarLaplace.lambertWm1(x), reference = Self.bisectWm1(x)
            #expect(w <= -1 && abs(w - reference) <= 1e-9 * abs(reference) + 1e-6 * (x < -0.3678 ? 1 : 0), "x \(x): \(w) vs \(reference)")
        }
    }

    /// The radius of planar Laplace noise has CDF C(r) = 1 − (1 + εr)e^(−εr) and mean 2/ε
    /// (Andrés et al. 2013). 100,000 draws: the mean within 1.5 % (≈ 3.4 standard errors) and the
    /// Kolmogorov–Smirnov distance below 1.63/√n (1 % level). An exponential radius (mean 1/ε) or
    /// a Gaussian would fail both.
    @Test(arguments: [0.01, 0.001, 0.5])
    func laplaceRadiusFollowsItsDistribution(epsilon: Double) {
        var rng = SplitMix64(seed: 42)
        let n = 100_000
        var radii = (0..<n).map { _ in PlanarLaplace.radius(epsilon: epsilon, p: rng.unit()) }
        let mean = radii.reduce(0, +) / Double(n)
        #expect(abs(mean * epsilon / 2 - 1) < 0.015, "mean \(mean) vs \(2 / epsilon)")
        radii.sort()
        var d = 0.0
        for (k, r) in radii.enumerated() {
            let c = 1 - (1 + epsilon * r) * exp(-epsilon * r)
            d = max(d, abs(c - Double(k) / Double(n)), abs(c - Double(k + 1) / Double(n)))
        }
        #expect(d < 1.63 / Double(n).squareRoot(), "KS distance \(d)")
    }

    /// Displacements are geodesic metres at any latitude, in every direction alike.
    @Test(arguments: [0.0, 60.0, -78.0])
    func laplaceDisplacementIsInMetres(latitude: Double) {
        let start = Coordinate(uncheckedLatitude: latitude, longitude: 179.99)
        let epsilon = 0.02
        var rng = SplitMix64(seed: 9)
        var (sum, east, north) = (0.0, 0.0, 0.0)
        let n = 20_000
        for _ in 0..<n {
            var copy = rng
            let r = PlanarLaplace.radius(epsilon: epsilon, p: copy.unit())
            let moved = PlanarLaplace.displace(start, epsilon: epsilon, using: &rng)
            let d = Geodesic.distance(start, moved)
            #expect(abs(d - r) < 1e-6, "\(d) m vs radius \(r) m")
            sum += d
            var dLon = moved.longitude - start.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            east += dLon * 111_320 * cos(latitude * .pi / 180)
            north += (moved.latitude - start.latitude) * 110_574
        }
        #expect(abs(sum / Double(n) * epsilon / 2 - 1) < 0.03)
        // No preferred direction: the mean east and north offsets stay near zero (each has
        // σ ≈ √(3/ε²)/√n ≈ 0.6 m here; a bias of a tenth of the mean radius would be 10 m).
        #expect(abs(east) / Double(n) < 4 && abs(north) / Double(n) < 4, "east \(east / Double(n)) north \(north / Double(n))")
    }

    /// Over 5,000 random homes and radii: the dropped region covers the whole disc of radius R
    /// around the home, its centre lies R/2 to R from the home, and the same key gives the same
    /// region. Across keys, the centre's direction is uniform and its distance area-uniform.
    @Test func maskRegionsCoverTheHomeWithoutBeingCentredOnIt() throws {
        var rng = SplitMix64(seed: 5)
        let key = MaskKey(k0: 0x1234, k1: 0x5678)
        var nearHalf = 0
        for _ in 0..<5_000 {
            let home = Coordinate(uncheckedLatitude: -80 + 160 * rng.unit(), longitude: -180 + 360 * rng.unit())
            let r = 50 + 4_950 * rng.unit()
            let mask = LocationMask(center: home, radiusMeters: r)
            let region = mask.region(key: key)
            let offset = Geodesic.distance(home, region.center)
            #expect(offset >= r / 2 - 1e-6 && offset <= r + 1e-6 && region.radiusMeters == 2 * r)
            if offset < r * (0.25 + 0.75 * 0.5).squareRoot() { nearHalf += 1 }
            for azimuth in stride(from: 0.0, to: 360, by: 22.5) {
                let edge = Geodesic.destination(from: home, azimuth: azimuth, distance: r)
                #expect(region.contains(latitude: edge.latitude, longitude: edge.longitude))
            }
            #expect(mask.region(key: key) == region)
        }
        // Half the centres lie within the ring's area-median radius: 2,500 ± 3.5σ (σ ≈ 35).
        #expect(abs(nearHalf - 2_500) < 125, "\(nearHalf)")

        let home = Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)
        var (sx, sy) = (0.0, 0.0)
        for n in 0..<2_000 {
            let c = LocationMask(center: home, radiusMeters: 400).region(key: MaskKey(k0: UInt64(n), k1: 99)).center
            sx += (c.longitude - home.longitude) * 111_320 * cos(home.latitude * .pi / 180)
            sy += (c.latitude - home.latitude) * 111_320
        }
        // Mean offset vector ≈ 0 (each component's σ ≈ 0.56·400/√2000 ≈ 5 m).
        #expect(abs(sx / 2_000) < 25 && abs(sy / 2_000) < 25, "\(sx / 2_000), \(sy / 2_000)")
    }

    /// Whatever is hidden, taken together, meets the thresholds (enough expenses, enough
    /// distinct users) — or nothing is published at all; the complementary picks are the smallest
    /// passing items, in order; nothing failing is ever kept. Items are random (count, users)
    /// pairs over 1–6 users, so two hidden items of the same user are common. (The rule before,
    /// "never exactly one hidden", fails here: two small cells of one user were left at that.)
    @Test func hiddenItemsTogetherMeetTheThresholds() {
        var rng = SplitMix64(seed: 8)
        var sawComplementary = false, sawUnionPick = false
        for _ in 0..<4_000 {
            let n = 1 + Int(rng.next() % 12)
            let counts = (0..<n).map { _ in 1 + Int(rng.next() % 8) }
            let users = (0..<n).map { k in Set((0..<min(counts[k], 1 + Int(rng.next() % 3))).map { _ in Int(rng.next() % 6) }) }
            let minCount = 1 + Int(rng.next() % 5), minUsers = 1 + Int(rng.next() % 3)
            func pass(_ items: [Int]) -> Bool {
                items.reduce(0) { $0 + counts[$1] } >= minCount && items.reduce(into: Set<Int>()) { $0.formUnion(users[$1]) }.count >= minUsers
            }
            let s = Suppression(
                count: n, passes: { pass([$0]) }, smaller: { (counts[$0], $0) < (counts[$1], $1) }, hiddenPass: pass)
            let hidden = (0..<n).filter { !s.kept.contains($0) }
            #expect(hidden.isEmpty || s.kept.isEmpty || pass(hidden))
            #expect(s.kept.allSatisfy { pass([$0]) })
            #expect(s.primary == (0..<n).filter { !pass([$0]) }.count)
            let passing = (0..<n).filter { pass([$0]) }.sorted { (counts[$0], $0) < (counts[$1], $1) }
            #expect(Array(passing.prefix(s.complementary)) == passing.filter { !s.kept.contains($0) })
            sawComplementary = sawComplementary || s.complementary > 0
            // The case "exactly one hidden" missed: several hidden, together still too few users.
            sawUnionPick = sawUnionPick || (s.complementary > 0 && s.primary > 1)
        }
        #expect(sawComplementary && sawUnionPick)
    }
}
