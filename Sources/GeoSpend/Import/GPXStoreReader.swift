extension RecordReaders {
    /// The waypoints (`<wpt lat=… lon=…>`) of a GPX 1.0 or 1.1 file as stores, each located at
    /// its line. Routes and tracks are not places and are skipped.
    ///
    /// `name` → name; `type` (else `sym`) → kind, as written (`amenity:cafe` matches the kinds
    /// OpenStreetMap imports give); `desc` and `cmt` have no store column and are ignored. GPX
    /// has no ids: each waypoint gets one derived from its name and position
    /// (`DerivedStoreID`), so re-importing the file changes nothing. Described in the GPX 1.1
    /// schema documentation (topografix.com/GPX/1/1).
    static func gpxStores(
        path: String, displayName: String, body: (Result<(store: Store, location: String), RowError>) throws -> Void
    ) throws -> Int64 {
        let bytes = try StatementText.read(path: path)
        let prolog = String(decoding: bytes.prefix(200), as: UTF8.self)
        var charset = StatementText.Charset.utf8
        if let declared = OFXReader.xmlEncoding(String(prolog.drop { $0 != "<" })) {
            guard let c = StatementText.Charset(declared: declared) else {
                throw ImportError.badFile(RowError(file: displayName, line: 1, column: "document", reason: "encoding \"\(declared)\" is not one GeoSpend reads (UTF-8, ISO-8859-1, windows-1252)"))
            }
            charset = c
        }
        let text = try StatementText.decode(bytes, charset, file: displayName)
        let root = try StatementReaders.parseMarkup(text, sgml: false, file: displayName)
        guard let gpx = root.child("gpx") else {
            throw ImportError.badFile(RowError(file: displayName, line: 1, column: "document", reason: "is not a GPX file (no <gpx> element)"))
        }
        var derived = DerivedStoreID()
        for wpt in gpx.children("wpt") {
            let location = String(wpt.line)
            var fields: [String: RawRecord.RawValue] = [:]
            fields["lat"] = wpt.attributes["lat"].map { .text($0) }
            fields["lon"] = wpt.attributes["lon"].map { .text($0) }
            fields["name"] = wpt.value("name").map { .text($0) }
            fields["kind"] = (wpt.value("type") ?? wpt.value("sym")).map { .text($0) }
            let record0 = RawRecord(location: location) { fields[$0] }
            do {
                guard let coordinate = try parseCoordinate(record0, latitude: "lat", longitude: "lon") else {
                    throw FieldError(column: "lat", reason: "is missing; a waypoint needs lat and lon attributes")
                }
                fields["id"] = .text(derived.next(name: wpt.value("name"), coordinate: coordinate))
                let record = RawRecord(location: location) { fields[$0] }
                try body(.success((try StoreRecord.parse(record, coordinate: coordinate, nameRequired: false), location)))
            } catch let e as FieldError {
                try body(.failure(RowError(file: displayName, location: location, column: e.column, reason: e.reason)))
            }
        }
        return Int64(bytes.count)
    }
}
