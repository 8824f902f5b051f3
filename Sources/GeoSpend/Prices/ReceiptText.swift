/// Receipt text as a phone's OCR gives it, read into a store name, priced lines and a total.
///
/// The shapes read (issue 18, from AllesTeurer's receipt parser):
/// - the first line with no price, before any item, is the store (`REWE Markt`);
/// - an item is a name then a price at the end of the line, with a decimal comma or point and
///   the currency's minor digits: `Milch 1,5% 1,29`, `Product Name 2.99`; the name keeps every
///   number before the last one (`1,5%`, `1kg`). A tax class letter or `€`/`EUR` after the price
///   is allowed (`Brot 2,49 A`);
/// - `2x Joghurt 1,98` (also `2 x`, `2X`, `2×`) is two of `Joghurt` for 1.98 in all: the price is
///   the line's amount, as the till prints it, so the items add up to the total;
/// - a line starting with `SUMME`, `TOTAL` or `GESAMT` (any case) is the total; lines after it
///   (payment, change, tax table) are not items;
/// - any other line is kept in `unread` with its line number, never silently dropped;
/// - the items' sum never passes `Money.maximumMinorUnits` (10^15 minor units, the largest
///   amount GeoSpend stores): an item line that would take it past is kept in `unread` with
///   that reason, so ~9,300 lines of the largest amount cannot overflow the sum (issue 35).
///
/// ```swift
/// let r = try ReceiptText.parse("REWE Markt\nMilch 1,5% 1,29\nSUMME 1,29", currency: eur)
/// r.store             // "REWE Markt"
/// r.items[0].price    // 1.29 EUR
/// r.sumMatches        // true
/// ```
public enum ReceiptText {
    public static let totalWords = ["SUMME", "TOTAL", "GESAMT"]

    public static func parse(_ text: String, currency: Currency) -> ParsedReceipt {
        var receipt = ParsedReceipt(currency: currency)
        var lineNumber = 0
        // "\r\n" is one Character in Swift, so it is named as a separator of its own.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            lineNumber += 1
            let line = raw.trimmingWhitespace()
            if line.isEmpty { continue }
            if receipt.total != nil {
                receipt.afterTotal.append(ReceiptLine(line: lineNumber, text: line))
                continue
            }
            let priced = splitPrice(line, currency: currency)
            if let word = totalWord(line) {
                if let (_, amount) = priced {
                    receipt.total = amount
                    receipt.totalLine = lineNumber
                } else {
                    receipt.unread.append(ReceiptLine(line: lineNumber, text: line, reason: "\(word) line without an amount"))
                }
                continue
            }
            guard let (name, amount) = priced, !name.isEmpty else {
                if receipt.store == nil && receipt.items.isEmpty && priced == nil {
                    receipt.store = line
                } else {
                    receipt.unread.append(ReceiptLine(line: lineNumber, text: line, reason: "no name and price like `Milch 1,29`"))
                }
                continue
            }
            // Each amount is at most the cap, so this sum of two is far from Int64's end.
            guard receipt.itemsSumMinor + amount.minorUnits <= Money.maximumMinorUnits else {
                let cap = Money(minorUnits: Money.maximumMinorUnits, currency: currency).decimalString
                receipt.unread.append(ReceiptLine(
                    line: lineNumber, text: line,
                    reason: "the items would add up to more than \(cap) \(currency.code), the largest amount GeoSpend stores"))
                continue
            }
            let (quantity, itemName) = splitQuantity(name)
            receipt.items.append(ReceiptItem(line: lineNumber, name: itemName, quantity: quantity, price: amount))
            receipt.itemsSumMinor += amount.minorUnits
        }
        return receipt
    }

    /// The total word a line starts with, if any (`SUMME EUR 7,77`, `Total: 7.77`).
    static func totalWord(_ line: String) -> String? {
        let upper = line.uppercased()
        for word in totalWords where upper.hasPrefix(word) {
            let rest = upper.dropFirst(word.count)
            // `TOTALREDUZIERT 1,00` is a product, `TOTAL:` and `SUMME EUR` are totals.
            if rest.isEmpty || !(rest.first!.isLetter) { return word }
        }
        return nil
    }

    /// The name before the line's last amount and the amount, when the line ends with one.
    static func splitPrice(_ line: String, currency: Currency) -> (String, Money)? {
        var words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // A tax class letter or the currency after the price.
        if words.count >= 2, let last = words.last,
            (last.count == 1 && last.first!.isLetter && last.first!.isUppercase) || last == "€" || last == "EUR" || last == "*"
        {
            words.removeLast()
        }
        guard var last = words.last else { return nil }
        if last.hasSuffix("€") { last.removeLast() }
        guard let amount = amount(last, currency: currency) else { return nil }
        return (words.dropLast().joined(separator: " "), amount)
    }

    /// `1,29` or `1.29` (exactly the currency's minor digits; a yen amount has no separator).
    static func amount(_ word: String, currency: Currency) -> Money? {
        let digits = currency.minorDigits
        let bytes = Array(word.utf8)
        let isDigit = { (b: UInt8) in b >= 48 && b <= 57 }
        if digits == 0 {
            guard !bytes.isEmpty, bytes.allSatisfy(isDigit) else { return nil }
            return try? Money(parsing: word, currency: currency)
        }
        guard bytes.count >= digits + 2 else { return nil }
        let separator = bytes[bytes.count - digits - 1]
        guard separator == UInt8(ascii: ",") || separator == UInt8(ascii: ".") else { return nil }
        let whole = bytes[..<(bytes.count - digits - 1)], fraction = bytes[(bytes.count - digits)...]
        guard !whole.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit) else { return nil }
        return try? Money(parsing: String(decoding: whole, as: UTF8.self) + "." + String(decoding: fraction, as: UTF8.self), currency: currency)
    }

    /// `2x Joghurt` → (2, "Joghurt"); a name without a count is one.
    static func splitQuantity(_ name: String) -> (Int, String) {
        var scalars = Substring(name)
        var count = 0
        while let c = scalars.first, let d = c.wholeNumberValue, c.isASCII, count < 100_000 {
            count = count * 10 + d
            scalars = scalars.dropFirst()
        }
        guard count > 0 else { return (1, name) }
        let afterSpace = scalars.drop(while: { $0 == " " })
        guard let mark = afterSpace.first, mark == "x" || mark == "X" || mark == "×" else { return (1, name) }
        let rest = afterSpace.dropFirst()
        guard let next = rest.first, next == " " else { return (1, name) }  // `2xl Shirt` is a name
        let itemName = rest.drop(while: { $0 == " " })
        return itemName.isEmpty ? (1, name) : (count, String(itemName))
    }
}

