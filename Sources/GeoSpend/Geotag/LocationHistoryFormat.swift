/// The location-history formats GeoSpend reads (issue 36 § 1; Data/README.md says which public
/// description each reader follows).
public enum LocationHistoryFormat: String, Sendable, Hashable, CaseIterable {
    /// The on-device Timeline export from Android (2024+): `semanticSegments`, `rawSignals`.
    case googleTimeline = "google-timeline"
    /// The on-device Timeline export from iOS: a flat array of segments with `geo:` strings.
    case googleTimelineIOS = "google-timeline-ios"
    /// Takeout `Records.json`: `locations[]` with E7 coordinates.
    case googleRecords = "google-records"
    /// Takeout Semantic Location History month files: `timelineObjects[]`.
    case googleSemantic = "google-semantic"
    /// OwnTracks: recorder `.rec` lines or `_type: location` JSON.
    case owntracks
    case gpx
    case geojson
    /// `time,lat,lon[,accuracy]` with a header.
    case csv

    /// Guesses the format from the file's first bytes, then its extension.
    ///
    /// JSON shapes are told by the first key that only one format has (`semanticSegments`,
    /// `rawSignals`, `locations`, `timelineObjects`, `_type`, `FeatureCollection`), a top-level
    /// array by `geo:` strings (iOS) or `_type` (OwnTracks).
    /// - Complexity: O(n) in the length of `head` (a few KiB are enough).
    public static func detect(head: [UInt8], fileName: String) -> LocationHistoryFormat? {
        var bytes = head[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = text.drop { $0.isWhitespace }
        let lower = fileName.lowercased()
        if trimmed.hasPrefix("<") { return text.contains("<gpx") ? .gpx : nil }
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
            if text.contains("\"semanticSegments\"") || text.contains("\"rawSignals\"") { return .googleTimeline }
            if text.contains("\"timelineObjects\"") { return .googleSemantic }
            if text.contains("\"locations\"") && text.contains("E7\"") { return .googleRecords }
            if text.contains("\"_type\"") { return .owntracks }
            if text.contains("\"FeatureCollection\"") || text.contains("\"Feature\"") { return .geojson }
            if trimmed.hasPrefix("[") && text.contains("\"geo:") { return .googleTimelineIOS }
            if lower.hasSuffix(".geojson") { return .geojson }
            return nil
        }
        if let firstLine = trimmed.split(separator: "\n", maxSplits: 1).first,
            firstLine.contains("\t"), firstLine.contains("{")
        {
            return .owntracks
        }
        if lower.hasSuffix(".rec") { return .owntracks }
        if lower.hasSuffix(".gpx") { return .gpx }
        if let firstLine = trimmed.split(separator: "\n", maxSplits: 1).first?.lowercased(),
            firstLine.contains("lat"), firstLine.contains(",") || firstLine.contains(";")
        {
            return .csv
        }
        if lower.hasSuffix(".csv") { return .csv }
        return nil
    }
}
