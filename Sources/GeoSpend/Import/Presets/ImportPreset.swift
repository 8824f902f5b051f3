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
}
