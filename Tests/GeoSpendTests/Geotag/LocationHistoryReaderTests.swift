import Foundation
@testable import GeoSpend
import Testing

/// Every example in Data/examples/positions/ read through detection, with what it must hold,
/// and bad input rejected with the file, the JSON path or line, and the reason.
@Suite struct LocationHistoryReaderTests {
    static let examples: [(String, LocationHistoryFormat, Int, Int)] = [
        // file, format, positions, visits
        ("google-timeline-android.json", .googleTimeline, 6, 1),
        ("google-timeline-ios.json", .googleTimelineIOS, 4, 1),
        ("google-records.json", .googleRecords, 3, 0),
        ("google-semantic-2026_MARCH.json", .googleSemantic, 3, 1),
        ("owntracks.rec", .owntracks, 2, 0),
        ("owntracks.json", .owntracks, 2, 0),
        ("track.gpx", .gpx, 4, 0),
        ("positions.geojson", .geojson, 4, 0),
        ("positions.csv", .csv, 3, 0),
    ]

    @Test(arguments: examples)
    func readsTheExample(file: String, format: LocationHistoryFormat, positions: Int, visits: Int) throws {
        let (history, detected) = try LocationHistoryReader.read(path: Fixtures.path("Data/examples/positions/\(file)"))
        #expect(detected == format)
        #expect(history.positions.count == positions)
        #expect(history.visits.count == visits)
        #expect(history.positions.map(\.epochMilliseconds) == history.positions.map(\.epochMilliseconds).sorted())
        for p in history.positions {
            #expect(abs(p.coordinate.latitude - 60.17) < 0.01 && abs(p.coordinate.longitude - 24.94) < 0.01)
            #expect(p.source == format)
        }
    }

    @Test func androidValuesAreReadExactly() throws {
        let (h, _) = try LocationHistoryReader.read(path: Fixtures.path("Data/examples/positions/google-timeline-android.json"))
        let visit = try #require(h.visits.first)
        #expect(visit.centre.latitude == 60.1676 && visit.centre.longitude == 24.9416)
        #expect(visit.placeID == "ChIJexample0001")
        #expect(visit.probability == 0.81)
        #expect(visit.startEpochMilliseconds == 1_772_692_800_000)  // 2026-03-05T08:40+02:00
        let raw = try #require(h.positions.first { $0.accuracyMeters == 12 })
        #expect(raw.epochMilliseconds == 1_772_693_100_000)
    }

    @Test func semanticVisitKeepsNameAndConfidence() throws {
        let (h, _) = try LocationHistoryReader.read(path: Fixtures.path("Data/examples/positions/google-semantic-2026_MARCH.json"))
        let visit = try #require(h.visits.first)
        #expect(visit.placeName == "Example Café")
        #expect(visit.probability == 0.93)
    }

    @Test func recordsReadTimestampMsAndE7() throws {
        let (h, _) = try LocationHistoryReader.read(path: Fixtures.path("Data/examples/positions/google-records.json"))
        #expect(h.positions.last?.epochMilliseconds == 1_772_693_700_000)
        #expect(h.positions.first?.coordinate.latitude == 60.1699)
        #expect(h.positions.first?.accuracyMeters == 14)
    }

    static func reject(_ text: String, format: LocationHistoryFormat? = nil) throws -> String {
        try Fixtures.withFile(Array(text.utf8)) { path in
            do {
                _ = try LocationHistoryReader.read(path: path, format: format, displayName: "in.json")
                return "no error"
            } catch {
                return "\(error)"
            }
        }
    }

