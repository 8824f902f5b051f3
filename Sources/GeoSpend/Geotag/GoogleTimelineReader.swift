/// Reads the on-device Google Timeline exports (2024+), written from the public descriptions in
/// the repository CarlosBergillos/LocationHistoryFormat (its issue #13) and
/// kurupted/google-maps-timeline-viewer issues #1 and #11 (Data/README.md § Location history).
///
/// - Android: `{"semanticSegments": [...], "rawSignals": [...], ...}`. A segment with `visit`
///   becomes a `Visit` (`topCandidate.placeLocation.latLng` as `"60.1699°, 24.9384°"`, its
///   `placeId`, `probability`); `timelinePath[]` points (`point`, `time`) and an `activity`'s
///   `start`/`end` become positions without accuracy; `rawSignals[].position` (`LatLng`,
///   `accuracyMeters`, `timestamp`) become positions with it. Both arrays are streamed.
/// - iOS: a top-level array of segments whose coordinates are `"geo:lat,lng"` strings, numbers
///   quoted, and `timelinePath[]` points timed by `durationMinutesOffsetFromStartTime`.
enum GoogleTimelineReader {
    static func read(_ reader: inout FeatureCollectionReader, into sink: inout LocationHistorySink) throws {
        _ = try reader.readArrays(named: ["semanticSegments", "rawSignals"]) { key, value, index in
            let path = key.isEmpty ? "[\(index)]" : "\(key)[\(index)]"
            if key == "rawSignals" {
                sink.record(at: path) { (s) throws(FieldError) in try rawSignal(value, into: &s) }
            } else {
                sink.record(at: path) { (s) throws(FieldError) in try segment(value, into: &s) }
            }
        }
    }

    static func rawSignal(_ value: JSONValue, into sink: inout LocationHistorySink) throws(FieldError) {
        // wifiScan and activityRecord signals carry no position.
        guard let position = value["position"] else { return }
        guard case .object = position else { throw FieldError(column: "position", reason: "is \(position.typeName), not an object") }
        guard let text = LocationValues.string(position["LatLng"] ?? position["latLng"]) else {
            throw FieldError(column: "position.LatLng", reason: "is missing or not a string")
        }
        let c = try LocationValues.coordinate(text: text, column: "position.LatLng")
        let ms = try LocationValues.instant(position["timestamp"], column: "position.timestamp")
        let accuracy = try LocationValues.accuracy(position["accuracyMeters"], column: "position.accuracyMeters")
        sink.position(ms, c, accuracy: accuracy)
    }

    static func segment(_ value: JSONValue, into sink: inout LocationHistorySink) throws(FieldError) {
        guard case .object = value else { throw FieldError(column: "segment", reason: "is \(value.typeName), not an object") }
        let start = try LocationValues.instant(value["startTime"], column: "startTime")
        let end = try LocationValues.instant(value["endTime"], column: "endTime")
        guard end >= start else { throw FieldError(column: "endTime", reason: "is before startTime") }
        if let visit = value["visit"] {
            let candidate = visit["topCandidate"]
            let column = "visit.topCandidate.placeLocation"
            let location = candidate?["placeLocation"]
            let text: String?
            if case .string(let s)? = location { text = s } else { text = LocationValues.string(location?["latLng"]) }
            guard let text else { throw FieldError(column: column, reason: "is missing; a visit needs its place's location") }
            let centre = try LocationValues.coordinate(text: text, column: column)
            let probability = try LocationValues.number(candidate?["probability"] ?? visit["probability"], column: "visit.topCandidate.probability")
            if let p = probability, !(0...1).contains(p) {
                throw FieldError(column: "visit.topCandidate.probability", reason: "is not within 0…1: \(p)")
            }
            let placeID = LocationValues.string(candidate?["placeId"] ?? candidate?["placeID"])
            sink.visits.append(Visit(
                startEpochMilliseconds: start, endEpochMilliseconds: end, centre: centre, placeName: nil,
                placeID: placeID, probability: probability, source: sink.format))
        }
        if let activity = value["activity"] {
            for (key, ms) in [("start", start), ("end", end)] {
                let v = activity[key]
                let text: String?
                if case .string(let s)? = v { text = s } else { text = LocationValues.string(v?["latLng"]) }
                if let text { sink.position(ms, try LocationValues.coordinate(text: text, column: "activity.\(key)"), accuracy: nil) }
            }
        }
        if let path = value["timelinePath"] {
            guard case .array(let points) = path else { throw FieldError(column: "timelinePath", reason: "is \(path.typeName), not an array") }
            for (i, point) in points.enumerated() {
                let column = "timelinePath[\(i)]"
                guard let text = LocationValues.string(point["point"]) else {
                    throw FieldError(column: column + ".point", reason: "is missing or not a string")
                }
                let c = try LocationValues.coordinate(text: text, column: column + ".point")
                let ms: Int64
                if let t = point["time"] {
                    ms = try LocationValues.instant(t, column: column + ".time")
                } else if let minutes = try LocationValues.number(point["durationMinutesOffsetFromStartTime"], column: column + ".durationMinutesOffsetFromStartTime") {
                    guard minutes >= 0, minutes < 1e7 else {
                        throw FieldError(column: column + ".durationMinutesOffsetFromStartTime", reason: "is out of range: \(minutes)")
                    }
                    ms = start + Int64(minutes * 60_000)
                } else {
                    throw FieldError(column: column + ".time", reason: "is missing")
                }
                sink.position(ms, c, accuracy: nil)
            }
        }
    }
}
