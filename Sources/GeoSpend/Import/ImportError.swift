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

    public var description: String { message(.commandLine) }

    /// The refusal in a caller's words: which name the input goes by and how the good rows
    /// are asked for (`--skip-invalid`, or the service's query parameter).
    public func message(_ wording: ImportWording) -> String {
        func line(_ e: RowError) -> String {
            guard let name = wording.input else { return e.description }
            return "\(name):\(e.location): \(e.column): \(e.reason)"
        }
        switch self {
        case .unreadable(let file, let reason): return "\(wording.input ?? file): cannot read: \(reason)"
        case .badFile(let e): return line(e)
        case .badHeader(let errors): return errors.map(line).joined(separator: "\n")
        case .rejected(let errors, let badRows):
            var lines = errors.map(line)
            if badRows > errors.count { lines.append("… and \(badRows - errors.count) more bad rows") }
            if badRows >= ImportOptions.maximumListedErrors && badRows == errors.count {
                lines.append("stopped after \(badRows) bad rows; fix these and run again")
            }
            lines.append("import rejected: \(badRows) bad row\(badRows == 1 ? "" : "s"), \(wording.nothingWritten) (\(wording.skipInvalid))")
            return lines.joined(separator: "\n")
        }
    }
}

/// The words an import refusal is given in where it is read.
public struct ImportWording: Sendable {
    /// The input's name in place of each error's file (nil: the file's own path).
    public var input: String?
    public var nothingWritten: String
    /// How to import the good rows only.
    public var skipInvalid: String

    public init(input: String?, nothingWritten: String, skipInvalid: String) {
        self.input = input
        self.nothingWritten = nothingWritten
        self.skipInvalid = skipInvalid
    }

    /// `geospend import`'s words.
    public static let commandLine = ImportWording(
        input: nil, nothingWritten: "nothing was written", skipInvalid: "use --skip-invalid to import the good rows")
}
