import Foundation
import GeoSpend
import Testing

/// A simulated person's day written in every format the writer knows and read back: the same
/// fixes (E7 rounds to 1e-7°, GPX accuracy goes through hdop), and the same geotag answers.
@Suite struct LocationHistoryRoundTripTests {
    static let simulation = GeotagSimulator(stores: GeotagEvaluationTests.places, configuration: .init(seed: 4, people: 2, days: 2))

    @Test(arguments: LocationHistoryWriter.formats)
    func readsBackWhatWasWritten(format: LocationHistoryFormat) throws {
        let person = try #require(Self.simulation.people.first)
        let written = person.history.positions
        let text = LocationHistoryWriter.text(written, format: format)
        let (read, detected) = try Fixtures.withFile(Array(text.utf8)) { path in try LocationHistoryReader.read(path: path) }
        #expect(detected == format)
        try #require(read.positions.count == written.count)
        for (a, b) in zip(read.positions, written) {
            #expect(a.epochMilliseconds == b.epochMilliseconds)
            #expect(abs(a.coordinate.latitude - b.coordinate.latitude) <= 1e-7 && abs(a.coordinate.longitude - b.coordinate.longitude) <= 1e-7)
            #expect(abs((a.accuracyMeters ?? -1) - (b.accuracyMeters ?? -1)) < 1e-9)
        }
        let tagger = { (h: LocationHistory) in
            Geotagger(history: h, stores: Self.simulation.registry, timeZone: GeotagSimulator.timeZone).geotag(person.expenses.map { GeotagExpense($0) })
        }
        #expect(tagger(read).placed.map(\.storeID) == tagger(person.history).placed.map(\.storeID))
    }
}
