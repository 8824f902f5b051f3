/// A product barcode with a valid check digit: EAN-13 (13 digits), UPC-A (12) or EAN-8 (8).
///
/// The check digit is GS1's mod-10 rule (GS1 General Specifications § 7.9.1, "Standard check
/// digit calculations for GS1 data structures"): from the digit left of the check digit
/// leftwards, weights 3, 1, 3, 1 …; the check digit brings the weighted sum to a multiple of 10.
/// UPC-A is an EAN-13 with a leading 0, so one rule serves all three.
///
/// ```swift
/// try Barcode(parsing: "4006381333931").kind  // .ean13
/// try Barcode(parsing: "4006381333932")       // throws: the check digit should be 1
/// ```
public struct Barcode: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case ean13 = "EAN-13", upcA = "UPC-A", ean8 = "EAN-8"
    }

    /// The digits as given (a UPC-A keeps its 12).
    public let digits: String
    public let kind: Kind
    public var description: String { digits }

    /// - Throws: `ValueError.invalidValue` naming what is wrong: not digits, a length that is
    ///   none of 8, 12, 13, or the check digit the others call for.
    public init(parsing text: String) throws(ValueError) {
        let values = text.utf8.map { Int($0) - 48 }
        guard !values.isEmpty, values.allSatisfy({ (0...9).contains($0) }) else {
            throw .invalidValue(text, reason: "is not a barcode: write its 8, 12 or 13 digits only (EAN-8, UPC-A, EAN-13)")
        }
        switch values.count {
        case 13: kind = .ean13
        case 12: kind = .upcA
        case 8: kind = .ean8
        default:
            throw .invalidValue(text, reason: "has \(values.count) digits; an EAN-13 has 13, a UPC-A 12, an EAN-8 8")
        }
        let expected = Barcode.checkDigit(of: values.dropLast())
        guard values.last == expected else {
            throw .invalidValue(
                text, reason: "has check digit \(values.last!) but its other digits call for \(expected): a digit is mistyped")
        }
        digits = text
    }

    /// GS1's check digit of the digits before it.
    public static func checkDigit(of body: some BidirectionalCollection<Int>) -> Int {
        var sum = 0
        for (i, d) in body.reversed().enumerated() { sum += d * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }
}
