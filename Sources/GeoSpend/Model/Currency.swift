/// An ISO 4217 currency that is money (not a metal or a test code), with its minor-unit digits.
///
/// ```swift
/// let yen = try Currency(code: "JPY")   // yen.minorDigits == 0
/// let dinar = try Currency(code: "KWD") // dinar.minorDigits == 3
/// ```
public struct Currency: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The three-letter upper-case ISO 4217 code, e.g. `EUR`.
    public let code: String
    /// Digits after the decimal point in the currency's minor unit: 0 for JPY, 2 for EUR, 3 for KWD.
    public let minorDigits: Int

    /// Looks a code up in the ISO 4217 list.
    /// - Throws: `ValueError.unknownCurrency` for codes that are not in the list or not money
    ///   (XAU, XDR, XXX, …).
    public init(code: String) throws(ValueError) {
        guard let digits = Currency.minorDigits[code] else {
            if Currency.notMoney.contains(code) {
                throw .unknownCurrency(code, reason: "is an ISO 4217 code for a metal, fund or test, not money")
            }
            throw .unknownCurrency(code, reason: "is not an ISO 4217 currency code")
        }
        self.code = code
        self.minorDigits = digits
    }

    public var description: String { code }
    public static func < (lhs: Currency, rhs: Currency) -> Bool { lhs.code < rhs.code }

    /// 10^minorDigits: the number of minor units in one major unit.
    public var minorUnitsPerMajor: Int64 {
        var f: Int64 = 1
        for _ in 0..<minorDigits { f *= 10 }
        return f
    }

    // ISO 4217 list (amendment 179, 2025; docs/DOMAIN.md § Money):
    // 0 digits, 3 digits and 4 digits are listed; every other current code has 2.
    private static let zeroDigit: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND",
        "VUV", "XAF", "XOF", "XPF",
    ]
    private static let threeDigit: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
    private static let fourDigit: Set<String> = ["CLF", "UYW"]
    private static let twoDigit: Set<String> = [
        "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
        "BGN", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF",
        "CHE", "CHF", "CHW", "CNY", "COP", "COU", "CRC", "CUP", "CVE", "CZK", "DKK", "DOP", "DZD",
        "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GTQ", "GYD",
        "HKD", "HNL", "HTG", "HUF", "IDR", "ILS", "INR", "IRR", "JMD", "KES", "KGS", "KHR", "KPW",
        "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT",
        "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK",
        "NPR", "NZD", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "QAR", "RON", "RSD", "RUB", "SAR",
        "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SOS", "SRD", "SSP", "STN", "SVC", "SYP",
        "SZL", "THB", "TJS", "TMT", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "USD", "USN", "UYU",
        "UZS", "VED", "VES", "WST", "XCD", "XCG", "YER", "ZAR", "ZMW", "ZWG",
    ]
    private static let notMoney: Set<String> = [
        "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR", "XPD", "XPT", "XSU", "XTS", "XUA", "XXX",
    ]
    private static let minorDigits: [String: Int] = {
        var table: [String: Int] = [:]
        for code in twoDigit { table[code] = 2 }
        for code in zeroDigit { table[code] = 0 }
        for code in threeDigit { table[code] = 3 }
        for code in fourDigit { table[code] = 4 }
        return table
    }()
}
