/// Where the phone was at an instant, from the fixes around it: interpolated between the fix
/// before and the fix after when they are close in time, else the nearest fix with its accuracy
/// grown by how far a walker could have gone since.
public struct PositionEstimate: Sendable, Hashable {
    public var coordinate: Coordinate
    /// The radius the person was within, metres.
    public var accuracyMeters: Double
    /// Milliseconds between the instant and the nearest fix used.
    public var gapMilliseconds: Int64

    /// Accuracy assumed for a fix whose format gives none (a Google `timelinePath` point).
    public static let defaultAccuracyMeters = 50.0
    /// Walking pace used to grow the radius with time from the nearest fix (1.4 m/s).
    static let walkingMetersPerSecond = 1.4

    /// - Parameters:
    ///   - maximumGapMilliseconds: the longest interval between two fixes to interpolate across,
    ///     and the furthest a single fix may be from the instant.
    /// - Complexity: O(log n) in the positions.
    public static func estimate(
        in history: LocationHistory, at t: Int64, maximumGapMilliseconds: Int64 = 20 * 60_000
    ) -> PositionEstimate? {
        let positions = history.positions
        let i = history.firstPositionIndex(atOrAfter: t)
        let after = i < positions.count ? positions[i] : nil
        let before = i > 0 ? positions[i - 1] : nil
        func accuracy(_ p: Position) -> Double { p.accuracyMeters ?? defaultAccuracyMeters }
        if let b = before, let a = after, a.epochMilliseconds - b.epochMilliseconds <= maximumGapMilliseconds {
            let span = Double(a.epochMilliseconds - b.epochMilliseconds)
            let f = span > 0 ? Double(t - b.epochMilliseconds) / span : 0
            let lat = b.coordinate.latitude + f * (a.coordinate.latitude - b.coordinate.latitude)
            let lon = b.coordinate.longitude + f * (a.coordinate.longitude - b.coordinate.longitude)
            let moved = Geodesic.distance(b.coordinate, a.coordinate)
            // Between two fixes the person was somewhere along the way: the fixes' own radius
            // plus the part of the leg that interpolation cannot pin down.
            let radius = (1 - f) * accuracy(b) + f * accuracy(a) + min(f, 1 - f) * moved
            let gap = min(t - b.epochMilliseconds, a.epochMilliseconds - t)
            return PositionEstimate(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), accuracyMeters: radius, gapMilliseconds: gap)
        }
        var nearest: Position?
        if let b = before, t - b.epochMilliseconds <= maximumGapMilliseconds / 2 { nearest = b }
        if let a = after, a.epochMilliseconds - t <= maximumGapMilliseconds / 2,
            nearest == nil || a.epochMilliseconds - t < t - nearest!.epochMilliseconds
        {
            nearest = a
        }
        guard let n = nearest else { return nil }
        let gap = abs(n.epochMilliseconds - t)
        return PositionEstimate(
            coordinate: n.coordinate, accuracyMeters: accuracy(n) + Double(gap) / 1000 * walkingMetersPerSecond, gapMilliseconds: gap)
    }
}