    @Test(arguments: [
        (#"{"locations":[{"latitudeE7":601699000,"longitudeE7":249384000,"timestamp":"2026-03-05T06:10:00Z"},{"latitudeE7":99999999999999999,"longitudeE7":1,"timestamp":"2026-03-05T06:10:00Z"}]}"#,
         "in.json:locations[1]: latitudeE7: is not an E7 integer"),
        (#"{"locations":[{"latitudeE7":601699000,"longitudeE7":249384000,"timestampMs":"99999999999999999999"}]}"#,
         "in.json:locations[0]: timestampMs: is not an RFC 3339 time"),
        (#"{"semanticSegments":[{"startTime":"2026-03-05T08:40:00+02:00","endTime":"2026-03-05T09:00:00+02:00","visit":{"topCandidate":{"placeLocation":{"latLng":"91.0°, 24.9°"}}}}]}"#,
         "in.json:semanticSegments[0]: visit.topCandidate.placeLocation: is out of range"),
        (#"{"rawSignals":[{"position":{"LatLng":"60.1°; 24.9°","timestamp":"2026-03-05T08:40:00+02:00"}}]}"#,
         "in.json:rawSignals[0]: position.LatLng: is not a \"lat, lon\" pair"),
        (#"{"semanticSegments":[{"startTime":"2026-03-05T08:40:00","endTime":"2026-03-05T09:00:00+02:00"}]}"#,
         "in.json:semanticSegments[0]: startTime: is not an RFC 3339 time with an offset"),
        (#"{"timelineObjects":[{"placeVisit":{"location":{"latitudeE7":601676000,"longitudeE7":249416000},"duration":{"startTimestamp":"2026-03-05T07:00:00Z","endTimestamp":"2026-03-05T06:00:00Z"}}}]}"#,
         "in.json:timelineObjects[0]: placeVisit.duration.endTimestamp: is before the start"),
        (#"{"locations":[{"latitudeE7":1,"longitudeE7":2,"timestamp":"2026-03-05T06:10:00Z"},]}"#,
         "in.json:byte 83: json: expected a JSON value"),
    ])
    func badJSONNamesPathAndReason(text: String, expected: String) throws {
        let message = try Self.reject(text)
        #expect(message.contains(expected), "\(message)")
    }

    @Test func recorderLinesNameTheLine() throws {
        let text = "2026-03-05T06:45:00Z\t*\t{\"_type\":\"location\",\"lat\":60.1,\"lon\":24.9,\"tst\":1772693100}\nnot a line\n2026-03-05T06:45:00Z\t*\t{\"_type\":\"location\",\"lat\":60.1,\"lon\":24.9,\"tst\":99999999999999999}\n"
        let message = try Self.reject(text, format: .owntracks)
        #expect(message.contains("in.json:2: row: is not a recorder line"), "\(message)")
        #expect(message.contains("in.json:3: tst: is too large a time in seconds"), "\(message)")
        #expect(message.contains("2 bad rows, nothing was written"), "\(message)")
    }

    @Test func csvNamesLineAndColumn() throws {
        let message = try Self.reject("time,lat,lon\n2026-03-05T06:45:00Z,60.1,24.9\n2026-03-05T06:46:00Z,north,24.9\n", format: .csv)
        #expect(message.contains("in.json:3: lat: is not a number"), "\(message)")
    }

    @Test func nestingIsBounded() throws {
        let deep = "{\"locations\":[" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "]}"
        let message = try Self.reject(deep, format: .googleRecords)
        #expect(message.contains("nests deeper than 64 levels"), "\(message)")
    }

    @Test func unknownContentIsNotGuessed() throws {
        let message = try Self.reject("hello world\n")
        #expect(message.contains("is not a location history GeoSpend recognises"), "\(message)")
    }

    @Test func historiesAddUpAndRepeatsAreKeptOnce() throws {
        let (a, _) = try LocationHistoryReader.read(path: Fixtures.path("Data/examples/positions/google-records.json"))
        let (b, _) = try LocationHistoryReader.read(path: Fixtures.path("Data/examples/positions/positions.csv"))
        var merged = a
        merged.merge(b)
        merged.merge(a)
        #expect(merged.positions.count == a.positions.count + b.positions.count)
    }

    /// The reader streams a large Records.json: 20,000 locations in many window refills.
    @Test func streamsManyRecords() throws {
        var text = "{\"locations\":["
        for i in 0..<20_000 {
            if i > 0 { text += "," }
            text += "{\"latitudeE7\":\(601_600_000 + i),\"longitudeE7\":249400000,\"accuracy\":10,\"timestampMs\":\"\(1_772_693_100_000 + Int64(i) * 1000)\"}"
        }
        text += "]}"
        let count = try Fixtures.withFile(Array(text.utf8)) { path in
            try LocationHistoryReader.read(path: path).history.positions.count
        }
        #expect(count == 20_000)
    }
}
