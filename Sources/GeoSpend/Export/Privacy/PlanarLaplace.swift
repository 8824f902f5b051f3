import Foundation

/// Planar Laplace noise for geo-indistinguishability (Andrés, Bordenabe, Chatzikokolakis &
/// Palamidessi 2013, "Geo-Indistinguishability", CCS): density ∝ e^(−ε·r) in the plane, i.e. a
/// uniform angle and a radius with CDF C(r) = 1 − (1 + εr)·e^(−εr), drawn by inverting C with
/// the −1 branch of the Lambert W function. The mean radius is 2/ε.
enum PlanarLaplace {
    /// The radius (metres) with C(r) = p, p in [0, 1).
    static func radius(epsilon: Double, p: Double) -> Double {
        -(lambertWm1((p - 1) / M_E) + 1) / epsilon
    }

    /// `c` moved by planar Laplace noise: the distance is a geodesic in metres on WGS84
    /// (Karney's direct problem), so metres are metres at every latitude.
    static func displace(_ c: Coordinate, epsilon: Double, using rng: inout SplitMix64) -> Coordinate {
        let r = radius(epsilon: epsilon, p: rng.unit())
        return Geodesic.destination(from: c, azimuth: 360 * rng.unit(), distance: r)
    }

    /// W₋₁(x) for x in [−1/e, 0): the solution w ≤ −1 of w·e^w = x. Starts from the branch-point
    /// series near −1/e or the asymptotic series near 0 (Corless et al. 1996), then Halley's
    /// iteration to full precision.
    static func lambertWm1(_ x: Double) -> Double {
        precondition(x < 0 && x >= -1 / M_E - 1e-15, "W₋₁ is defined on [−1/e, 0)")
        let q = 2 * (1 + M_E * x)
        if q <= 1e-30 { return -1 }
        var w: Double
        if x < -0.25 {
            let p = -q.squareRoot()
            w = -1 + p - p * p / 3 + 11.0 / 72 * p * p * p
        } else {
            let l1 = log(-x), l2 = log(-l1)
            w = l1 - l2 + l2 / l1
        }
        for _ in 0..<32 {
            let e = exp(w)
            let f = w * e - x
            let step = f / (e * (w + 1) - (w + 2) * f / (2 * w + 2))
            w -= step
            if abs(step) <= 1e-15 * abs(w) { break }
        }
        return w
    }
}
