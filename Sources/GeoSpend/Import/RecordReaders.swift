/// Reads import files into raw records, one format each, reporting syntax errors by location.
enum RecordReaders {
    /// CSV with a header row. Each data row becomes a `RawRecord`, or a `RowError` (syntax,
    /// ragged row). The header is checked against `known`/`required` before any row is read.
    static func csv(
        path: String, displayName: String, known: [String], required: [String],
        body: (Result<RawRecord, RowError>) throws -> Void
    ) throws -> Int64 {
        var header: HeaderMap?
        return try delimited(
            path: path, displayName: displayName,
            header: { fields, line in
                header = try HeaderMap(header: fields, known: known, required: required, file: displayName, line: line)
            },
            body: { row in
                let columns = header!
                try body(row.map { fields, line in
                    RawRecord(location: String(line)) { name in columns.index(of: name).map { .text(fields[$0]) } }
                })
            })
    }

    /// A delimited file with a header row: `header` sees the header's fields and line (and
    /// throws to refuse it), `body` each data row's fields and line, or a `RowError` (syntax,
    /// ragged row) located by the header's column names. Files in another `encoding` are
    /// read converted to UTF-8.
    static func delimited(
        path: String, displayName: String, delimiter: UInt8 = UInt8(ascii: ","), encoding: SourceEncoding = .utf8,
        header: ([String], Int) throws -> Void,
        body: (Result<(fields: [String], line: Int), RowError>) throws -> Void
    ) throws -> Int64 {
        let reader: CSVReader
        if let converted = try encoding.utf8Bytes(path: path, displayName: displayName) {
            reader = CSVReader(bytes: converted, delimiter: delimiter)
        } else {
            try TextEncoding.requireUTF8(path: path, displayName: displayName, readsUTF16: true)
            reader = try CSVReader(path: path, delimiter: delimiter)
        }
        guard let first = reader.next() else {
            throw ImportError.badFile(RowError(file: displayName, line: 1, column: "header", reason: "the file is empty; expected a header row"))
        }
        let headerRow: CSVReader.Row
        switch first {
        case .success(let row): headerRow = row
        case .failure(let e):
            throw ImportError.badFile(RowError(file: displayName, line: e.line, column: "header", reason: e.reason))
        }
        try header(headerRow.fields, headerRow.line)
        let names = headerRow.fields.map { $0.trimmingSpaces() }
        while let next = reader.next() {
            switch next {
            case .failure(let e):
                let column = e.fieldIndex < names.count ? names[e.fieldIndex] : "column \(e.fieldIndex + 1)"
                try body(.failure(RowError(file: displayName, line: e.line, column: column, reason: e.reason)))
                if e.isFatal { return reader.bytesRead }
            case .success(let row):
                guard row.fields.count == names.count else {
                    try body(.failure(RowError(
                        file: displayName, line: row.line, column: "row",
                        reason: "has \(row.fields.count) field\(row.fields.count == 1 ? "" : "s") but the header has \(names.count)")))
                    continue
                }
                try body(.success((row.fields, row.line)))
            }
        }
        return reader.bytesRead
    }

