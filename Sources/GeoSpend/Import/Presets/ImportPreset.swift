/// A known export format `import expenses --preset NAME` reads: two delimited exports of
/// personal-finance apps, read through `ExpenseMapping`, and three bank-statement formats,
/// read by `StatementReaders`.
public enum ImportPreset: String, Sendable, CaseIterable {
    case fireflyIII = "firefly-iii"
    case ezbookkeeping
    case ofx, qif, camt053

    /// The statement format, for the presets that are not delimited files.
    public var statementFormat: StatementFormat? {
        switch self {
        case .ofx: return .ofx
        case .qif: return .qif
        case .camt053: return .camt053
        case .fireflyIII, .ezbookkeeping: return nil
        }
    }

    /// The preset's reader of delimited rows.
    var delimited: (any DelimitedPreset)? {
        switch self {
        case .fireflyIII: return FireflyIIIPreset()
        case .ezbookkeeping: return EzBookkeepingPreset()
        case .ofx, .qif, .camt053: return nil
        }
    }

    /// The preset a file imported without one looks like: by extension for the statements,
    /// by a few columns only that app's export has for the delimited ones. Nil for anything else.
    static func recognised(path: String, header: [String]? = nil) -> ImportPreset? {
        let lower = path.lowercased()
        if lower.hasSuffix(".ofx") || lower.hasSuffix(".qfx") { return .ofx }
        if lower.hasSuffix(".qif") { return .qif }
        if lower.hasSuffix(".xml") { return .camt053 }
        guard let header else { return nil }
        let names = Set(header.map { $0.trimmingSpaces() })
        if names.isSuperset(of: ["journal_id", "destination_name", "currency_code"]) { return .fireflyIII }
        if names.isSuperset(of: ["Time", "Timezone", "Sub Category", "Account2 Amount"]) { return .ezbookkeeping }
        return nil
    }

    /// One line for a file that is a known export read without its preset.
    static func hint(_ preset: ImportPreset, file: String) -> RowError {
        let what = switch preset {
        case .fireflyIII: "a Firefly III export"
        case .ezbookkeeping: "an ezBookkeeping export"
        case .ofx: "an OFX bank statement"
        case .qif: "a QIF file"
        case .camt053: "a camt.053 bank statement (XML)"
        }
        let currency = preset == .qif ? " --currency CODE" : ""
        return RowError(file: file, line: 1, column: "file", reason: "looks like \(what): add --preset \(preset.rawValue) --user USER\(currency)")
    }
}

