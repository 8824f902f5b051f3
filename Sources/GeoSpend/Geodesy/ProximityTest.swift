import Foundation

/// `Geodesic.isWithin` for many pairs of one set of points, mostly without its two cosines.
///
/// `isWithin` bounds a pair's geodesic between two constant metrics whose x scales take the
/// cosine of the pair's largest and smallest |latitude| (±0.01°). Over a whole set those cosines
/// lie between two numbers taken once; a pair whose bounds computed with these numbers already
/// decide (lower bound beyond the limit, or upper bound within it) gets the answer `isWithin`'s
/// own bounds would give, because each step of the bounds only grows or shrinks with the cosine.
/// Any other pair is left to `isWithin` itself, so every answer is `isWithin`'s.
struct ProximityTest {
    private let coordinates: [Coordinate]
    let meters: Double
    /// At most the cosine `isWithin` takes for any pair's lower bound (largest |latitude|).
    private let smallestCosine: Double
    /// At least the cosine `isWithin` takes for any pair's upper bound (smallest |latitude|).
    private let largestCosine: Double

    init(coordinates: [Coordinate], meters: Double) {
        self.coordinates = coordinates
        self.meters = meters
        var lowest = 90.0, highest = 0.0
        for c in coordinates {
            lowest = min(lowest, abs(c.latitude))
            highest = max(highest, abs(c.latitude))
        }
        // isWithin's own angles; a relative 1e-9 covers any rounding of cos (under an ulp).
        smallestCosine = cos(min(90, highest + 0.01) * .pi / 180) * (1 - 1e-9)
        largestCosine = cos(max(0, lowest - 0.01) * .pi / 180) * (1 + 1e-9)
    }

    /// Whether points `i` and `j` are at most `meters` apart (geodesic): `Geodesic.isWithin`.
    @inline(__always)
    func isWithin(_ i: Int, _ j: Int) -> Bool {
        let a = coordinates[i], b = coordinates[j]
        let dLat = abs(a.latitude - b.latitude)
        var dLon = abs(a.longitude - b.longitude)
        if dLon > 180 { dLon = 360 - dLon }
        if meters <= 10_000 && dLat <= 0.1 && dLon <= 0.2 {  // where isWithin uses its bounds
            let lowY = dLat * 110_570, lowX = dLon * 111_319 * smallestCosine
            if lowX * lowX + lowY * lowY > meters * meters { return false }
            let highY = dLat * 111_700, highX = dLon * 111_700 * largestCosine
            if highX * highX + highY * highY <= meters * meters { return true }
        }
        return Geodesic.isWithin(a, b, meters: meters)
    }
}
