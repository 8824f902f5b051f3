/// Sparkasse's export "CSV-CAMT V2" (Umsätze → Export): `Auftragskonto; Buchungstag;
/// Valutadatum; Buchungstext; Verwendungszweck; Glaeubiger ID; Mandatsreferenz; Kundenreferenz
/// (End-to-End); Sammlerreferenz; Lastschrift Ursprungsbetrag; Auslagenersatz
/// Ruecklastschrift; Beguenstigter/Zahlungspflichtiger; Kontonummer/IBAN; BIC (SWIFT-Code);
/// Betrag; Waehrung; Info`, `;`-separated and quoted, Windows-1252, dates `31.03.25`, amounts
/// `-1.234,56`. Rows whose `Info` says they are not booked (`Umsatz vorgemerkt`) are left out.
/// Data/README.md has the mapping.
struct SparkassePreset: DelimitedPreset {
    var name: String { "sparkasse" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Buchungstag", use: "occurred_at (a date)", required: true),
            ColumnRole(column: "Buchungstext", use: "notes", required: false),
            ColumnRole(column: "Verwendungszweck", use: "notes", required: false),
            ColumnRole(column: "Beguenstigter/Zahlungspflichtiger", use: "merchant of money out, title", required: true),
            ColumnRole(column: "Betrag", use: "amount (negative: expense)", required: true),
            ColumnRole(column: "Waehrung", use: "currency", required: true),
            ColumnRole(column: "Info", use: "rows not booked left out", required: false),
        ]
    }

    let fieldColumns = [
        "occurred_at": "Buchungstag", "merchant": "Beguenstigter/Zahlungspflichtiger",
        "title": "Beguenstigter/Zahlungspflichtiger", "amount": "Betrag", "currency": "Waehrung", "notes": "Verwendungszweck",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ";") }
    var legacyEncoding: SourceEncoding? { .latin1 }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        if let info = row.text("Info"), info.lowercased().contains("vorgemerkt") { return nil }
        return try GermanBankRow(
            amount: ("Betrag", try row.required("Betrag")), date: ("Buchungstag", try row.required("Buchungstag")),
            counterparty: row.text("Beguenstigter/Zahlungspflichtiger"), purpose: row.text("Verwendungszweck"),
            bookingText: row.text("Buchungstext"), currency: try row.required("Waehrung")
        ).fields(conversions)
    }
}
