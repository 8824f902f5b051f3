import Foundation

/// How to read an expense file that is not in GeoSpend's own format: a preset, or a column
/// mapping with its delimiter and encoding, and the value conversions (`import expenses`'
/// options). The default reads GeoSpend's own CSV or JSON Lines.
public struct ExpenseSource: Sendable {
    public var preset: ImportPreset?
    /// Field → the file's column (`--map FIELD=COLUMN`).
    public var mapping: [String: String] = [:]
    /// nil: the preset's, else `,`.
    public var delimiter: UInt8?
    public var encoding: SourceEncoding = .utf8
    public var conversions = ValueConversions()
    /// `--where`: rows not kept are left out and counted.
    public var filters: [RowFilter] = []
    /// `--skip-lines N`: the header is the first row after line N.
    public var skipLines: Int?
    /// Told what the reader decided on its own (the line taken as the header), for stderr.
    public var notice: (@Sendable (String) -> Void)?

    public init() {}

    /// The fields `--map` may name: the canonical ones, and two amount columns of which
    /// `outflow` makes an expense and `inflow` an income.
    public static let fields = ExpenseRecord.fields + ["outflow", "inflow"]

    /// The field `name` probably means (`lng` → `lon`), for a usage error.
    public static func suggestedField(for name: String) -> String? {
        ColumnSuggestion.field(for: name, among: fields)
    }

    /// Nothing but GeoSpend's own format: no option changes how a file is read.
    var isPlain: Bool {
        preset == nil && mapping.isEmpty && delimiter == nil && encoding == .utf8 && !conversions.decimalComma
            && conversions.dateFormat == nil && conversions.timeZone == nil && conversions.currency == nil
            && conversions.user == nil && conversions.valueMaps.isEmpty && filters.isEmpty && skipLines == nil
    }

    /// The `--date-format` text, handed to the statement readers (QIF's date order).
    var dateFormatText: String? { conversions.dateFormat?.description }

    /// The conversions in effect, one phrase each, for the dry run.
    func describedConversions(format: String, delimiter: UInt8?) -> [String] {
        var lines = ["format: \(format)"]
        if let delimiter {
            let shown = delimiter == UInt8(ascii: "\t") ? "tab" : "'\(Character(Unicode.Scalar(delimiter)))'"
            lines.append("delimiter: \(shown)")
            lines.append("encoding: \(encoding == .utf8 ? "UTF-8" : encoding == .latin1 ? "Latin-1 (ISO 8859-1)" : "UTF-16")")
        }
        if conversions.decimalComma { lines.append("amounts: decimal comma, '.' groups thousands") }
        if let f = conversions.dateFormat { lines.append("dates: \(f.description)") }
        if let z = conversions.timeZone { lines.append("local times: in \(z.identifier), offset by the date") }
        if let c = conversions.currency { lines.append("currency when the file has none: \(c)") }
        if let u = conversions.user { lines.append("user: \(u)") }
        for (field, map) in conversions.valueMaps.sorted(by: { $0.key < $1.key }) {
            for (from, to) in map.sorted(by: { $0.key < $1.key }) { lines.append("\(field): \(from) → \(to)") }
        }
        if !filters.isEmpty { lines.append("rows kept: " + filters.map(\.description).joined(separator: ", ")) }
        if let n = skipLines { lines.append("header: after the first \(n) lines") }
        if let p = preset, p.statementFormat != nil || [.fireflyIII, .monzo, .wise].contains(p) {
            let own = p == .wise ? "<TransferWise ID>/<Currency>" : "<the file's own id>"
            lines.append("ids: <user>/\(p.statementFormat?.idPrefix ?? p.rawValue)/\(own)")
        }
        return lines
    }
}
