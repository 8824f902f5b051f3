@testable import GeoSpend
import Testing

@Suite struct StayDetectorTests {
    static func fix(_ minute: Int64, _ lat: Double, _ lon: Double) -> Position {
        Position(epochMilliseconds: minute * 60_000, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), accuracyMeters: 10, source: .csv)
    }

    @Test func findsADwellBetweenWalks() {
        var fixes: [Position] = []
        for m in 0..<5 { fixes.append(Self.fix(Int64(m), 60.160 + Double(m) * 0.001, 24.94)) }  // walking ~110 m/min
        for m in 5..<20 { fixes.append(Self.fix(Int64(m), 60.1650 + (m % 2 == 0 ? 0.0001 : -0.0001), 24.94)) }
        for m in 20..<25 { fixes.append(Self.fix(Int64(m), 60.166 + Double(m - 20) * 0.001, 24.94)) }
        let stays = StayDetector().stays(in: fixes)
        #expect(stays.count == 1)
        let s = stays[0]
        #expect(s.startEpochMilliseconds == 5 * 60_000 && s.endEpochMilliseconds == 19 * 60_000)
        #expect(abs(s.centre.latitude - 60.165) < 0.0001)
        #expect(s.isDetected)
    }

    @Test func aLongGapEndsAStay() {
        let fixes = [Self.fix(0, 60.165, 24.94), Self.fix(3, 60.165, 24.94), Self.fix(120, 60.165, 24.94), Self.fix(123, 60.165, 24.94)]
        #expect(StayDetector().stays(in: fixes).isEmpty)
        #expect(StayDetector(maximumGapMilliseconds: 3 * 3_600_000).stays(in: fixes).count == 1)
    }
}