/// One priced line of a receipt: `price` is the line's amount (all `quantity` of them).
public struct ReceiptItem: Sendable, Hashable {
    public let line: Int
    public let name: String
    public let quantity: Int
    public let price: Money

    /// The price of one, rounded half away from zero to the minor unit (`2x Joghurt 1,99` → 1.00).
    public var unitPrice: Money {
        let q = Int64(quantity)
        let (d, r) = price.minorUnits.quotientAndRemainder(dividingBy: q)
        return Money(minorUnits: r * 2 >= q ? d + 1 : d, currency: price.currency)
    }
}

/// A line that is neither the store, an item nor the total, with why.
public struct ReceiptLine: Sendable, Hashable {
    public let line: Int
    public let text: String
    public var reason: String? = nil
}

/// What `ReceiptText.parse` read.
public struct ParsedReceipt: Sendable, Hashable {
    public let currency: Currency
    public var store: String?
    public internal(set) var items: [ReceiptItem] = []
    public var total: Money?
    public var totalLine: Int?
    /// Lines before the total that could not be read.
    public var unread: [ReceiptLine] = []
    /// Lines after the total (payment, change, tax): not items.
    public var afterTotal: [ReceiptLine] = []

    public init(currency: Currency) { self.currency = currency }

    /// The items' amounts added, exactly; `parse` keeps it at most `Money.maximumMinorUnits`.
    public internal(set) var itemsSumMinor: Int64 = 0

    /// Whether the items add up to the printed total (false when there is no total line).
    public var sumMatches: Bool { total.map { $0.minorUnits == itemsSumMinor } ?? false }

    /// The sentence a person reads about the sum check.
    public var sumCheck: String {
        let sum = Money.decimalString(itemsSumMinor, digits: currency.minorDigits)
        guard let total else {
            return "no SUMME, TOTAL or GESAMT line: the items add up to \(sum) \(currency.code)"
        }
        if sumMatches { return "the items add up to the total \(total.decimalString) \(currency.code)" }
        let difference = Money.decimalString(total.minorUnits - itemsSumMinor, digits: currency.minorDigits)
        return "the items add up to \(sum) \(currency.code), not the total \(total.decimalString) (difference \(difference)); check the unread lines"
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}
