import CProj
import Foundation

/// Geodesics on the WGS84 ellipsoid, computed with Karney's algorithm (C. F. F. Karney 2013,
/// "Algorithms for geodesics", J. Geodesy 87:43–55) through GeographicLib's C implementation as
/// shipped inside PROJ (`geod_inverse`, `geod_direct`). Accurate to about 15 nm for any pair of
/// points, antipodal ones included: the same numbers PostGIS `geography` and GeographicLib give.
/// `distance` measures lines under 200 m by an equivalent metric, within a micrometre.
public enum Geodesic {
    /// WGS84 semi-major axis (metres) and flattening.
    public static let equatorialRadius = 6_378_137.0
    public static let flattening = 1 / 298.257_223_563

    /// The smallest radius of curvature of WGS84, `a(1 − e²)` (the meridian at the equator), in
    /// metres. No geodesic is shorter than the same pair's great-circle distance on a sphere of
    /// this radius; `SearchBox` relies on that to never miss a point.
    public static let minimumRadiusOfCurvature: Double = {
        let e2 = flattening * (2 - flattening)
        return equatorialRadius * (1 - e2)
    }()

    private static let wgs84: geod_geodesic = {
        var g = geod_geodesic()
        geod_init(&g, equatorialRadius, flattening)
        return g
    }()

    /// The geodesic distance in metres between two points.
    /// - Complexity: O(1); about a microsecond beyond 200 m (`geod_inverse`), less below.
    @inline(__always)
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        distance(latitude1: a.latitude, longitude1: a.longitude, latitude2: b.latitude, longitude2: b.longitude)
    }

    /// The geodesic distance in metres between two points given in degrees.
    ///
    /// Short lines away from the poles take a shortcut: the constant metric of the mid-latitude,
    /// d² = (M·Δφ)² + (N·cos φ·Δλ)², differs from the geodesic by a term growing as d³ — under
    /// 0.63 µm for d ≤ 260 m and |φ| ≤ 80° over 240,000 random pairs against GeographicLib
    /// (PyPI geographiclib 2.1; scripts/fixtures/short_geodesic_check.py), so up to 200 m it is used
    /// as is, at a fraction of `geod_inverse`'s cost (which was 37 % of a snap's instructions).
    /// `GeodesyTests` checks it against `karneyDistance` on random short pairs.
    @inline(__always)
    public static func distance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        shortDistance(latitude1: latitude1, longitude1: longitude1, latitude2: latitude2, longitude2: longitude2)
            ?? karneyDistance(latitude1: latitude1, longitude1: longitude1, latitude2: latitude2, longitude2: longitude2)
    }

    /// `geod_inverse`'s distance, for any pair.
    static func karneyDistance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        var s12 = 0.0
        withUnsafePointer(to: wgs84) { g in
            geod_inverse(g, latitude1, longitude1, latitude2, longitude2, &s12, nil, nil)
        }
        return s12
    }

    private static let e2 = flattening * (2 - flattening)

    /// The mid-latitude metric's distance when it is within a micrometre of the geodesic (see
    /// `distance`), else nil.
    @inline(__always)
    static func shortDistance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double? {
        guard abs(latitude1) <= 80, abs(latitude2) <= 80, abs(latitude1 - latitude2) < 0.002 else { return nil }
        var dLon = longitude2 - longitude1
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        guard abs(dLon) < 0.02 else { return nil }
        let mid = (latitude1 + latitude2) / 2 * .pi / 180
        let sinMid = sin(mid)
        let w2 = 1 - e2 * sinMid * sinMid
        let w = w2.squareRoot()
        let n = equatorialRadius / w  // prime vertical radius of curvature
        let m = equatorialRadius * (1 - e2) / (w2 * w)  // meridional radius of curvature
        let dy = m * (latitude2 - latitude1) * .pi / 180
        let dx = n * cos(mid) * dLon * .pi / 180
        let d = (dx * dx + dy * dy).squareRoot()
        return d <= 200 ? d : nil
    }

    /// Whether two points are at most `meters` apart (geodesic), deciding most pairs from cheap
    /// bounds and measuring (`distance`) only pairs within ~1 % of the limit.
    ///
    /// The bounds: for a path between latitudes φ₁…φ₂ the WGS84 metric ds² = M²dφ² + N²cos²φ dλ²
    /// lies between the constant metrics built from the smallest and largest M and N·cos φ over
    /// that band (widened by 0.01°); straight lines are shortest in a constant metric, so the
    /// geodesic is no shorter than the small one's and no longer than the large one's. Used for
    /// short distances only (clustering, snapping); beyond 10 km it computes the exact distance.
    @inline(__always)
    public static func isWithin(_ a: Coordinate, _ b: Coordinate, meters: Double) -> Bool {
        let dLat = abs(a.latitude - b.latitude)
        var dLon = abs(a.longitude - b.longitude)
        if dLon > 180 { dLon = 360 - dLon }
        if meters > 10_000 || dLat > 0.1 || dLon > 0.2 { return distance(a, b) <= meters }
        let high = min(90, max(abs(a.latitude), abs(b.latitude)) + 0.01) * .pi / 180
        let low = max(0, min(abs(a.latitude), abs(b.latitude)) - 0.01) * .pi / 180
        let lowY = dLat * 110_570, lowX = dLon * 111_319 * cos(high)
        if lowX * lowX + lowY * lowY > meters * meters { return false }
        let highY = dLat * 111_700, highX = dLon * 111_700 * cos(low)
        if highX * highX + highY * highY <= meters * meters { return true }
        return distance(a, b) <= meters
    }

    /// The point reached from `start` after `distance` metres on the initial azimuth (degrees
    /// clockwise from north). Longitude is normalised to [-180, 180].
    public static func destination(from start: Coordinate, azimuth: Double, distance: Double) -> Coordinate {
        var lat = 0.0
        var lon = 0.0
        withUnsafePointer(to: wgs84) { g in
            geod_direct(g, start.latitude, start.longitude, azimuth, distance, &lat, &lon, nil)
        }
        var normalised = lon.truncatingRemainder(dividingBy: 360)
        if normalised > 180 { normalised -= 360 }
        if normalised < -180 { normalised += 360 }
        return Coordinate(uncheckedLatitude: lat, longitude: normalised)
    }

    /// The PROJ release that carries the geodesic code, e.g. `9.1.1`.
    public static var libraryVersion: String {
        "\(PROJ_VERSION_MAJOR).\(PROJ_VERSION_MINOR).\(PROJ_VERSION_PATCH)"
    }
}
