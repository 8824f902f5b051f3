import Foundation

/// How the bank and app presets read the values their exports write: a signed amount whose
/// sign gives the direction, German amounts (`-1.234,56`), and dates in the export's own
/// pattern, local times given the zone of `--timezone` (or the preset's default).
extension ValueConversions {
    /// A signed amount as the kind it implies and its magnitude: negative is money out
    /// (`expense`), anything else money in (`income`). `decimalComma`: `-1.234,56`.
    func signedAmount(_ text: String, column: String, decimalComma: Bool = false) throws(FieldError) -> (kind: ExpenseKind, magnitude: String) {
        var reading = self
        reading.decimalComma = decimalComma
        do throws(ValueError) {
            let (magnitude, negative) = try reading.amount(text)
            return (negative ? .expense : .income, magnitude)
        } catch {
            throw FieldError(column: column, reason: error.description)
        }
    }

    /// `text` read with `pattern` (the export's own, not `--date-format`): a bare date, or a
    /// local time given the offset `timeZone` (else `defaultZone`) had at that moment.
    func localTime(_ text: String, pattern: String, column: String, defaultZone: TimeZone? = nil) throws(FieldError) -> String {
        do throws(ValueError) {
            let local = try DateFormatPattern(pattern).parse(text)
            guard local.time != nil else { return local.text }
            guard let zone = timeZone ?? defaultZone else {
                throw ValueError.invalidDate(text, reason: "has no UTC offset; give the zone the times are in with --timezone (e.g. Europe/Berlin)")
            }
            return try Self.zoned(local, in: zone, raw: text).text
        } catch {
            throw FieldError(column: column, reason: error.description)
        }
    }

    /// The currency of rows whose file does not say, or an error naming `--currency`.
    func currencyOption(column: String) throws(FieldError) -> String {
        guard let currency else { throw FieldError(column: column, reason: "is empty and no --currency was given") }
        return currency
    }
}

extension DelimitedPreset {
    /// `--timezone` for an export whose times have no offset, as a header problem.
    func needsTimeZone(_ conversions: ValueConversions, column: String) -> [FieldError] {
        guard conversions.timeZone == nil else { return [] }
        return [FieldError(column: column, reason: "\(name) exports write local times without offset; give --timezone (e.g. Europe/Berlin)")]
    }
}

extension ValueConversions {
    /// An amount as budgeting apps write it in the budget's currency format: `$1,234.50`,
    /// `1.234,50 €`, `£0.00`, `CHF 1'234.50`, read by `amount(_:)` once the decimal mark is
    /// known: the last `.` or `,` when as many digits as the currency's minor unit follow it, or
    /// any number but three (`¥1,234` is 1234 yen); otherwise it groups thousands. Empty: zero.
    func symbolAmount(_ text: String, column: String, minorDigits: Int) throws(FieldError) -> (magnitude: String, negative: Bool) {
        if text.trimmingSpaces().isEmpty { return ("0", false) }
        var reading = self
        if let mark = text.lastIndex(where: { $0 == "." || $0 == "," }) {
            let digits = text[text.index(after: mark)...].prefix { $0.isASCII && $0.isNumber }.count
            let isDecimal = minorDigits > 0 && digits == minorDigits || digits != 3
            reading.decimalComma = (text[mark] == ",") == isDecimal
        }
        do throws(ValueError) { return try reading.amount(text) } catch {
            throw FieldError(column: column, reason: error.description)
        }
    }
}
