/// The cell and bandwidth of a density surface that must stay small whatever the spread of the
/// data: the OGC `density` collection, which a client pages through and the service keeps whole
/// in memory. On 50 m cells with a 300 m kernel, 20,000 expenses spread over five regions made
/// 2.1 million cells (770 MB of GeoJSON, 131 s in a debug build): GDAL's first page never came
/// (issue 35, item 24). Cells double, and past the bandwidth the bandwidth with them, until
/// `DensityCost` expects at most `maximumCells`; data in one town keeps the finest scale.
///
/// ```swift
/// let (h, c) = DensityScale.fitting(extents, bandwidthMeters: 300, cellMeters: 50, maximumCells: 150_000)
/// ```
public enum DensityScale {
    public static func fitting(
        _ extents: [GeotaggedExtent], bandwidthMeters: Double, cellMeters: Double, maximumCells: Int
    ) -> (bandwidthMeters: Double, cellMeters: Double) {
        var (h, c) = (bandwidthMeters, cellMeters)
        // 2^20 × 50 m is past any extent on Earth: one cell per region at most.
        for _ in 0..<20 {
            let cost = DensityCost(bandwidthMeters: h, cellMeters: c, extents: extents)
            if cost.cells <= maximumCells && cost.evaluations <= DensityCost.maximumEvaluations { break }
            c *= 2
            h = max(h, c)
        }
        return (h, c)
    }
}
