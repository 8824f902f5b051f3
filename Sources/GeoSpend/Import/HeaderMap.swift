/// The columns a CSV header named, by position, checked against the known set.
struct HeaderMap {
    let names: [String]
    private let indexByName: [String: Int]

    /// - Throws: `ImportError.badFile` at line `line` for a duplicate, unknown or missing
    ///   column, `.badHeader` with every problem when there are several.
    init(header: [String], known: [String], required: [String], file: String, line: Int) throws(ImportError) {
        var index: [String: Int] = [:]
        var errors: [RowError] = []
        for (i, raw) in header.enumerated() {
            let name = raw.trimmingSpaces()
            guard !name.isEmpty else {
                errors.append(RowError(file: file, line: line, column: "column \(i + 1)", reason: "the header has an empty column name"))
                continue
            }
            guard known.contains(name) else {
                let reason = ColumnSuggestion.field(for: name, among: known).map { "unknown column — did you mean \"\($0)\"?" }
                    ?? "unknown column; known columns are \(known.joined(separator: ", "))"
                errors.append(RowError(file: file, line: line, column: RowError.columnName(name), reason: reason))
                continue
            }
            guard index[name] == nil else {
                errors.append(RowError(file: file, line: line, column: name, reason: "the header names this column twice"))
                continue
            }
            index[name] = i
        }
        for name in required where index[name] == nil && !header.contains(where: { $0.trimmingSpaces() == name }) {
            errors.append(RowError(file: file, line: line, column: name, reason: "required column is missing from the header"))
        }
        if errors.count == 1 { throw .badFile(errors[0]) }
        if errors.count > 1 { throw .badHeader(errors) }
        names = header.map { $0.trimmingSpaces() }
        indexByName = index
    }

    func index(of name: String) -> Int? { indexByName[name] }
}
