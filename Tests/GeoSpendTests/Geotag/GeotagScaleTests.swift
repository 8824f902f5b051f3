import Foundation
import GeoSpend
import Testing

/// Reading and geotagging at the sizes (1M positions; 100k expenses). Off by default
/// (a debug build is several times slower than release, and the figures are not assertions):
/// `GEOSPEND_GEOTAG_SCALE=1 swift test --filter GeotagScaleTests` prints them.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["GEOSPEND_GEOTAG_SCALE"] != nil))
struct GeotagScaleTests {
    @Test func readsAMillionRecords() throws {
        var text = "{\"locations\":["
        text.reserveCapacity(120_000_000)
        for i in 0..<1_000_000 {
            if i > 0 { text += "," }
            text += "{\"latitudeE7\":\(601_600_000 + i % 10_000),\"longitudeE7\":\(249_400_000 + i % 7_000),\"accuracy\":\(5 + i % 30),\"timestamp\":\"2026-03-05T06:10:00Z\"}"
        }
        text += "]}"
        let bytes = Array(text.utf8)
        let clock = ContinuousClock()
        var count = 0
        let elapsed = try clock.measure {
            count = try Fixtures.withFile(bytes) { path in try LocationHistoryReader.read(path: path).history.positions.count }
        }
        print("GeotagScaleTests: read 1,000,000 Records.json locations (\(bytes.count) bytes) in \(elapsed), kept \(count)")
        #expect(count > 0)
    }

    @Test func geotagsManyExpensesAgainstAMillionFixes() throws {
        let places = try Importer.readStores(from: Fixtures.path("Data/helsinki-places.geojson"))
        var positions: [Position] = []
        positions.reserveCapacity(1_000_000)
        var r = SplitMix64(seed: 5)
        for i in 0..<1_000_000 {
            let s = places[(i / 20) % places.count].coordinate
            positions.append(Position(epochMilliseconds: 1_772_000_000_000 + Int64(i) * 30_000, coordinate: Coordinate(uncheckedLatitude: s.latitude + r.gaussian() * 0.0001, longitude: s.longitude), accuracyMeters: 15, source: .csv))
        }
        let history = LocationHistory(positions: positions)
        let expenses = (0..<100_000).map { i in
            GeotagExpense(id: "e\(i)", occurredAt: Timestamp(epochSeconds: 1_772_000_000 + Int64(i) * 300, utcOffsetMinutes: 120), merchantText: places[(i * 10 / 20) % places.count].name)
        }
        let clock = ContinuousClock()
        var report: GeotagReport?
        let elapsed = clock.measure {
            let tagger = Geotagger(history: history, stores: places, timeZone: TimeZone(identifier: "Europe/Helsinki")!)
            report = tagger.geotag(expenses)
        }
        print("GeotagScaleTests: geotagged 100,000 expenses against 1,000,000 fixes in \(elapsed): \(report!.placed.count) placed, \(report!.ambiguous.count) ambiguous")
        #expect(report!.placed.count > 0)
    }
}
