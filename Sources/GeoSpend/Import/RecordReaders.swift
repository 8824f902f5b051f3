/// Reads import files into raw records, one format each, reporting syntax errors by location.
enum RecordReaders {
    /// How `delimited` finds a header below lines of account information: the first row
    /// `matches` accepts (given its fields and line); `expected` names the export for the error
    /// when no row does, or with `closest` the row it scores highest (else the first) is the
    /// header after all, so `--map`'s checks name the columns it lacks.
    struct HeaderSearch {
        let matches: ([String], Int) -> Bool
        let expected: String
        var closest: (([String]) -> Int)?
    }

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
    /// read converted to UTF-8. With `headerSearch` the header is the first row it matches and
    /// the lines above it are skipped (a bank's account information).
    static func delimited(
        path: String, displayName: String, delimiter: UInt8 = UInt8(ascii: ","), encoding: SourceEncoding = .utf8,
        headerSearch: HeaderSearch? = nil, suggestsDelimiterOption: Bool = false,
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
        reader.suggestsDelimiterOption = suggestsDelimiterOption
        guard let first = reader.next() else {
            throw ImportError.badFile(RowError(file: displayName, line: 1, column: "header", reason: "the file is empty; expected a header row"))
        }
        var headerRow: CSVReader.Row
        var firstError: RowError?
        switch first {
        case .success(let row): headerRow = row
        case .failure(let e):
            let error = RowError(file: displayName, line: e.line, column: "header", reason: e.reason)
            guard headerSearch != nil else { throw ImportError.badFile(error) }
            firstError = error
            headerRow = CSVReader.Row(line: e.line, fields: [])  // a line of the preamble; searched below
        }
        if let headerSearch, !headerSearch.matches(headerRow.fields, headerRow.line) {
            // Lines of account information above the header: read on to the first that is one.
            var found: CSVReader.Row?
            var best = (score: headerSearch.closest?(headerRow.fields) ?? 0, line: headerRow.line)
            while found == nil, let next = reader.next() {
                guard case .success(let row) = next else { continue }
                if headerSearch.matches(row.fields, row.line) { found = row }
                if let score = headerSearch.closest?(row.fields), score > best.score { best = (score, row.line) }
            }
            if found == nil, headerSearch.closest != nil {
                // No full header: the closest line is the header after all, or the first line's
                // syntax error (a file in another delimiter) is the problem to name.
                if let firstError, best.score == 0 { throw ImportError.badFile(firstError) }
                let line = best.line
                let search = line == headerRow.line ? nil : HeaderSearch(matches: { $1 == line }, expected: headerSearch.expected)
                return try delimited(
                    path: path, displayName: displayName, delimiter: delimiter, encoding: encoding, headerSearch: search,
                    suggestsDelimiterOption: suggestsDelimiterOption, header: header, body: body)
            }
            guard let found else {
                throw ImportError.badFile(RowError(
                    file: displayName, line: 1, column: "header",
                    reason: "no line holds the header of \(headerSearch.expected)"))
            }
            headerRow = found
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

    /// JSON Lines: one JSON object per line, keys from `known` (unknown keys are errors; with
    /// `known` nil every key is read: a foreign export's columns we do not use).
    static func jsonLines(
        path: String, displayName: String, known: [String]?,
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
                if let known, !known.contains(key) {
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
}
