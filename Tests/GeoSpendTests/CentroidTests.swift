import Testing

@testable import GeoSpend

/// A cluster's centroid is the same whatever order the store returns its expenses in.
@Suite struct CentroidTests {
    @Test(arguments: [(60.17, 24.94), (-33.9, 151.2), (65.0, 179.9995), (0.0, -179.9995)])
    func meanPositionIsIndependentOfOrderAndExact(latitude: Double, longitude: Double) throws {
        var rng = SplitMix64(seed: 11)
        // 5,000 positions within ~300 m, with 7 decimals as imports give them (some across ±180°).
        let cs = (0..<5_000).map { _ -> Coordinate in
            var lon = longitude + Double(Int.random(in: -3_000...3_000, using: &rng)) * 1e-7 * 3
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            let lat = latitude + Double(Int.random(in: -3_000...3_000, using: &rng)) * 1e-7
            return Coordinate(uncheckedLatitude: (lat * 1e7).rounded() / 1e7, longitude: (lon * 1e7).rounded() / 1e7)
        }
        let reference = try #require(LocationInsights.meanPosition(cs))
        for _ in 0..<20 {
            #expect(LocationInsights.meanPosition(cs.shuffled(using: &rng)) == reference)
        }
        // Against an independent mean in whole 1e-7 degrees (exact integers), unwrapped at 0°/360°.
        let lat = Double(cs.reduce(0) { $0 + Int64(($1.latitude * 1e7).rounded()) }) / 1e7 / Double(cs.count)
        let lonSum = cs.reduce(0) { sum, c -> Int64 in
            let l = Int64((c.longitude * 1e7).rounded())
            return sum + (longitude > 179 && l < 0 ? l + 3_600_000_000 : longitude < -179 && l > 0 ? l - 3_600_000_000 : l)
        }
        var lon = Double(lonSum) / 1e7 / Double(cs.count)
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        #expect(abs(reference.latitude - lat) < 1e-9)
        #expect(abs(reference.longitude - lon) < 1e-9)
    }
}
