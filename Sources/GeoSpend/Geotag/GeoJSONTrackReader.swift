/// Reads positions from a GeoJSON FeatureCollection (RFC 7946), streamed a feature at a time:
///
/// - a `Point` with a time in `properties.time` (or `timestamp`), RFC 3339 or epoch
///   milliseconds, and an optional `accuracy`/`accuracy_m` in metres;
/// - a `LineString` with one time per vertex in `properties.coordTimes` or
///   `properties.times` (the convention of mapbox/togeojson for converted GPX tracks), or
///   `properties.coordinateProperties.times`.
///
/// Features of other types, or without times, are skipped.
enum GeoJSONTrackReader {
    static func read(_ reader: inout FeatureCollectionReader, into sink: inout LocationHistorySink) throws {
        _ = try reader.readArrays(named: ["features"]) { key, value, index in
            guard key == "features" else { return }
            sink.record(at: "features[\(index)]") { (s) throws(FieldError) in try feature(value, into: &s) }
        }
    }

    private static func point(_ value: JSONValue, column: String) throws(FieldError) -> Coordinate {
        guard case .array(let xy) = value, xy.count >= 2,
            let lon = try LocationValues.number(xy[0], column: column),
            let lat = try LocationValues.number(xy[1], column: column)
        else { throw FieldError(column: column, reason: "is not a [lon, lat] position") }
        return try LocationValues.checked(latitude: lat, longitude: lon, column: column)
    }

    private static func feature(_ value: JSONValue, into sink: inout LocationHistorySink) throws(FieldError) {
        guard let geometry = value["geometry"], case .object = geometry else { return }
        let properties = value["properties"]
        let accuracy = try LocationValues.accuracy(properties?["accuracy"] ?? properties?["accuracy_m"], column: "properties.accuracy")
        switch LocationValues.string(geometry["type"]) {
        case "Point":
            guard let time = properties?["time"] ?? properties?["timestamp"] else { return }
            let c = try point(geometry["coordinates"] ?? .null, column: "geometry.coordinates")
            sink.position(try LocationValues.instant(time, column: "properties.time"), c, accuracy: accuracy)
        case "LineString":
            guard case .array(let vertices)? = geometry["coordinates"] else {
                throw FieldError(column: "geometry.coordinates", reason: "is not an array of positions")
            }
            let times = properties?["coordTimes"] ?? properties?["times"] ?? properties?["coordinateProperties"]?["times"]
            guard let times else { return }
            guard case .array(let list) = times, list.count == vertices.count else {
                throw FieldError(column: "properties.coordTimes", reason: "does not have one time per vertex (\(vertices.count))")
            }
            for (i, (v, t)) in zip(vertices, list).enumerated() {
                let c = try point(v, column: "geometry.coordinates[\(i)]")
                sink.position(try LocationValues.instant(t, column: "properties.coordTimes[\(i)]"), c, accuracy: accuracy)
            }
        default:
            return
        }
    }
}
