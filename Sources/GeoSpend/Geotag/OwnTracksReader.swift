/// Reads OwnTracks, written from the OwnTracks booklet (owntracks.org/booklet, "JSON" and
/// "Recorder" chapters; Data/README.md § Location history):
///
/// - the recorder's `.rec` files: lines `TIMESTAMP<TAB>*<spaces><TAB>{json}` (the middle field
///   is the topic's tail or `*`), one message per line;
/// - plain JSON: one `{"_type": "location", …}` object, or an array of them.
///
/// A `location` message gives `lat`, `lon`, `tst` (epoch seconds) and, when known, `acc`
/// (metres); other `_type`s (`transition`, `waypoint`, `lwt`, …) are skipped.
enum OwnTracksReader {
    static func location(_ value: JSONValue, into sink: inout LocationHistorySink) throws(FieldError) {
        guard case .object = value else { throw FieldError(column: "message", reason: "is \(value.typeName), not an object") }
        guard LocationValues.string(value["_type"]) == "location" else { return }
        guard let lat = try LocationValues.number(value["lat"], column: "lat") else { throw FieldError(column: "lat", reason: "is missing") }
        guard let lon = try LocationValues.number(value["lon"], column: "lon") else { throw FieldError(column: "lon", reason: "is missing") }
        let c = try LocationValues.checked(latitude: lat, longitude: lon, column: "lat")
        let ms = try LocationValues.instant(value["tst"], column: "tst", seconds: true)
        sink.position(ms, c, accuracy: try LocationValues.accuracy(value["acc"], column: "acc"))
    }

    static func readJSON(_ reader: inout FeatureCollectionReader, into sink: inout LocationHistorySink) throws {
        let members = try reader.readArrays(named: []) { _, value, index in
            sink.record(at: "[\(index)]") { (s) throws(FieldError) in try location(value, into: &s) }
        }
        if !members.isEmpty {
            sink.record(at: "document") { (s) throws(FieldError) in try location(.object(members), into: &s) }
        }
    }

    /// The `.rec` lines, streamed. A line that is not three tab-separated fields ending in a
    /// JSON object is an error at its line.
    static func readRecorder(_ source: ByteSource, into sink: inout LocationHistorySink) {
        var line = 0
        var bytes: [UInt8] = []
        var done = false
        while !done {
            bytes.removeAll(keepingCapacity: true)
            while true {
                guard let b = source.next() else { done = true; break }
                if b == UInt8(ascii: "\n") { break }
                bytes.append(b)
                if bytes.count > FeatureCollectionReader.maximumValueBytes { break }
            }
            line += 1
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            sink.record(at: String(line)) { (s) throws(FieldError) in
                guard let brace = bytes.firstIndex(of: UInt8(ascii: "{")),
                    bytes[..<brace].contains(0x09)
                else { throw FieldError(column: "row", reason: "is not a recorder line (TIMESTAMP, tab, topic, tab, JSON)") }
                if bytes.count > FeatureCollectionReader.maximumValueBytes {
                    throw FieldError(column: "row", reason: "is longer than 16 MiB")
                }
                let parsed = Result { () throws(StrictJSONParser.SyntaxError) in try StrictJSONParser.parse(Array(bytes[brace...])) }
                let value: JSONValue
                switch parsed {
                case .success(let v): value = v
                case .failure(let e): throw FieldError(column: "json", reason: "at byte \(brace + e.offset): \(e.reason)")
                }
                try location(value, into: &s)
            }
        }
    }
}