    /// JSON Lines: one JSON object per line, keys from `known` (unknown keys are errors).
    static func jsonLines(
        path: String, displayName: String, known: [String],
        body: (Result<RawRecord, RowError>) throws -> Void
    ) throws -> Int64 {
        let source = try ByteSource(path: path)
        try TextEncoding.requireUTF8(source.peek(4), file: displayName)
        var line = 0
        var bytes: [UInt8] = []
        var oversize = false
        var sawNUL = false
        func flush() throws {
            defer { bytes.removeAll(keepingCapacity: true); oversize = false; sawNUL = false }
            if line == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            func fail(_ column: String, _ reason: String) throws {
                try body(.failure(RowError(file: displayName, line: line, column: column, reason: reason)))
            }
            if oversize { return try fail("row", "the line is longer than 1 MiB") }
            if sawNUL { return try fail("row", "contains a NUL byte") }
            let value: JSONValue
            do { value = try StrictJSONParser.parse(bytes) } catch {
                return try fail("row", "is not valid JSON at byte \(error.offset): \(error.reason)")
            }
            guard case .object(let members) = value else {
                return try fail("row", "is \(value.typeName); each line must be one JSON object")
            }
            var fields: [String: RawRecord.RawValue] = [:]
            for (key, v) in members {
                guard known.contains(key) else {
                    return try fail(RowError.columnName(key), "unknown key; known keys are \(known.joined(separator: ", "))")
                }
                switch v {
                case .null: break
                case .string(let s): fields[key] = .text(s)
                case .number(let n): fields[key] = .number(n)
                default: fields[key] = .invalid(v.typeName)
                }
            }
            try body(.success(RawRecord(location: String(line)) { fields[$0] }))
        }
        // Whole chunks scanned for line ends, each line's bytes appended at once (a call and an
        // append per byte made the reader, not the parser, most of a JSON Lines import).
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBufferPointer { source.fill($0) }
            if n == 0 { break }
            var start = 0
            while start < n {
                let (stop, newline, nul) = chunk.withUnsafeBufferPointer { c -> (Int, Bool, Bool) in
                    var i = start, nul = false
                    while i < n {
                        let b = c[i]
                        if b == UInt8(ascii: "\n") { return (i, true, nul) }
                        if b == 0 { nul = true }
                        i += 1
                    }
                    return (n, false, nul)
                }
                if nul { sawNUL = true }
                let room = (1 << 20) - bytes.count
                if stop - start > room { oversize = true }
                bytes.append(contentsOf: chunk[start..<(start + min(room, stop - start))])
                start = stop
                if newline {
                    start += 1
                    line += 1
                    try flush()
                }
            }
        }
        if !bytes.isEmpty {
            line += 1
            try flush()
        }
        return source.bytesRead
    }

    /// A GeoJSON FeatureCollection of Point features; each feature's properties become a record
    /// located as `feature N`, with its geometry's coordinate and `id`.
    static func geoJSONStores(
        path: String, displayName: String, body: (Result<(store: Store, location: String), RowError>) throws -> Void
    ) throws -> Int64 {
        let source = try ByteSource(path: path)
        try TextEncoding.requireUTF8(source.peek(4), file: displayName)
        func bad(_ reason: String) -> ImportError {
            .badFile(RowError(file: displayName, location: "1", column: "document", reason: reason))
        }
        /// One feature: a store, or an error located at the feature.
        func storeOf(_ feature: JSONValue, _ n: Int) throws {
            let location = "feature \(n + 1)"
            func fail(_ column: String, _ reason: String) throws {
                try body(.failure(RowError(file: displayName, location: location, column: column, reason: reason)))
            }
            guard feature["type"] == .string("Feature") else { return try fail("type", "is not a GeoJSON Feature") }
            guard case .object(let geometry)? = feature["geometry"],
                geometry.first(where: { $0.key == "type" })?.value == .string("Point"),
                case .array(let position)? = geometry.first(where: { $0.key == "coordinates" })?.value
            else { return try fail("geometry", "is not a Point; stores are points") }
            guard position.count == 2 || position.count == 3, case .number(let lonText) = position[0],
                case .number(let latText) = position[1]
            else { return try fail("geometry", "coordinates must be [longitude, latitude]") }
            var idText: String?
            switch feature["id"] {
            case .string(let s)?: idText = s
            case .number(let s)?: idText = s
            case nil, .null?: break
            case let other?: return try fail("id", "must be a string or number, not \(other.typeName)")
            }
            var properties: [String: RawRecord.RawValue] = [:]
            if case .object(let members)? = feature["properties"] {
                for (key, v) in members {
                    switch v {
                    case .string(let s): properties[key] = .text(s)
                    case .number(let s): properties[key] = .number(s)
                    // A known column given as an object, array or boolean is an error at that
                    // column, not a missing value (an object id read as "is empty").
                    case .null: break
                    default: if StoreRecord.columns.contains(key) { properties[key] = .invalid(v.typeName) }
                    }
                }
            }
            if idText == nil, case .text(let s)? = properties["id"] { idText = s }
            if let idText { properties["id"] = .text(idText) }
            properties["lat"] = .number(latText)
            properties["lon"] = .number(lonText)
            var sourceID: String?
            if case .number(let osm)? = properties["osm_id"] { sourceID = "osm:node/\(osm)" }
            let record = RawRecord(location: location) { properties[$0] }
            do {
                try body(.success((try StoreRecord.parse(record, sourceID: sourceID, nameRequired: false), location)))
            } catch let e as FieldError {
                try fail(e.column, e.reason)
            }
        }
        var reader = FeatureCollectionReader(source)
        let document: FeatureCollectionReader.Document
        do { document = try reader.read(storeOf) } catch let error as StrictJSONParser.SyntaxError {
            throw bad("is not valid JSON at byte \(error.offset): \(error.reason)")
        }
        guard document.type == .string("FeatureCollection"), document.hasFeatureArray else {
            throw bad("is not a GeoJSON FeatureCollection (expected \"type\": \"FeatureCollection\" and a \"features\" array)")
        }
        return source.bytesRead
    }
}
