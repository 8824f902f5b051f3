import Foundation

/// Writes positions in the location-history formats GeoSpend reads, so simulated people can
/// bring their histories in every format and the readers are tested on files of realistic size
/// (`GeotagSimulator`, `GeotagSpeedWorkload`). Only what the readers use is written; Google's
/// other fields are left out. `Records.json` gets the `timestamp` text Takeout has written since
/// 2022 (milliseconds kept), not the older `timestampMs`.
public enum LocationHistoryWriter {
    /// The formats it writes (the iOS and Semantic exports carry visits, not fixes: not written).
    public static let formats: [LocationHistoryFormat] = [.googleTimeline, .googleRecords, .owntracks, .gpx, .geojson, .csv]

    /// The file's text. - Complexity: O(n).
    public static func text(_ positions: [Position], format: LocationHistoryFormat) -> String {
        var out = header(format)
        for (i, p) in positions.enumerated() { out += record(p, format: format, first: i == 0) }
        return out + footer(format)
    }

    /// Writes the file a megabyte at a time: memory stays flat however many positions
    /// `positions` yields (a lazy sequence is never held whole).
    /// - Throws: Foundation's file errors.
    /// - Complexity: O(n).
    public static func write(_ positions: some Sequence<Position>, format: LocationHistoryFormat, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var buffer = header(format)
        var first = true
        for p in positions {
            buffer += record(p, format: format, first: first)
            first = false
            if buffer.utf8.count >= 1 << 20 {
                try handle.write(contentsOf: Data(buffer.utf8))
                buffer = ""
            }
        }
        buffer += footer(format)
        try handle.write(contentsOf: Data(buffer.utf8))
    }

    private static func header(_ format: LocationHistoryFormat) -> String {
        switch format {
        case .googleTimeline: "{\"semanticSegments\": [], \"rawSignals\": [\n"
        case .googleRecords: "{\"locations\": [\n"
        case .owntracks: ""
        case .gpx:
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"GeoSpend simulator\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        case .geojson: "{\"type\": \"FeatureCollection\", \"features\": [\n"
        default: "time,lat,lon,accuracy\n"
        }
    }

    private static func footer(_ format: LocationHistoryFormat) -> String {
        switch format {
        case .googleTimeline, .googleRecords, .geojson: "\n]}\n"
        case .gpx: "</trkseg></trk></gpx>\n"
        default: ""
        }
    }

    /// One position's text, with the separator before it when it is not the first.
    private static func record(_ p: Position, format: LocationHistoryFormat, first: Bool) -> String {
        let comma = first ? "" : ",\n"
        let acc = p.accuracyMeters.map { "\($0)" } ?? "null"
        let (lat, lon) = (p.coordinate.latitude, p.coordinate.longitude)
        switch format {
        case .googleTimeline:
            return comma + "{\"position\": {\"LatLng\": \"\(lat)°, \(lon)°\", \"accuracyMeters\": \(acc), \"source\": \"GPS\", \"timestamp\": \"\(time(p.epochMilliseconds))\"}}"
        case .googleRecords:
            return comma + "{\"latitudeE7\": \(Int64((lat * 1e7).rounded())), \"longitudeE7\": \(Int64((lon * 1e7).rounded())), \"accuracy\": \(acc), \"timestamp\": \"\(time(p.epochMilliseconds, milliseconds: true))\"}"
        case .owntracks:
            return "\(time(p.epochMilliseconds))\t*                 \t{\"_type\":\"location\",\"acc\":\(acc),\"lat\":\(lat),\"lon\":\(lon),\"tid\":\"ph\",\"tst\":\(p.epochMilliseconds / 1000)}\n"
        case .gpx:
            let hdop = p.accuracyMeters.map { "<hdop>\($0 / 5)</hdop>" } ?? ""
            return "<trkpt lat=\"\(lat)\" lon=\"\(lon)\"><time>\(time(p.epochMilliseconds))</time>\(hdop)</trkpt>\n"
        case .geojson:
            return comma + "{\"type\": \"Feature\", \"properties\": {\"time\": \"\(time(p.epochMilliseconds))\", \"accuracy\": \(acc)}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [\(lon), \(lat)]}}"
        default:
            return "\(time(p.epochMilliseconds)),\(lat),\(lon),\(p.accuracyMeters.map { "\($0)" } ?? "")\n"
        }
    }

    /// RFC 3339 in UTC; with `milliseconds`, `.fff` before the `Z` when the instant has them.
    private static func time(_ ms: Int64, milliseconds: Bool = false) -> String {
        let (seconds, fraction) = (ms.floorDiv(1000), ms - ms.floorDiv(1000) * 1000)
        let text = Timestamp(epochSeconds: seconds, utcOffsetMinutes: 0).text
        guard milliseconds, fraction != 0 else { return text }
        let digits = String(fraction + 1000).dropFirst()
        return text.dropLast() + "." + digits + "Z"
    }
}

extension Int64 {
    fileprivate func floorDiv(_ d: Int64) -> Int64 { self >= 0 ? self / d : (self - d + 1) / d }
}
