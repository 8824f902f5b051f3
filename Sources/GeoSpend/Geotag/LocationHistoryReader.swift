/// Reads one location-history file of any supported format into a `LocationHistory`.
///
/// ```swift
/// let (history, format) = try LocationHistoryReader.read(path: "Timeline.json")
/// // format == .googleTimeline; history.positions sorted by time
/// ```
///
/// JSON formats are streamed an array element at a time (`FeatureCollectionReader.readArrays`)
/// with `StrictJSONParser`'s rules (duplicate keys, 64 levels of nesting at most); CSV is mapped;
/// OwnTracks `.rec` is read a line at a time; GPX is parsed whole. Memory grows with the
/// positions kept (about 48 bytes each), not with the file's text.
public enum LocationHistoryReader {
    /// - Parameters:
    ///   - format: nil to detect it from the first 64 KiB and the file name.
    ///   - displayName: the name errors give for the file (default: `path`).
    /// - Throws: `ImportError.unreadable` (cannot open), `.badFile` (not the format; a JSON syntax
    ///   error at its byte offset), `.rejected` (bad records, each with its JSON path or line,
    ///   column and reason; nothing is returned).
    /// - Complexity: O(n log n) in the positions (they are sorted).
    public static func read(
        path: String, format: LocationHistoryFormat? = nil, displayName: String? = nil
    ) throws(ImportError) -> (history: LocationHistory, format: LocationHistoryFormat) {
        let name = displayName ?? path
        let detected: LocationHistoryFormat
        if let format {
            detected = format
        } else {
            let source = try ByteSource(path: path)
            let head = Array(source.peek(64 << 10))
            guard let guess = LocationHistoryFormat.detect(head: head, fileName: path) else {
                throw .badFile(RowError(file: name, line: 1, column: "document", reason: "is not a location history GeoSpend recognises (give --format: \(LocationHistoryFormat.allCases.map(\.rawValue).joined(separator: ", ")))"))
            }
            detected = guess
        }
        var sink = LocationHistorySink(file: name, format: detected)
        switch detected {
        case .gpx: try GPXTrackReader.read(path: path, into: &sink)
        case .csv: try PositionCSVReader.read(path: path, into: &sink)
        case .owntracks:
            let source = try ByteSource(path: path)
            let first = source.peek(1 << 12).first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
            if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                try json(source, &sink, name) { r, s in try OwnTracksReader.readJSON(&r, into: &s) }
            } else {
                OwnTracksReader.readRecorder(source, into: &sink)
            }
        default:
            let source = try ByteSource(path: path)
            try json(source, &sink, name) { r, s in
                switch detected {
                case .googleTimeline, .googleTimelineIOS: try GoogleTimelineReader.read(&r, into: &s)
                case .googleRecords: try GoogleTakeoutReader.readRecords(&r, into: &s)
                case .googleSemantic: try GoogleTakeoutReader.readSemantic(&r, into: &s)
                default: try GeoJSONTrackReader.read(&r, into: &s)
                }
            }
        }
        return (try sink.finish(), detected)
    }

    private static func json(
        _ source: ByteSource, _ sink: inout LocationHistorySink, _ name: String,
        _ body: (inout FeatureCollectionReader, inout LocationHistorySink) throws -> Void
    ) throws(ImportError) {
        var reader = FeatureCollectionReader(source)
        do { try body(&reader, &sink) } catch let e as StrictJSONParser.SyntaxError {
            throw .badFile(RowError(file: name, location: "byte \(e.offset)", column: "json", reason: e.reason))
        } catch let e as ImportError {
            throw e
        } catch {
            throw .badFile(RowError(file: name, line: 1, column: "document", reason: "\(error)"))
        }
    }
}
