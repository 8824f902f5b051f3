/// An exact amount of one currency, held as integer minor units (cents, yen, fils).
///
/// Money is never a `Double`. Amounts of different currencies are never added: `MoneyTotals`
/// keeps one running sum per currency.
///
/// ```swift
/// let coffee = try Money(parsing: "4.50", currency: Currency(code: "EUR"))
/// coffee.minorUnits      // 450
/// coffee.decimalString   // "4.50"
/// ```
public struct Money: Sendable, Hashable {
    public let minorUnits: Int64
    public let currency: Currency

    /// The largest amount accepted: 10^15 minor units. 9,224 such amounts would already pass
    /// `Int64.max` (9.2 × 10^18), so the store also refuses an import that would bring the sum of
    /// all amounts of a currency beyond it: every total is a part of that sum, and stays exact.
    public static let maximumMinorUnits: Int64 = 1_000_000_000_000_000

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// Parses a positive decimal string such as `12.50` exactly.
    ///
    /// Accepted: digits with an optional `.` and fraction digits. Trailing fraction zeros beyond
    /// the currency's minor digits are accepted (`1000.00` JPY is 1000 yen); any other extra digit
    /// is an error, never rounded. Signs, exponents, thousands separators and spaces are rejected.
    /// - Throws: `ValueError.invalidAmount` with the reason.
    public init(parsing text: String, currency: Currency) throws(ValueError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .invalidAmount(text, reason: "is empty; an amount is required") }
        if bytes.first == UInt8(ascii: "-") {
            throw .invalidAmount(text, reason: "is negative; amounts are positive and `kind` says expense or income")
        }
        var integerPart: Int64 = 0
        var fraction: Int64 = 0
        var fractionDigits = 0
        var sawDot = false
        var sawDigit = false
        for (i, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                sawDigit = true
                let digit = Int64(byte - UInt8(ascii: "0"))
                if sawDot {
                    fractionDigits += 1
                    if fractionDigits > currency.minorDigits {
                        if digit != 0 {
                            throw .invalidAmount(
                                text,
                                reason: "has more decimals than \(currency.code) allows (\(currency.minorDigits))")
                        }
                    } else {
                        fraction = fraction * 10 + digit
                    }
                } else {
                    integerPart = integerPart * 10 + digit
                    if integerPart > Money.maximumMinorUnits {
                        throw .invalidAmount(text, reason: "is too large")
                    }
                }
            case UInt8(ascii: "."):
                if sawDot || !sawDigit || i == bytes.count - 1 {
                    throw .invalidAmount(text, reason: "is not a decimal number like 12.50")
                }
                sawDot = true
            default:
                throw .invalidAmount(text, reason: "is not a decimal number like 12.50")
            }
        }
        let usedDigits = min(fractionDigits, currency.minorDigits)
        var scale: Int64 = 1
        for _ in usedDigits..<currency.minorDigits { scale *= 10 }
        let (product, overflow) = integerPart.multipliedReportingOverflow(by: currency.minorUnitsPerMajor)
        guard !overflow, product + fraction * scale <= Money.maximumMinorUnits else {
            throw .invalidAmount(text, reason: "is too large")
        }
        let minor = product + fraction * scale
        guard minor > 0 else { throw .invalidAmount(text, reason: "is zero; amounts are positive") }
        self.minorUnits = minor
        self.currency = currency
    }

    /// The exact sum of two amounts of one currency.
    ///
    /// ```swift
    /// try coffee.adding(coffee).decimalString  // "9.00"
    /// try coffee.adding(yen)                   // throws: EUR and JPY are never added
    /// ```
    /// - Throws: `ValueError.invalidValue` when the currencies differ (totals are kept per
    ///   currency, `MoneyTotals`), `ValueError.invalidAmount` when the sum leaves `Int64`.
    public func adding(_ other: Money) throws(ValueError) -> Money {
        guard currency == other.currency else {
            throw .invalidValue(
                "\(decimalString) \(currency.code) + \(other.decimalString) \(other.currency.code)",
                reason: "adds two currencies; GeoSpend keeps one total per currency")
        }
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        guard !overflow else { throw .invalidAmount("\(minorUnits) + \(other.minorUnits)", reason: "is too large") }
        return Money(minorUnits: sum, currency: currency)
    }

    /// The amount as a decimal string with exactly the currency's minor digits: `4.50`, `1200`, `1.250`.
    public var decimalString: String { Money.decimalString(minorUnits, digits: currency.minorDigits) }

    /// Formats minor units with `digits` decimals; negative values get a leading `-`.
    public static func decimalString(_ minor: Int64, digits: Int) -> String {
        let negative = minor < 0
        let magnitude = minor.magnitude
        guard digits > 0 else { return (negative ? "-" : "") + String(magnitude) }
        var divisor: UInt64 = 1
        for _ in 0..<digits { divisor *= 10 }
        let whole = magnitude / divisor
        var frac = String(magnitude % divisor)
        while frac.count < digits { frac = "0" + frac }
        return (negative ? "-" : "") + "\(whole).\(frac)"
    }

    /// The amount in major units as a `Double`: for charts and GeoJSON numbers only, never for sums.
    public var majorUnits: Double { Double(minorUnits) / Double(currency.minorUnitsPerMajor) }
}

