/// One rejected row: where it is and why, printed as `FILE:LINE: COLUMN: reason`.
public struct RowError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    /// The 1-based line the record starts on (CSV, JSON Lines), or the feature's 1-based index
    /// in a GeoJSON FeatureCollection, written `feature N`.
    public let location: String
    /// The column or property at fault (`amount`, `lat`, …), or `row` for the record as a whole.
    public let column: String
    public let reason: String

    public init(file: String, line: Int, column: String, reason: String) {
        self.init(file: file, location: String(line), column: column, reason: reason)
    }

    public init(file: String, location: String, column: String, reason: String) {
        self.file = file
        self.location = location
        self.column = column
        self.reason = reason
    }

    public var description: String { "\(file):\(location): \(column): \(reason)" }

    /// An unknown column or key from the input as the column of an error: as it is when it
    /// reads as a name, else quoted and cut (an empty name, a control character or a 1 MiB
    /// key would garble the message; found by the `csv` and `jsonl` fuzz targets).
    static func columnName(_ name: String) -> String {
        let plain = !name.isEmpty && name.count <= 60
            && name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "\"" && !OutputEscaping.isInvisible($0) }
        return plain ? name : ValueError.quote(name)
    }
}

/// Why an import did not happen (or happened only in part).
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(file: String, reason: String)
    /// The header or overall structure is wrong; no row was read.
    case badFile(RowError)
    /// The header has several problems (unknown, missing, duplicate columns), all listed;
    /// no row was read. A single problem is `badFile`.
    case badHeader([RowError])
    /// Some rows were bad, so nothing was written (the default, all-or-nothing).
    /// `errors` lists the first `ImportOptions.maximumListedErrors`; `badRows` counts them all.
    /// Reading stops at the `maximumListedErrors`th bad row (unless skipping): then
    /// `badRows == errors.count` and the message says it stopped.
    case rejected(errors: [RowError], badRows: Int)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): return "\(file): cannot read: \(reason)"
        case .badFile(let e): return e.description
        case .badHeader(let errors): return errors.map(\.description).joined(separator: "\n")
        case .rejected(let errors, let badRows):
            var lines = errors.map(\.description)
            if badRows > errors.count { lines.append("… and \(badRows - errors.count) more bad rows") }
            if badRows >= ImportOptions.maximumListedErrors && badRows == errors.count {
                lines.append("stopped after \(badRows) bad rows; fix these and run again")
            }
            lines.append(
                "import rejected: \(badRows) bad row\(badRows == 1 ? "" : "s"), nothing was written (use --skip-invalid to import the good rows)")
            return lines.joined(separator: "\n")
        }
    }
}
