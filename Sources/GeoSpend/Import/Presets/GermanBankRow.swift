/// What the German banks' CSV exports (DKB, ING, Sparkasse) have in common: amounts as
/// `-1.234,56` (a trailing `€` allowed), dates as `31.03.25` or `31.03.2025`, a signed amount
/// for the direction, the counterparty in one column and the purpose text in another. None of
/// them writes a transaction id: rows get the derived id.
struct GermanBankRow {
    var amount: (column: String, text: String)
    var date: (column: String, text: String)
    var counterparty: String?
    var purpose: String?
    var bookingText: String?
    var currency: String

    /// The canonical fields: money out is an expense whose merchant is the counterparty,
    /// money in an income from it (title).
    func fields(_ conversions: ValueConversions) throws(FieldError) -> [String: String] {
        var text = amount.text.trimmingSpaces()
        if text.hasSuffix("€") { text = String(text.dropLast()) }
        let signed = try conversions.signedAmount(text, column: amount.column, decimalComma: true)
        let day = date.text.trimmingSpaces()
        let pattern = day.count == 8 ? "dd.MM.yy" : "dd.MM.yyyy"
        var fields: [String: String] = [
            "user": conversions.user ?? "", "kind": signed.kind.rawValue, "amount": signed.magnitude, "currency": currency,
            "occurred_at": try conversions.localTime(day, pattern: pattern, column: date.column),
        ]
        fields["title"] = counterparty ?? bookingText
        if signed.kind == .expense { fields["merchant"] = counterparty }
        let notes = [bookingText, purpose].compactMap { $0 }
        if !notes.isEmpty { fields["notes"] = notes.joined(separator: "\n") }
        return fields
    }
}
