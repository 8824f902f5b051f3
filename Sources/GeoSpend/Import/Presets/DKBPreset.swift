/// DKB's account export (Umsätze → Export → CSV, the format since 2023): lines of account
/// information (`"Girokonto";"DE…"`, the balance) above the header `Buchungsdatum;
/// Wertstellung; Status; Zahlungspflichtige*r; Zahlungsempfänger*in; Verwendungszweck;
/// Umsatztyp; IBAN; Betrag (€); Gläubiger-ID; Mandatsreferenz; Kundenreferenz`, `;`-separated
/// and quoted, dates `31.03.25`, amounts `-1.234,56`. Rows whose `Status` is not `Gebucht`
/// (pending, `Vorgemerkt`) are left out. Data/README.md has the mapping.
struct DKBPreset: DelimitedPreset {
    var name: String { "dkb" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Buchungsdatum", use: "occurred_at (a date)", required: true),
            ColumnRole(column: "Status", use: "rows not Gebucht left out", required: false),
            ColumnRole(column: "Zahlungspflichtige*r", use: "title of money in", required: false),
            ColumnRole(column: "Zahlungsempfänger*in", use: "merchant of money out", required: true),
            ColumnRole(column: "Verwendungszweck", use: "notes", required: false),
            ColumnRole(column: "Umsatztyp", use: "notes", required: false),
            ColumnRole(column: "Betrag (€)", use: "amount (negative: expense), EUR", required: true),
        ]
    }

    let fieldColumns = [
        "occurred_at": "Buchungsdatum", "merchant": "Zahlungsempfänger*in", "title": "Zahlungsempfänger*in",
        "amount": "Betrag (€)", "notes": "Verwendungszweck",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ";") }
    var headerMayFollowPreamble: Bool { true }
    var legacyEncoding: SourceEncoding? { .latin1 }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        if let status = row.text("Status"), status.lowercased() != "gebucht" { return nil }
        let amount = try row.required("Betrag (€)")
        let incoming = amount.trimmingSpaces().first != "-"
        return try GermanBankRow(
            amount: ("Betrag (€)", amount), date: ("Buchungsdatum", try row.required("Buchungsdatum")),
            counterparty: incoming ? row.text("Zahlungspflichtige*r") : row.text("Zahlungsempfänger*in"),
            purpose: row.text("Verwendungszweck"), bookingText: nil, currency: "EUR"
        ).fields(conversions)
    }
}
