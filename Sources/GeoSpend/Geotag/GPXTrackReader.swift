/// Reads the timed points of a GPX 1.0/1.1 file (track points `trkpt`, route points `rtept`,
/// waypoints `wpt`), written from the GPX 1.1 schema documentation (topografix.com/GPX/1/1).
/// Points without `<time>` are skipped: a position without an instant is no evidence of when.
/// Accuracy: none in GPX 1.1; `hdop` × 5 m when present (a common rule of thumb, rough).
///
/// Parsed whole through `MarkupParser` (the statement readers' XML tokenizer): memory grows
/// with the file, a GPX track of a day is small.
enum GPXTrackReader {
    static func read(path: String, into sink: inout LocationHistorySink) throws(ImportError) {
        let bytes = try StatementText.read(path: path)
        let text = try StatementText.decode(bytes, .utf8, file: sink.file)
        let root = try StatementReaders.parseMarkup(text, sgml: false, file: sink.file)
        guard let gpx = root.child("gpx") else {
            throw .badFile(RowError(file: sink.file, line: 1, column: "document", reason: "is not a GPX file (no <gpx> element)"))
        }
        for name in ["wpt", "trkpt", "rtept"] {
            for point in gpx.descendants(name) {
                guard let time = point.value("time") else { continue }
                sink.record(at: String(point.line)) { (s) throws(FieldError) in
                    guard let latText = point.attributes["lat"], let lat = Double(latText) else {
                        throw FieldError(column: "lat", reason: "is missing or not a number")
                    }
                    guard let lonText = point.attributes["lon"], let lon = Double(lonText) else {
                        throw FieldError(column: "lon", reason: "is missing or not a number")
                    }
                    let c = try LocationValues.checked(latitude: lat, longitude: lon, column: "lat")
                    let ms = try LocationValues.instant(text: time, column: "time")
                    var accuracy: Double?
                    if let h = point.value("hdop") {
                        guard let hdop = Double(h), hdop >= 0, hdop < 1000 else { throw FieldError(column: "hdop", reason: "is not a number: \(h.prefix(20))") }
                        accuracy = hdop * 5
                    }
                    s.position(ms, c, accuracy: accuracy)
                }
            }
        }
    }
}
