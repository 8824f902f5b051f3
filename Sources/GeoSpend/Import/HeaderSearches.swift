/// Where the header of an expense file is when it may not be the first line: after
/// `--skip-lines N`; else, for exports that put account information above it (DKB, ING, or a
/// `--map`ped bank file), the first row holding every column the preset requires or the
/// options name. A mapped file whose lines hold no such row is read from the line holding most
/// of them (else its first line), so the header errors name the missing columns and the
/// nearest ones.
enum HeaderSearches {
    static func expenses(preset: (any DelimitedPreset)?, mapping: ExpenseMapping, skipLines: Int?) -> RecordReaders.HeaderSearch? {
        if let skipLines {
            return RecordReaders.HeaderSearch(
                matches: { _, line in line > skipLines },
                expected: "a header after line \(skipLines) (--skip-lines)")
        }
        if let preset, preset.headerMayFollowPreamble {
            return RecordReaders.HeaderSearch(
                matches: { fields, _ in Set(fields.map { $0.trimmingSpaces() }).isSuperset(of: preset.requiredColumns) },
                expected: "a \(preset.name) export (\(preset.requiredColumns.joined(separator: ", ")))")
        }
        guard preset == nil, case .mapped = mapping.layout else { return nil }
        let named = mapping.namedColumns
        return RecordReaders.HeaderSearch(
            matches: { fields, _ in Set(fields.map { $0.trimmingSpaces() }).isSuperset(of: named) },
            expected: "the columns of --map and --where",
            closest: { fields in named.intersection(fields.map { $0.trimmingSpaces() }).count })
    }
}
