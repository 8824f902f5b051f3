import Foundation
import GeoSpend
import Testing

/// Reading and geotagging at the sizes (1M positions; 100k expenses), on
/// `GeotagSpeedWorkload`. Off by default (a debug build is several times slower than release,
/// and the figures are not assertions): `GEOSPEND_GEOTAG_SCALE=1 swift test --filter
/// GeotagScaleTests` prints them. `geospend evaluate geotag --speed` times the same in release.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["GEOSPEND_GEOTAG_SCALE"] != nil))
struct GeotagScaleTests {
    static let workload = GeotagSpeedWorkload(places: GeotagEvaluationTests.places)

    @Test func readsAMillionRecords() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-records-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try LocationHistoryWriter.write(Self.workload.positions, format: .googleRecords, to: path)
        let clock = ContinuousClock()
        var count = 0
        let elapsed = try clock.measure { count = try LocationHistoryReader.read(path: path).history.positions.count }
        print("GeotagScaleTests: read 1,000,000 Records.json locations in \(elapsed), kept \(count)")
        #expect(count == Self.workload.positionCount)
    }

    @Test func geotagsManyExpensesAgainstAMillionFixes() throws {
        let history = LocationHistory(positions: Array(Self.workload.positions))
        let expenses = Self.workload.expenses()
        let clock = ContinuousClock()
        var report: GeotagReport?
        let elapsed = clock.measure {
            let tagger = Geotagger(history: history, stores: Self.workload.places, timeZone: TimeZone(identifier: "Europe/Helsinki")!)
            report = tagger.geotag(expenses)
        }
        print("GeotagScaleTests: geotagged 100,000 expenses against 1,000,000 fixes in \(elapsed): \(report!.placed.count) placed, \(report!.ambiguous.count) ambiguous")
        #expect(report!.placed.count > 0)
    }
}
