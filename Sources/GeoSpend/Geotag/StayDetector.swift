/// Finds stays (dwell clusters) in time-sorted fixes: a run of fixes that stay within
/// `radiusMeters` of their running centre for at least `minimumDuration`. The stay-point rule of
/// Li et al. 2008 ("Mining user similarity based on location history"), with a running centre
/// instead of the first fix so one noisy first fix does not cut a stay short.
///
/// A gap longer than `maximumGapMilliseconds` inside a run ends it: the phone may have left and
/// come back.
public struct StayDetector: Sendable, Hashable {
    public var radiusMeters: Double
    public var minimumDurationMilliseconds: Int64
    public var maximumGapMilliseconds: Int64

    public init(radiusMeters: Double = 60, minimumDurationMilliseconds: Int64 = 4 * 60_000, maximumGapMilliseconds: Int64 = 45 * 60_000) {
        self.radiusMeters = radiusMeters
        self.minimumDurationMilliseconds = minimumDurationMilliseconds
        self.maximumGapMilliseconds = maximumGapMilliseconds
    }

    /// The stays, in time order, each with its centre (mean of the fixes) and a radius (the
    /// root mean square distance of the fixes from it, at least 10 m).
    /// - Complexity: O(n) distance computations.
    public func stays(in positions: [Position]) -> [Visit] {
        var out: [Visit] = []
        var i = 0
        while i < positions.count {
            var sumLat = positions[i].coordinate.latitude, sumLon = positions[i].coordinate.longitude
            var n = 1.0
            var j = i + 1
            while j < positions.count {
                if positions[j].epochMilliseconds - positions[j - 1].epochMilliseconds > maximumGapMilliseconds { break }
                let centre = Coordinate(uncheckedLatitude: sumLat / n, longitude: sumLon / n)
                if Geodesic.distance(centre, positions[j].coordinate) > radiusMeters { break }
                sumLat += positions[j].coordinate.latitude
                sumLon += positions[j].coordinate.longitude
                n += 1
                j += 1
            }
            let start = positions[i].epochMilliseconds, end = positions[j - 1].epochMilliseconds
            if end - start >= minimumDurationMilliseconds {
                let centre = Coordinate(uncheckedLatitude: sumLat / n, longitude: sumLon / n)
                var sq = 0.0
                for k in i..<j {
                    let d = Geodesic.distance(centre, positions[k].coordinate)
                    sq += d * d
                }
                out.append(Visit(
                    startEpochMilliseconds: start, endEpochMilliseconds: end, centre: centre,
                    radiusMeters: max(10, (sq / n).squareRoot()), source: nil))
                i = j
            } else {
                i += 1
            }
        }
        return out
    }
}
