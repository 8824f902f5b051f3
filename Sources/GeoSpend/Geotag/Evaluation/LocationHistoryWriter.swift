/// Writes positions in the location-history formats GeoSpend reads, so simulated people can
/// bring their histories in every format and the readers are tested on files of realistic size
/// (`GeotagSimulator`). Only what the readers use is written; Google's other fields are left out.
public enum LocationHistoryWriter {
    /// The formats it writes (the iOS and Semantic exports carry visits, not fixes: not written).
    public static let formats: [LocationHistoryFormat] = [.googleTimeline, .googleRecords, .owntracks, .gpx, .geojson, .csv]

    /// The file's text. - Complexity: O(n).
    public static func text(_ positions: [Position], format: LocationHistoryFormat) -> String {
        func time(_ ms: Int64) -> String { Timestamp(epochSeconds: ms / 1000, utcOffsetMinutes: 0).text }
        func acc(_ p: Position) -> String { p.accuracyMeters.map { "\($0)" } ?? "null" }
        var out = ""
        switch format {
        case .googleTimeline:
            out = "{\"semanticSegments\": [], \"rawSignals\": [\n"
            out += positions.map {
                "{\"position\": {\"LatLng\": \"\($0.coordinate.latitude)°, \($0.coordinate.longitude)°\", \"accuracyMeters\": \(acc($0)), \"source\": \"GPS\", \"timestamp\": \"\(time($0.epochMilliseconds))\"}}"
            }.joined(separator: ",\n")
            out += "\n]}\n"
        case .googleRecords:
            out = "{\"locations\": [\n"
            out += positions.map {
                "{\"latitudeE7\": \(Int64(($0.coordinate.latitude * 1e7).rounded())), \"longitudeE7\": \(Int64(($0.coordinate.longitude * 1e7).rounded())), \"accuracy\": \(acc($0)), \"timestampMs\": \"\($0.epochMilliseconds)\"}"
            }.joined(separator: ",\n")
            out += "\n]}\n"
        case .owntracks:
            for p in positions {
                out += "\(time(p.epochMilliseconds))\t*                 \t{\"_type\":\"location\",\"acc\":\(acc(p)),\"lat\":\(p.coordinate.latitude),\"lon\":\(p.coordinate.longitude),\"tid\":\"ph\",\"tst\":\(p.epochMilliseconds / 1000)}\n"
            }
        case .gpx:
            out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"GeoSpend simulator\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
            for p in positions {
                let hdop = p.accuracyMeters.map { "<hdop>\($0 / 5)</hdop>" } ?? ""
                out += "<trkpt lat=\"\(p.coordinate.latitude)\" lon=\"\(p.coordinate.longitude)\"><time>\(time(p.epochMilliseconds))</time>\(hdop)</trkpt>\n"
            }
            out += "</trkseg></trk></gpx>\n"
        case .geojson:
            out = "{\"type\": \"FeatureCollection\", \"features\": [\n"
            out += positions.map {
                "{\"type\": \"Feature\", \"properties\": {\"time\": \"\(time($0.epochMilliseconds))\", \"accuracy\": \(acc($0))}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [\($0.coordinate.longitude), \($0.coordinate.latitude)]}}"
            }.joined(separator: ",\n")
            out += "\n]}\n"
        default:
            out = "time,lat,lon,accuracy\n"
            for p in positions {
                out += "\(time(p.epochMilliseconds)),\(p.coordinate.latitude),\(p.coordinate.longitude),\(p.accuracyMeters.map { "\($0)" } ?? "")\n"
            }
        }
        return out
    }
}
