/// Reads `time,lat,lon[,accuracy]` CSV with a header (RFC 4180 through `CSVReader`), column
/// names matched case-insensitively: `time`/`timestamp`/`date`, `lat`/`latitude`,
/// `lon`/`lng`/`longitude`, `accuracy`/`accuracy_m`. A time is RFC 3339 with an offset, or a
/// whole number of epoch seconds (below 1e11) or milliseconds.
enum PositionCSVReader {
    static func read(path: String, into sink: inout LocationHistorySink) throws(ImportError) {
        let reader = try CSVReader(path: path)
        guard let first = reader.next() else { return }
        let header: [String]
        switch first {
        case .success(let row): header = row.fields.map { $0.lowercased().trimmingCharacters(in: " ") }
        case .failure(let e): throw .badFile(RowError(file: sink.file, line: e.line, column: "header", reason: e.reason))
        }
        func column(_ names: [String]) -> Int? { header.firstIndex { names.contains($0) } }
        guard let t = column(["time", "timestamp", "date", "datetime"]), let la = column(["lat", "latitude"]),
            let lo = column(["lon", "lng", "long", "longitude"])
        else {
            throw .badFile(RowError(file: sink.file, line: 1, column: "header", reason: "needs time, lat and lon columns"))
        }
        let acc = column(["accuracy", "accuracy_m", "acc"])
        while let next = reader.next() {
            switch next {
            case .failure(let e):
                sink.record(at: String(e.line)) { (_) throws(FieldError) in throw FieldError(column: "row", reason: e.reason) }
                if e.isFatal { return }
            case .success(let row):
                sink.record(at: String(row.line)) { (s) throws(FieldError) in
                    func field(_ i: Int, _ name: String) throws(FieldError) -> String {
                        guard i < row.fields.count, !row.fields[i].isEmpty else { throw FieldError(column: name, reason: "is missing") }
                        return row.fields[i]
                    }
                    let timeText = try field(t, header[t])
                    let ms: Int64
                    if let n = Int64(timeText) {
                        ms = try LocationValues.epoch(n, seconds: n.magnitude < 100_000_000_000, column: header[t])
                    } else {
                        ms = try LocationValues.instant(text: timeText, column: header[t])
                    }
                    guard let lat = Double(try field(la, header[la])), lat.isFinite else { throw FieldError(column: header[la], reason: "is not a number") }
                    guard let lon = Double(try field(lo, header[lo])), lon.isFinite else { throw FieldError(column: header[lo], reason: "is not a number") }
                    let c = try LocationValues.checked(latitude: lat, longitude: lon, column: header[la])
                    var accuracy: Double?
                    if let acc, acc < row.fields.count, !row.fields[acc].isEmpty {
                        accuracy = try LocationValues.accuracy(.string(row.fields[acc]), column: header[acc])
                    }
                    s.position(ms, c, accuracy: accuracy)
                }
            }
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
