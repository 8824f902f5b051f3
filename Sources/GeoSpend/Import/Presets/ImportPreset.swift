import Foundation

/// A known export format `import expenses --preset NAME` reads: delimited exports of
/// personal-finance apps and banks, read through `ExpenseMapping`, and bank-statement
/// formats, read by `StatementReaders`.
public enum ImportPreset: String, Sendable, CaseIterable {
    case fireflyIII = "firefly-iii"
    case ezbookkeeping
    case revolut, n26, monzo, wise, dkb, ing, sparkasse, ynab, actual
    /// MONO's Core Data transactions (the budget seed), CSV or JSON.
    case mono
    case ofx, qif, camt053, mt940
    case monzoAPI = "monzo-api"

    /// The statement format, for the presets that are not delimited files.
    public var statementFormat: StatementFormat? {
        switch self {
        case .ofx: return .ofx
        case .qif: return .qif
        case .camt053: return .camt053
        case .mt940: return .mt940
        case .monzoAPI: return .monzoAPI
        case .fireflyIII, .ezbookkeeping, .revolut, .n26, .monzo, .wise, .dkb, .ing, .sparkasse, .ynab, .actual, .mono: return nil
        }
    }

    /// The preset's reader of delimited rows.
    var delimited: (any DelimitedPreset)? {
        switch self {
        case .fireflyIII: return FireflyIIIPreset()
        case .ezbookkeeping: return EzBookkeepingPreset()
        case .revolut: return RevolutPreset()
        case .n26: return N26Preset()
        case .monzo: return MonzoPreset()
        case .wise: return WisePreset()
        case .dkb: return DKBPreset()
        case .ing: return INGPreset()
        case .sparkasse: return SparkassePreset()
        case .ynab: return YNABPreset()
        case .actual: return ActualPreset()
        case .mono: return MonoPreset()
        case .ofx, .qif, .camt053, .mt940, .monzoAPI: return nil
        }
    }

    /// The file names no currency: `--currency` is required.
    public var needsCurrency: Bool { [.qif, .ynab, .actual, .mono].contains(self) }

    /// The columns only this app's or bank's export has together, to recognise it by.
    var signature: Set<String> {
        switch self {
        case .fireflyIII: return ["journal_id", "destination_name", "currency_code"]
        case .ezbookkeeping: return ["Time", "Timezone", "Sub Category", "Account2 Amount"]
        case .revolut: return ["Type", "Product", "Started Date", "Completed Date", "State"]
        case .n26: return ["Booking Date", "Partner Name", "Amount (EUR)"]
        case .monzo: return ["Transaction ID", "Emoji", "Local amount", "Notes and #tags"]
        case .wise: return ["TransferWise ID", "Running Balance"]
        case .dkb: return ["Buchungsdatum", "Zahlungsempfänger*in", "Betrag (€)"]
        case .ing: return ["Buchung", "Auftraggeber/Empfänger", "Betrag"]
        case .sparkasse: return ["Auftragskonto", "Beguenstigter/Zahlungspflichtiger", "Betrag"]
        case .ynab: return ["Flag", "Payee", "Category Group/Category", "Outflow", "Inflow"]
        case .actual: return ["Account", "Date", "Payee", "Notes", "Category", "Amount"]
        case .mono: return ["name", "amount", "type", "date", "latitude", "longitude", "reminderDate"]
        case .ofx, .qif, .camt053, .mt940, .monzoAPI: return []
        }
    }

    /// The preset a file imported without one looks like: by extension for the statements,
    /// by a few columns only that app's export has for the delimited ones. Nil for anything else.
    static func recognised(path: String, header: [String]? = nil) -> ImportPreset? {
        let lower = path.lowercased()
        if lower.hasSuffix(".ofx") || lower.hasSuffix(".qfx") { return .ofx }
        if lower.hasSuffix(".qif") { return .qif }
        if lower.hasSuffix(".xml") { return .camt053 }
        if lower.hasSuffix(".sta") || lower.hasSuffix(".mt940") { return .mt940 }
        guard let header else { return nil }
        let names = Set(header.map { $0.trimmingSpaces() })
        return allCases.first { !$0.signature.isEmpty && names.isSuperset(of: $0.signature) }
    }

    /// The preset of a delimited file whose header is among its first lines, below the lines
    /// of account information German banks write (`;`-separated, quoted or not), or nil.
    static func recognised(leadingLinesOf path: String) -> ImportPreset? {
        guard let bytes = TextEncoding.leadingBytes(path: path, limit: 4096) else { return nil }
        // The Monzo API's answer, saved: an object of transactions with Monzo's tx_ ids.
        let start = bytes.prefix(400).filter { $0 > 0x20 }
        if start.first == UInt8(ascii: "{") || start.first == UInt8(ascii: "["),
            String(decoding: bytes, as: UTF8.self).contains("\"tx_0000")
        {
            return .monzoAPI
        }
        // Read as UTF-8 and as ISO 8859-1 (ING's export): a header names its columns in one of them.
        let latin1 = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        for text in [String(decoding: bytes, as: UTF8.self), latin1] {
            for line in text.split(whereSeparator: \.isNewline).prefix(20) {
                for separator: Character in [";", ",", "\t"] {
                    let names = line.split(separator: separator).map { $0.trimmingCharacters(in: ["\"", " "]) }
                    if names.count > 2, let known = recognised(path: "", header: names) { return known }
                }
            }
        }
        return nil
    }

    /// One line for a file that is a known export read without its preset.
    static func hint(_ preset: ImportPreset, file: String) -> RowError {
        let what = switch preset {
        case .fireflyIII: "a Firefly III export"
        case .ezbookkeeping: "an ezBookkeeping export"
        case .revolut: "a Revolut statement (CSV)"
        case .n26: "an N26 export"
        case .monzo: "a Monzo export (CSV)"
        case .wise: "a Wise statement (CSV)"
        case .dkb: "a DKB export"
        case .ing: "an ING export"
        case .sparkasse: "a Sparkasse CSV-CAMT export"
        case .ynab: "a YNAB register export"
        case .actual: "an Actual Budget export"
        case .mono: "a MONO export"
        case .ofx: "an OFX bank statement"
        case .qif: "a QIF file"
        case .camt053: "a camt.053 bank statement (XML)"
        case .mt940: "an MT940 bank statement"
        case .monzoAPI: "Monzo API transactions (JSON)"
        }
        let extra = preset.needsCurrency ? " --currency CODE" : preset == .revolut ? " --timezone ZONE" : ""
        return RowError(file: file, line: 1, column: "file", reason: "looks like \(what): add --preset \(preset.rawValue) --user USER\(extra)")
    }
}
