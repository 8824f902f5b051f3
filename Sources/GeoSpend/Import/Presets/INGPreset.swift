/// ING Germany's account export (Umsatzanzeige → Export → CSV): lines of account information
/// (`Umsatzanzeige;Datei erstellt am: …`, IBAN, Kontoname, Zeitraum, Saldo, a note) above the
/// header `Buchung; Valuta; Auftraggeber/Empfänger; Buchungstext; Verwendungszweck; Saldo;
/// Währung; Betrag; Währung`, `;`-separated, ISO 8859-1, dates `31.03.2025`, amounts
/// `-1.234,56`. The export holds only booked rows (its note says so). Data/README.md has the
/// mapping.
struct INGPreset: DelimitedPreset {
    var name: String { "ing" }

    var columns: [ColumnRole] {
        [
            ColumnRole(column: "Buchung", use: "occurred_at (a date)", required: true),
            ColumnRole(column: "Auftraggeber/Empfänger", use: "merchant of money out, title", required: true),
            ColumnRole(column: "Buchungstext", use: "notes", required: false),
            ColumnRole(column: "Verwendungszweck", use: "notes", required: false),
            ColumnRole(column: "Betrag", use: "amount (negative: expense); currency from Währung, else EUR", required: true),
        ]
    }

    let fieldColumns = [
        "occurred_at": "Buchung", "merchant": "Auftraggeber/Empfänger", "title": "Auftraggeber/Empfänger",
        "amount": "Betrag", "notes": "Verwendungszweck", "currency": "Währung",
    ]

    func defaultDelimiter(path: String) -> UInt8 { UInt8(ascii: ";") }
    var headerMayFollowPreamble: Bool { true }
    var legacyEncoding: SourceEncoding? { .latin1 }

    func record(_ row: SourceRow, _ conversions: ValueConversions) throws(FieldError) -> [String: String]? {
        // Two columns are called Währung (the balance's and the amount's), so it is not a listed
        // column (those must be unique); the first is read, an account has one currency.
        try GermanBankRow(
            amount: ("Betrag", try row.required("Betrag")), date: ("Buchung", try row.required("Buchung")),
            counterparty: row.text("Auftraggeber/Empfänger"), purpose: row.text("Verwendungszweck"),
            bookingText: row.text("Buchungstext"), currency: row.text("Währung") ?? "EUR"
        ).fields(conversions)
    }
}
