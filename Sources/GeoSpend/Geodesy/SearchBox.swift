import Foundation

/// A latitude/longitude rectangle in degrees, west ≤ east (never crossing ±180°).
public struct LatLonBox: Sendable, Hashable {
    public let south: Double, west: Double, north: Double, east: Double
    public init(south: Double, west: Double, north: Double, east: Double) {
        self.south = south
        self.west = west
        self.north = north
        self.east = east
    }
    public func contains(_ c: Coordinate) -> Bool {
        c.latitude >= south && c.latitude <= north && c.longitude >= west && c.longitude <= east
    }
}

/// The boxes that together contain every point within a geodesic radius of a centre: the
/// prefilter for the spatial index, refined afterwards with exact distances.
///
/// Why it never misses a point: on WGS84 every radius of curvature is at least
/// `Geodesic.minimumRadiusOfCurvature` (M₀ = a(1−e²) ≈ 6 335 439 m), so a geodesic of length r
/// between two points is at least as long as the great-circle distance between the same
/// latitude/longitude pairs on a sphere of radius M₀. Every point within r on the ellipsoid is
/// therefore within the angle σ = r / M₀ on that sphere, and the sphere's circle of angular
/// radius σ has an exact box:
/// - latitudes φ₀ ± σ;
/// - if that band reaches a pole, the circle contains the pole: all longitudes;
/// - otherwise longitudes λ₀ ± asin(sin σ / cos φ₀), split into two boxes at ±180°.
/// The box is then widened by `margin` degrees because SQLite's R*Tree keeps 32-bit float
/// bounds (≈ 1.7 m at ±180°). The result is at most ~0.7 % wider than needed.
public enum SearchBox {
    /// Degrees added on every side; a float32 ulp at 180° is 1.5e-5°.
    public static let margin = 5e-5

    /// - Parameters:
    ///   - center: the circle's centre.
    ///   - radius: the geodesic radius.
    /// - Returns: one box, or two when the circle crosses ±180°.
    /// - Complexity: O(1).
    public static func boxes(around center: Coordinate, radius: Distance) -> [LatLonBox] {
        let sigma = radius.meters / Geodesic.minimumRadiusOfCurvature  // radians on the sphere
        let toDeg = 180.0 / Double.pi
        if sigma >= Double.pi {  // the whole Earth
            return [LatLonBox(south: -90, west: -180, north: 90, east: 180)]
        }
        let phi = center.latitude / toDeg
        let south = max(-90, (phi - sigma) * toDeg - margin)
        let north = min(90, (phi + sigma) * toDeg + margin)
        if phi + sigma >= Double.pi / 2 || phi - sigma <= -Double.pi / 2 {
            return [LatLonBox(south: south, west: -180, north: north, east: 180)]
        }
        let ratio = sin(sigma) / cos(phi)
        if ratio >= 1 {
            return [LatLonBox(south: south, west: -180, north: north, east: 180)]
        }
        let halfWidth = asin(ratio) * toDeg + margin
        if halfWidth >= 180 {
            return [LatLonBox(south: south, west: -180, north: north, east: 180)]
        }
        let west = center.longitude - halfWidth
        let east = center.longitude + halfWidth
        if west < -180 {
            return [
                LatLonBox(south: south, west: -180, north: north, east: east),
                LatLonBox(south: south, west: west + 360, north: north, east: 180),
            ]
        }
        if east > 180 {
            return [
                LatLonBox(south: south, west: west, north: north, east: 180),
                LatLonBox(south: south, west: -180, north: north, east: east - 360),
            ]
        }
        return [LatLonBox(south: south, west: west, north: north, east: east)]
    }
}