/// Count and exact sum per currency; the building block of every total GeoSpend reports.
public struct MoneyTotal: Sendable, Hashable {
    public let currency: Currency
    public private(set) var count: Int
    public private(set) var totalMinor: Int64

    public init(currency: Currency, count: Int = 0, totalMinor: Int64 = 0) {
        self.currency = currency
        self.count = count
        self.totalMinor = totalMinor
    }

    public mutating func add(_ minorUnits: Int64) {
        count += 1
        totalMinor += minorUnits
    }

    public var total: Money { Money(minorUnits: totalMinor, currency: currency) }

    /// The mean, rounded half away from zero to the currency's minor unit (exact integer arithmetic).
    public var averageMinor: Int64 {
        guard count > 0 else { return 0 }
        let n = Int64(count)
        let (q, r) = totalMinor.quotientAndRemainder(dividingBy: n)
        return r.magnitude * 2 >= n.magnitude ? q + (totalMinor < 0 ? -1 : 1) : q
    }

    public var average: Money { Money(minorUnits: averageMinor, currency: currency) }
}

/// One `MoneyTotal` per currency, sorted by currency code. Never adds across currencies.
public struct MoneyTotals: Sendable, Hashable {
    // A short list searched linearly: a user has a handful of currencies, and comparing two
    // small strings is cheaper than hashing one.
    private var entries: [MoneyTotal] = []

    public init() {}

    public mutating func add(_ money: Money) {
        if let i = entries.firstIndex(where: { $0.currency.code == money.currency.code }) {
            entries[i].add(money.minorUnits)
        } else {
            var t = MoneyTotal(currency: money.currency)
            t.add(money.minorUnits)
            entries.append(t)
        }
    }

    public var totals: [MoneyTotal] { entries.sorted { $0.currency < $1.currency } }
    public var isEmpty: Bool { entries.isEmpty }
}

/// Count, total, mean, median, min and max of positive amounts in one currency, exact.
///
/// The mean is rounded half away from zero to the minor unit; for an even count the median is
/// the mean of the two middle amounts, rounded half up.
public struct AmountStatistics: Sendable, Hashable {
    public let total: MoneyTotal
    public let median: Money
    public let min: Money
    public let max: Money
    public var count: Int { total.count }
    public var average: Money { total.average }

    /// - Precondition: `amounts` is not empty.
    /// - Complexity: O(n) expected (the median is selected, not sorted for).
    public init(minorUnits amounts: [Int64], currency: Currency) {
        precondition(!amounts.isEmpty)
        var total = MoneyTotal(currency: currency)
        var low = Int64.max, high = Int64.min
        for a in amounts {
            total.add(a)
            low = Swift.min(low, a)
            high = Swift.max(high, a)
        }
        var work = amounts
        let mid = work.count / 2
        let upper = Self.select(&work, mid)
        // After selecting, work[..<mid] holds the smaller half: its largest is the lower middle.
        let median = work.count % 2 == 1 ? upper : (work[..<mid].max()! + upper + 1) / 2
        self.total = total
        self.median = Money(minorUnits: median, currency: currency)
        self.min = Money(minorUnits: low, currency: currency)
        self.max = Money(minorUnits: high, currency: currency)
    }

    /// The median alone, as `median` computes it, without the total: for amounts that are not
    /// parts of one stored sum (price records of any number of stores), whose total may pass
    /// `Int64` (issue 35). Amounts are at most `Money.maximumMinorUnits`.
    /// - Precondition: `amounts` is not empty. - Complexity: O(n) expected.
    static func medianMinor(_ amounts: [Int64]) -> Int64 {
        precondition(!amounts.isEmpty)
        var work = amounts
        let mid = work.count / 2
        let upper = select(&work, mid)
        return work.count % 2 == 1 ? upper : (work[..<mid].max()! + upper + 1) / 2
    }

    /// The `k`-th smallest of `a` (from 0), reordering `a` so that a[..<k] ≤ a[k] ≤ a[(k+1)...]:
    /// Hoare's FIND with a median-of-three pivot, and a sort of what is left should the
    /// partitions keep coming out lopsided.
    static func select(_ a: inout [Int64], _ k: Int) -> Int64 {
        var low = 0, high = a.count - 1, rounds = 0
        while low < high {
            rounds += 1
            if rounds > 64 {
                a[low...high].sort()
                return a[k]
            }
            let (x, y, z) = (a[low], a[low + (high - low) / 2], a[high])
            let pivot = Swift.max(Swift.min(x, y), Swift.min(Swift.max(x, y), z))
            var i = low, j = high
            while i <= j {
                while a[i] < pivot { i += 1 }
                while a[j] > pivot { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // a[low...j] ≤ pivot ≤ a[i...high], and everything between equals the pivot.
            if k <= j { high = j } else if k >= i { low = i } else { return a[k] }
        }
        return a[k]
    }
}
