import Foundation
import Testing

@testable import GeoSpend

/// Amounts as exports write them in several locales, and the ones that must stay errors
/// (a decimal comma read without `--decimal-comma` would be a hundred times the money).
@Suite struct AmountTextTests {
    @Test(arguments: [
        ("€4.50", "4.50", false), ("-€4.50", "4.50", true), ("€-4.50", "4.50", true), ("$1,234.50", "1234.50", false),
        ("CHF 1'234.50", "1234.50", false), ("-CHF 1’234.50", "1234.50", true), ("(12.00)", "12.00", true),
        ("1,234,567.89 USD", "1234567.89", false), ("£0.99", "0.99", false), ("+7", "7", false), (".50", "0.50", false),
    ])
    func pointDecimal(text: String, magnitude: String, negative: Bool) throws {
        let (m, n) = try ValueConversions().amount(text)
        #expect(m == magnitude && n == negative, "\(text) read as \(m), \(n)")
    }

    @Test(arguments: [
        ("-1.234,56 €", "1234.56", true), ("1.234,56-", "1234.56", true), ("4,50 €", "4.50", false),
        ("1 234,56 kr", "1234.56", false), ("1\u{202F}234,56\u{A0}€", "1234.56", false), ("1.000", "1000", false),
    ])
    func commaDecimal(text: String, magnitude: String, negative: Bool) throws {
        var c = ValueConversions()
        c.decimalComma = true
        let (m, n) = try c.amount(text)
        #expect(m == magnitude && n == negative, "\(text) read as \(m), \(n)")
    }

    @Test(arguments: [
        ("1,50", "add --decimal-comma"), ("-1.234,56 €", "add --decimal-comma"), ("12abc", "is not an amount"),
        ("€", "is not an amount"), ("--4", "more than one sign"), ("1,2345.00", "add --decimal-comma"), ("4.5.0", "is not a number"),
    ])
    func pointDecimalRefuses(text: String, hint: String) {
        #expect {
            try ValueConversions().amount(text)
        } throws: { ($0 as? ValueError)?.description.contains(hint) == true }
    }
}
