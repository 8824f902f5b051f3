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

extension LatLonBox {
    /// A lower bound on the geodesic distance in metres from `point` to any point of the box —
    /// the best-first nearest-store search ranks R*Tree nodes by it. Never larger than the true
    /// distance (same argument as `SearchBox`: the great-circle distance on the sphere of radius
    /// M₀ never exceeds the geodesic), and within ~1 % of it (M₀ is 1 % below WGS84's largest
    /// radius of curvature, at the poles).
    ///
    /// On that sphere the nearest point of the box is found exactly: inside the longitude range
    /// it lies on the point's own meridian; outside it, on the nearer edge meridian (along a
    /// parallel, distance grows with the longitude difference, so no parallel edge or inner
    /// point is nearer), at the foot of the perpendicular clamped to the box's latitudes
    /// (distance along a great circle grows monotonically away from the foot).
    /// - Complexity: O(1), a few trigonometric calls.
    public func minimumDistance(from point: Coordinate) -> Double {
        let toRad = Double.pi / 180
        // Longitude difference to the nearer edge, around the circle (the box may touch ±180°).
        var dLon = 0.0
        if point.longitude < west || point.longitude > east {
            let toWest = (west - point.longitude).truncatingRemainder(dividingBy: 360)
            let fromEast = (point.longitude - east).truncatingRemainder(dividingBy: 360)
            dLon = min(toWest < 0 ? toWest + 360 : toWest, fromEast < 0 ? fromEast + 360 : fromEast)
        }
        let phi = point.latitude * toRad
        if dLon == 0 {
            let gap = max(0, south - point.latitude, point.latitude - north) * toRad
            return gap * Geodesic.minimumRadiusOfCurvature
        }
        let lambda = min(dLon, 180) * toRad
        func angle(toLatitude edge: Double) -> Double {  // haversine: well conditioned for small angles
            let h = sin((edge - phi) / 2), w = sin(lambda / 2)
            return 2 * asin(min(1, h * h + cos(phi) * cos(edge) * w * w).squareRoot())
        }
        let low = south * toRad, high = north * toRad
        let sigma: Double
        if lambda < .pi / 2 {
            // The foot of the perpendicular on the edge meridian lies on it; clamp it to the box.
            sigma = angle(toLatitude: min(max(atan(tan(phi) / cos(lambda)), low), high))
        } else {
            // The foot lies on the far side of the pole: distance shrinks towards a pole, so the
            // nearest point is one of the edge's ends.
            sigma = min(angle(toLatitude: low), angle(toLatitude: high))
        }
        return sigma * Geodesic.minimumRadiusOfCurvature
    }
}
