/// Reads Google Takeout's location history, written from the public descriptions in the
/// repository CarlosBergillos/LocationHistoryFormat and Google's Takeout help (Data/README.md
/// § Location history).
///
/// - `Records.json`: `{"locations": [{latitudeE7, longitudeE7, accuracy, timestamp}]}`, older
///   files `timestampMs`; streamed, one location at a time (files reach several hundred MB).
/// - Semantic Location History month files: `{"timelineObjects": [{"placeVisit": …} |
///   {"activitySegment": …}]}`; a `placeVisit` is a `Visit` with the place's name, address and
///   id; an `activitySegment`'s start and end locations and `simplifiedRawPath` points are
///   positions.
enum GoogleTakeoutReader {
    static func readRecords(_ reader: inout FeatureCollectionReader, into sink: inout LocationHistorySink) throws {
        _ = try reader.readArrays(named: ["locations"]) { key, value, index in
            guard key == "locations" else { return }
            sink.record(at: "locations[\(index)]") { (s) throws(FieldError) in
                guard case .object = value else { throw FieldError(column: "location", reason: "is \(value.typeName), not an object") }
                let lat = try LocationValues.e7(value["latitudeE7"], column: "latitudeE7")
                let lon = try LocationValues.e7(value["longitudeE7"], column: "longitudeE7")
                let c = try LocationValues.checked(latitude: lat, longitude: lon, column: "latitudeE7")
                let ms: Int64
                if let t = value["timestamp"] {
                    ms = try LocationValues.instant(t, column: "timestamp")
                } else {
                    ms = try LocationValues.instant(value["timestampMs"], column: "timestampMs")
                }
                s.position(ms, c, accuracy: try LocationValues.accuracy(value["accuracy"], column: "accuracy"))
            }
        }
    }

    static func readSemantic(_ reader: inout FeatureCollectionReader, into sink: inout LocationHistorySink) throws {
        _ = try reader.readArrays(named: ["timelineObjects"]) { key, value, index in
            guard key == "timelineObjects" else { return }
            sink.record(at: "timelineObjects[\(index)]") { (s) throws(FieldError) in try object(value, into: &s) }
        }
    }

    private static func duration(_ value: JSONValue?, column: String) throws(FieldError) -> (Int64, Int64) {
        guard let value else { throw FieldError(column: column, reason: "is missing") }
        let start = try LocationValues.instant(value["startTimestamp"] ?? value["startTimestampMs"], column: column + ".startTimestamp")
        let end = try LocationValues.instant(value["endTimestamp"] ?? value["endTimestampMs"], column: column + ".endTimestamp")
        guard end >= start else { throw FieldError(column: column + ".endTimestamp", reason: "is before the start") }
        return (start, end)
    }

    private static func e7Coordinate(_ value: JSONValue?, column: String) throws(FieldError) -> Coordinate? {
        guard let value, case .object = value else { return nil }
        let lat = try LocationValues.e7(value["latitudeE7"] ?? value["latE7"], column: column + ".latitudeE7")
        let lon = try LocationValues.e7(value["longitudeE7"] ?? value["lngE7"], column: column + ".longitudeE7")
        return try LocationValues.checked(latitude: lat, longitude: lon, column: column)
    }

    private static func object(_ value: JSONValue, into sink: inout LocationHistorySink) throws(FieldError) {
        if let visit = value["placeVisit"] {
            let (start, end) = try duration(visit["duration"], column: "placeVisit.duration")
            guard let centre = try e7Coordinate(visit["location"], column: "placeVisit.location") else {
                throw FieldError(column: "placeVisit.location", reason: "is missing")
            }
            let location = visit["location"]
            var confidence = try LocationValues.number(visit["visitConfidence"], column: "placeVisit.visitConfidence")
            if let c = confidence { confidence = min(1, max(0, c / 100)) }
            sink.visits.append(Visit(
                startEpochMilliseconds: start, endEpochMilliseconds: end, centre: centre,
                placeName: LocationValues.string(location?["name"]) ?? LocationValues.string(location?["address"]),
                placeID: LocationValues.string(location?["placeId"]), probability: confidence, source: sink.format))
        } else if let segment = value["activitySegment"] {
            let (start, end) = try duration(segment["duration"], column: "activitySegment.duration")
            if let c = try e7Coordinate(segment["startLocation"], column: "activitySegment.startLocation") {
                sink.position(start, c, accuracy: nil)
            }
            if let c = try e7Coordinate(segment["endLocation"], column: "activitySegment.endLocation") {
                sink.position(end, c, accuracy: nil)
            }
            if case .array(let points)? = segment["simplifiedRawPath"]?["points"] {
                for (i, p) in points.enumerated() {
                    let column = "activitySegment.simplifiedRawPath.points[\(i)]"
                    guard let c = try e7Coordinate(p, column: column) else { continue }
                    let ms = try LocationValues.instant(p["timestamp"] ?? p["timestampMs"], column: column + ".timestamp")
                    sink.position(ms, c, accuracy: try LocationValues.accuracy(p["accuracyMeters"], column: column + ".accuracyMeters"))
                }
            }
        }
    }
}
