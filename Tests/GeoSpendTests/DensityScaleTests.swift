@testable import GeoSpend
import Testing

/// The OGC `density` collection's scale (issue 35, item 24): the finest for data in one town,
/// coarser until the layer fits `maximumCells` for data spread over continents.
@Suite struct DensityScaleTests {
    let eur = try! Currency(code: "EUR")

    func extent(count: Int, south: Double, north: Double, west: Double, east: Double) -> GeotaggedExtent {
        GeotaggedExtent(
            currency: eur, count: count, totalMinor: Int64(count) * 1000, maxMinor: 1000, south: south, north: north,
            west: west, east: east, west360: west < 0 ? west + 360 : west, east360: east < 0 ? east + 360 : east)
    }

    @Test func oneTownKeepsTheFinestScale() {
        let town = extent(count: 2_000, south: 60.15, north: 60.20, west: 24.90, east: 24.99)
        let scale = DensityScale.fitting([town], bandwidthMeters: 300, cellMeters: 50, maximumCells: 150_000)
        #expect(scale.bandwidthMeters == 300 && scale.cellMeters == 50)
    }

    /// The holdout's shape: 20,000 expenses from Fiji across ±180° to near the pole. On 50 m
    /// cells the surface could hold 2.3 million cells (a run made 2.1 million); 200 m cells
    /// keep the kernel and fit.
    @Test func spendingOnFiveContinentsGetsCoarserCells() {
        var points = ExtentAccumulator()
        let regions = [(-17.8, 178.4, 1.5), (60.17, 24.94, 0.3), (40.71, -74.0, 0.5), (-33.87, 151.2, 0.5), (78.2, 15.6, 0.4)]
        for i in 0..<20_000 {
            let (lat, lon, spread) = regions[i % 5]
            let corner = Double(i / 5 % 2 == 0 ? 1 : -1) * spread
            var x = lon + 2 * corner
            if x > 180 { x -= 360 }
            points.add(latitude: lat + corner, longitude: x, amountMinor: 1000)
        }
        let world = points.extent(currency: eur)
        #expect(DensityCost(bandwidthMeters: 300, cellMeters: 50, extents: [world]).cells > 2_000_000)
        let scale = DensityScale.fitting([world], bandwidthMeters: 300, cellMeters: 50, maximumCells: 150_000)
        #expect(scale.bandwidthMeters == 300 && scale.cellMeters == 200)
        #expect(DensityCost(bandwidthMeters: scale.bandwidthMeters, cellMeters: scale.cellMeters, extents: [world]).cells <= 150_000)
    }

    /// Past the bandwidth the kernel grows with the cell, so even a million expenses fit.
    @Test func aMillionSpreadExpensesFitToo() {
        let world = extent(count: 1_000_000, south: -60, north: 80, west: -180, east: 180)
        let scale = DensityScale.fitting([world], bandwidthMeters: 300, cellMeters: 50, maximumCells: 150_000)
        let cost = DensityCost(bandwidthMeters: scale.bandwidthMeters, cellMeters: scale.cellMeters, extents: [world])
        #expect(cost.cells <= 150_000 && cost.evaluations <= DensityCost.maximumEvaluations, "\(scale)")
        #expect(scale.bandwidthMeters == scale.cellMeters && scale.cellMeters > 300)
    }
}
