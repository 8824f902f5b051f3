import Foundation

/// A receipt's OCR text read as real receipts print it, with the self-checks that decide whether
/// it can be trusted (`geospend receipts scan`, issue 42).
///
/// Read, besides `ReceiptText`'s `name price` lines:
/// - the header: the store's name (first line), street, postcode and city, phone (`Tel.`, `Puh.`);
/// - a quantity line under its item, `2 x 0,99`, and a weight line, `0,512 kg x 2,99 EUR/kg`
///   (checked: 2 × 0.99 must be the item's 1.98, 0.512 × 2.99 rounds to its 1.53);
/// - deposits (`Pfand`, `Pantti`) as items, discounts and returns as negative items (`-0,20`,
///   `0,20-`); a VAT letter after the amount (`1,29 A`);
/// - the total (`SUMME`, `TOTAL`, `GESAMT`, `YHTEENSÄ`, `ZU ZAHLEN`), then payment (card, or cash
///   given and change back) and the VAT table (`A 7% 3,83 0,27 4,10`: letter, rate, net, tax,
///   gross);
/// - the date and time in the receipt's format: `16.12.2024 15:53`, `16.12.24`,
///   `2024-12-16`, `16/12/24` (day first), `16.12.2024 klo 15.53`.
///
/// `status` is `ok` only when every self-check holds: the items add up to the total; the payment
/// equals the total (card, or cash less change); the VAT table, when printed, is consistent
/// (net + tax = gross, the tax is the rate's, the gross amounts add up to the total and each
/// letter's items add up to its gross). Anything else is `needs_review` with the problems.
///
/// ```swift
/// let scan = ReceiptScan.read("Bäckerei\nBrezel 0,80 A\nSUMME 0,80\nBar 1,00\nRückgeld 0,20", currency: eur)
/// scan.status   // .ok
/// ```
public struct ReceiptScan: Sendable {
    public enum Status: String, Sendable { case ok, needsReview = "needs_review" }

    public struct Item: Sendable, Hashable {
        public let line: Int
        public var name: String
        /// Pieces (`2 x 0,99`) or, with `unit` "kg", thousandths of a kilogram.
        public var quantity: Int64 = 1
        public var unit: String = "pcs"
        /// The line's amount in minor units, negative for a discount or a return.
        public var priceMinor: Int64
        public var vat: String?
        /// What the quantity or weight line under the item says the amount is (2 × 0.99), checked
        /// against `priceMinor` once the receipt is read.
        public var quantityLine: QuantityLine?
    }

    public struct QuantityLine: Sendable, Hashable {
        public let line: Int
        public let expectedMinor: Int64
        public let unitMinor: Int64
    }

    public struct VATRow: Sendable, Hashable {
        public let line: Int
        public let letter: String?
        /// The rate in hundredths of a percent (7% → 700, 25,5% → 2550).
        public let rateHundredths: Int64
        public let netMinor: Int64, taxMinor: Int64, grossMinor: Int64
    }

    public struct Header: Sendable, Hashable {
        public var name: String?
        public var street: String?
        public var postcode: String?
        public var city: String?
        public var phone: String?
    }

    public let text: String
    public var currency: Currency
    public var header = Header()
    public var date: String?
    public var time: String?
    public var items: [Item] = []
    public var totalMinor: Int64?
    public var cardMinor: Int64?
    public var cashMinor: Int64?
    public var changeMinor: Int64?
    public var vatRows: [VATRow] = []
    /// Lines that were read as nothing, with their numbers.
    public var unread: [ReceiptLine] = []
    public var problems: [String] = []
    /// The lines above the first item (the store's header, or an item that was not read).
    public var headerLines: [ReceiptLine] = []
    /// The registry's store the header names (`StoreMatch`), when a registry was given.
    public var store: Store?
    /// Misreads put right because the receipt's other amounts fix them (see `repair`).
    public var corrections: [String] = []

    public var status: Status { problems.isEmpty ? .ok : .needsReview }
    public var itemsSumMinor: Int64 { items.reduce(0) { $0 + $1.priceMinor } }
    /// What was paid: the card amount, or the cash given less the change.
    public var paidMinor: Int64? {
        if let cardMinor { return cardMinor }
        if let cashMinor { return cashMinor - (changeMinor ?? 0) }
        return nil
    }

    /// The problem of a receipt with no payment line (a text import does not need one).
    public static let noPayment = "no payment line (card, or cash and change) was read to confirm the total"

    static let totalWords = ["SUMME", "TOTAL", "GESAMT", "YHTEENSA", "ZU ZAHLEN", "GESAMTBETRAG", "SUMMA", "AMOUNT DUE", "BALANCE DUE"]
    static let cardWords = ["KARTE", "EC-KARTE", "GIROCARD", "KREDITKARTE", "PANKKIKORTTI", "KORTTI", "CARD", "VISA", "MASTERCARD", "DEBIT", "CREDIT CARD", "MAESTRO"]
    static let cashWords = ["BAR", "BARGELD", "GEGEBEN", "KATEINEN", "CASH", "TENDERED"]
    static let changeWords = ["RUCKGELD", "ZURUCK", "WECHSELGELD", "TAKAISIN", "VAIHTORAHA", "CHANGE"]

    /// Reads `text`; `currency` is the one assumed when the text names none (€/EUR, £/GBP,
    /// $/USD, kr/SEK are recognised).
    /// - Complexity: O(n) in the text's length.
    public static func read(_ text: String, currency: Currency) -> ReceiptScan {
        var scan = ReceiptScan(text: text, currency: detectCurrency(text) ?? currency)
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { $0.trimmingWhitespace() }
        enum Part { case header, body, after }
        var part = Part.header
        var headerLines: [String] = []
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            if raw.isEmpty { continue }
            // `-2, 78`: OCR put a space inside an amount; `ı` (dotless, Turkish) is an `i` here.
            let line = raw.replacingOccurrences(of: "ı", with: "i").replacingOccurrences(of: "(\\d[,.]) (\\d\\d)(?![\\d,.])", with: "$1$2", options: .regularExpression)
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            let key = folded(line)
            if scan.date == nil, let (date, time) = dateAndTime(line) {
                scan.date = date
                scan.time = time
                continue
            }
            if isRule(line) { continue }
            if part != .after, let word = leadingWord(key, in: totalWords) {
                if let amount = lastAmount(words, currency: scan.currency) {
                    scan.totalMinor = amount
                    part = .after
                } else {
                    scan.unread.append(ReceiptLine(line: number, text: line, reason: "\(word) line without an amount"))
                }
                continue
            }
            switch part {
            case .header:
                if let priced = pricedLine(words, currency: scan.currency) {
                    part = .body
                    scan.append(priced, line: number)
                } else {
                    headerLines.append(line)
                    scan.headerLines.append(ReceiptLine(line: number, text: line, reason: "header"))
                }
            case .body:
                if let (count, unitMinor) = quantityLine(words, currency: scan.currency) {
                    scan.applyQuantity(count: count, unitMinor: unitMinor, kilograms: false, line: number)
                } else if let (grams, perKilo) = weightLine(line, currency: scan.currency) {
                    scan.applyQuantity(count: grams, unitMinor: perKilo, kilograms: true, line: number)
                } else if let priced = pricedLine(words, currency: scan.currency) {
                    scan.append(priced, line: number)
                } else {
                    scan.unread.append(ReceiptLine(line: number, text: line, reason: "no name and price like `Milch 1,29`"))
                }
            case .after:
                if let row = vatRow(words, line: number, currency: scan.currency) {
                    scan.vatRows.append(row)
                } else if let word = leadingWord(key, in: changeWords), let amount = lastAmount(words, currency: scan.currency) {
                    _ = word
                    scan.changeMinor = amount
                } else if leadingWord(key, in: cardWords) != nil, let amount = lastAmount(words, currency: scan.currency) {
                    scan.cardMinor = amount
                } else if leadingWord(key, in: cashWords) != nil, let amount = lastAmount(words, currency: scan.currency) {
                    scan.cashMinor = amount
                } else {
                    scan.unread.append(ReceiptLine(line: number, text: line))
                }
            }
        }
        scan.header = header(headerLines)
        scan.check(vatHeaderSeen: lines.contains { isVATHeader(folded($0)) })
        return scan
    }

    /// An item line; `2x Joghurt 1,98` is two of `Joghurt` (ReceiptText's shape).
    mutating func append(_ priced: (name: String, amount: Int64, vat: String?), line: Int) {
        let (count, name) = ReceiptText.splitQuantity(priced.name)
        items.append(Item(line: line, name: name, quantity: Int64(count), priceMinor: priced.amount, vat: priced.vat))
    }

    /// A quantity or weight line multiplies the item above it; the till's rounding is checked.
    mutating func applyQuantity(count: Int64, unitMinor: Int64, kilograms: Bool, line: Int) {
        guard var item = items.last, item.quantity == 1, item.unit == "pcs" else {
            problems.append("line \(line): a quantity line with no item above it")
            return
        }
        // Kilograms come in thousandths: round half up to the minor unit.
        let expected = kilograms ? (count * unitMinor + 500) / 1000 : count * unitMinor
        item.quantity = count
        item.unit = kilograms ? "kg" : "pcs"
        item.quantityLine = QuantityLine(line: line, expectedMinor: expected, unitMinor: unitMinor)
        items[items.count - 1] = item
    }

    /// An item line whose amount lost its decimal point (`Chopped Tomatoes 112A`) becomes the
    /// item when its digits are exactly what the items fall short of, in the one VAT group that
    /// is short, and no other unread line could be it.
    mutating func restoreLostPoint(total: Int64) {
        let difference = total - itemsSumMinor
        guard difference > 0, currency.minorDigits > 0 else { return }
        var found: [(index: Int, name: String, letter: String?)] = []
        // The first item may be the damaged one: then it was taken for a header line.
        let lines = headerLines.dropFirst() + unread
        for (index, u) in lines.enumerated() where u.reason != nil {
            var words = u.text.split(separator: " ").map(String.init)
            guard words.count >= 2, var last = words.popLast() else { continue }
            var letter: String?
            if let l = last.last, l.isUppercase, l.isASCII { letter = String(l); last.removeLast() }
            // `112 A`: the letter stood alone, the amount before it.
            if last.isEmpty, words.count >= 2 { last = words.removeLast() }
            guard last.count > currency.minorDigits, last.allSatisfy({ $0.isASCII && $0.isNumber }), Int64(last) == difference else { continue }
            let name = words.joined(separator: " ")
            guard name.contains(where: { $0.isLetter }) else { continue }
            found.append((index, name, letter))
        }
        guard found.count == 1 else { return }
        let hit = found[0]
        if let letter = hit.letter {
            // The VAT group the line names must be the one that is short, by this much.
            guard let row = vatRows.first(where: { $0.letter == letter }),
                row.grossMinor - items.filter({ $0.vat == letter }).reduce(0, { $0 + $1.priceMinor }) == difference
            else { return }
        }
        let line = Array(lines)[hit.index]
        if let i = unread.firstIndex(of: line) { unread.remove(at: i) }
        let item = Item(line: line.line, name: hit.name, priceMinor: difference, vat: hit.letter)
        items.insert(item, at: items.firstIndex { $0.line > line.line } ?? items.count)
        corrections.append("line \(line.line): `\(line.text)` read as \(hit.name) \(Money.decimalString(difference, digits: currency.minorDigits)) (the decimal point lost; the total, the payment and the VAT table agree)")
    }

    /// One digit of `a` read as another gives `b` (`10.76` and `19.76`): the kind of OCR misread
    /// `repair` puts right.
    static func oneDigitApart(_ a: Int64, _ b: Int64) -> Bool {
        let x = Array(String(a)), y = Array(String(b))
        guard a >= 0, b >= 0, x.count == y.count else { return false }
        return zip(x, y).filter { $0 != $1 }.count == 1
    }

    /// Puts right a single misread digit when the receipt's other amounts say what it must be,
    /// and never the total: a VAT row's tax that is not gross − net when gross − net is the
    /// rate's tax; one item, when the total, the payment and the VAT table agree and exactly one
    /// item of the one VAT group that is off (or its quantity line) gives the missing amount;
    /// the card amount, when the items and the VAT table both give the total. Each is listed in
    /// `corrections`.
    mutating func repair() {
        let digits = currency.minorDigits
        func show(_ m: Int64) -> String { Money.decimalString(m, digits: digits) }
        guard let total = totalMinor else { return }
        for i in vatRows.indices {
            let r = vatRows[i]
            guard r.netMinor + r.taxMinor != r.grossMinor else { continue }
            let tax = r.grossMinor - r.netMinor
            let exact = Double(r.grossMinor) * Double(r.rateHundredths) / Double(10_000 + r.rateHundredths)
            if abs(Double(tax) - exact) <= 1.01, Self.oneDigitApart(r.taxMinor, tax) {
                vatRows[i] = VATRow(line: r.line, letter: r.letter, rateHundredths: r.rateHundredths, netMinor: r.netMinor, taxMinor: tax, grossMinor: r.grossMinor)
                corrections.append("line \(r.line): VAT tax read as \(show(r.taxMinor)), taken as \(show(tax)) (gross − net)")
            }
        }
        let gross = vatRows.reduce(0) { $0 + $1.grossMinor }
        let vatAgrees = !vatRows.isEmpty && gross == total && vatRows.allSatisfy { $0.netMinor + $0.taxMinor == $0.grossMinor }
        if vatAgrees, paidMinor == total, itemsSumMinor != total {
            restoreLostPoint(total: total)
        }
        if vatAgrees, paidMinor == total, itemsSumMinor != total {
            let difference = total - itemsSumMinor
            let off = vatRows.filter { row in
                guard let letter = row.letter else { return true }
                return items.filter { $0.vat == letter }.reduce(0) { $0 + $1.priceMinor } != row.grossMinor
            }
            if off.count == 1, let letter = off[0].letter {
                let candidates = items.indices.filter { i in
                    let item = items[i]
                    guard item.vat == letter, Self.oneDigitApart(abs(item.priceMinor), abs(item.priceMinor + difference)) else { return false }
                    return item.quantityLine.map { $0.expectedMinor == item.priceMinor + difference } ?? true
                }
                // An item whose own quantity line gives the amount is the surest.
                let confirmed = candidates.filter { items[$0].quantityLine != nil }
                let chosen = confirmed.count == 1 ? confirmed : candidates
                if chosen.count == 1 {
                    let candidates = chosen
                    let i = candidates[0]
                    corrections.append("line \(items[i].line): \(items[i].name) read as \(show(items[i].priceMinor)), taken as \(show(items[i].priceMinor + difference)) (the total, the payment and the VAT table agree)")
                    items[i].priceMinor += difference
                }
            }
        }
        if vatAgrees, itemsSumMinor == total, let card = cardMinor, card != total, Self.oneDigitApart(card, total) {
            corrections.append("the card amount read as \(show(card)), taken as \(show(total)) (the items and the VAT table agree)")
            cardMinor = total
        }
    }

    mutating func check(vatHeaderSeen: Bool) {
        let digits = currency.minorDigits
        func show(_ m: Int64) -> String { Money.decimalString(m, digits: digits) }
        repair()
        for item in items {
            guard let q = item.quantityLine, q.expectedMinor != item.priceMinor else { continue }
            // A weight's price may be rounded either way by the till.
            if item.unit == "kg" && abs(q.expectedMinor - item.priceMinor) <= 1 { continue }
            let what = item.unit == "kg" ? "\(Money.decimalString(item.quantity, digits: 3)) kg" : "\(item.quantity)"
            problems.append(
                "line \(q.line): \(what) × \(show(q.unitMinor)) is \(show(q.expectedMinor)), not the item's \(show(item.priceMinor))")
        }
        guard !items.isEmpty else {
            problems.append("no item lines like `Milch 1,29` were read")
            return
        }
        guard let total = totalMinor else {
            problems.append("no total line (SUMME, TOTAL, YHTEENSÄ …) was read; the items add up to \(show(itemsSumMinor))")
            return
        }
        if total <= 0 { problems.append("the total \(show(total)) is not positive") }
        if itemsSumMinor != total {
            problems.append("the items add up to \(show(itemsSumMinor)), not the total \(show(total))")
        }
        if let paid = paidMinor {
            if paid != total { problems.append("paid \(show(paid)), not the total \(show(total))") }
            if let cash = cashMinor, let change = changeMinor, change < 0 || change >= cash {
                problems.append("the change \(show(change)) does not fit the cash given \(show(cash))")
            }
        } else {
            problems.append(Self.noPayment)
        }
        if vatHeaderSeen && vatRows.isEmpty { problems.append("a VAT table is printed but none of its rows was read") }
        guard !vatRows.isEmpty else { return }
        for row in vatRows {
            if row.netMinor + row.taxMinor != row.grossMinor {
                problems.append("line \(row.line): VAT net \(show(row.netMinor)) + tax \(show(row.taxMinor)) is not the gross \(show(row.grossMinor))")
            }
            // tax = gross × rate / (100 + rate), rounded; one minor unit either way for the till's rounding.
            let exact = Double(row.grossMinor) * Double(row.rateHundredths) / Double(10_000 + row.rateHundredths)
            if abs(Double(row.taxMinor) - exact) > 1.01 {
                problems.append("line \(row.line): VAT \(show(row.taxMinor)) is not \(Money.decimalString(row.rateHundredths, digits: 2))% of the gross \(show(row.grossMinor))")
            }
            if let letter = row.letter, items.contains(where: { $0.vat != nil }) {
                let sum = items.filter { $0.vat == letter }.reduce(0) { $0 + $1.priceMinor }
                if sum != row.grossMinor {
                    problems.append("line \(row.line): the items marked \(letter) add up to \(show(sum)), not the VAT table's \(show(row.grossMinor))")
                }
            }
        }
        let gross = vatRows.reduce(0) { $0 + $1.grossMinor }
        if gross != total { problems.append("the VAT table's gross amounts add up to \(show(gross)), not the total \(show(total))") }
    }

    // MARK: Lines

    /// Upper case without diacritics (`Rückgeld` → `RUCKGELD`, `YHTEENSÄ` → `YHTEENSA`).
    static func folded(_ s: String) -> String {
        s.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).uppercased()
    }

    /// The word of `words` the folded line starts with, followed by a non-letter or the end.
    static func leadingWord(_ key: String, in words: [String]) -> String? {
        for word in words where key.hasPrefix(word) {
            let rest = key.dropFirst(word.count)
            if rest.isEmpty || !rest.first!.isLetter { return word }
        }
        return nil
    }

    static func isRule(_ line: String) -> Bool {
        line.count >= 3 && line.allSatisfy { "-=_*—–.~ ".contains($0) }
    }

    static func isVATHeader(_ key: String) -> Bool {
        ["MWST", "ALV", "VAT", "UST"].contains { key.hasPrefix($0) } && !key.contains("%")
    }

    /// An amount in minor units: `1,29`, `1.29`, `-1,29`, `1,29-`, with `€`/`£` around it; the
    /// currency's minor digits exactly (a yen amount is digits alone).
    static func amount(_ word: String, currency: Currency) -> Int64? {
        var w = Substring(word)
        for mark in ["€", "£", "$"] {
            if w.hasPrefix(mark) { w = w.dropFirst() }
            if w.hasSuffix(mark) { w = w.dropLast() }
        }
        var negative = false
        if w.hasPrefix("-") { negative = true; w = w.dropFirst() } else if w.hasSuffix("-") { negative = true; w = w.dropLast() }
        guard let minor = unsignedAmount(w, digits: currency.minorDigits) else { return nil }
        return negative ? -minor : minor
    }

    /// `1,29` or `1.29` in minor units, zero included (a VAT table's `0,00`); at most 12 whole digits.
    static func unsignedAmount(_ w: Substring, digits: Int) -> Int64? {
        let bytes = Array(w.utf8)
        let isDigit = { (b: UInt8) in b >= 48 && b <= 57 }
        var value: Int64 = 0
        if digits == 0 {
            guard (1...12).contains(bytes.count), bytes.allSatisfy(isDigit) else { return nil }
            for b in bytes { value = value * 10 + Int64(b - 48) }
            return value
        }
        guard bytes.count >= digits + 2, bytes.count <= digits + 13 else { return nil }
        let separator = bytes[bytes.count - digits - 1]
        guard separator == UInt8(ascii: ",") || separator == UInt8(ascii: ".") else { return nil }
        let whole = bytes[..<(bytes.count - digits - 1)], fraction = bytes[(bytes.count - digits)...]
        guard whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit) else { return nil }
        for b in whole { value = value * 10 + Int64(b - 48) }
        for b in fraction { value = value * 10 + Int64(b - 48) }
        return value
    }

    /// The amount a line ends with (a VAT letter, `*`, `€` or the currency code may follow).
    static func lastAmount(_ words: [String], currency: Currency) -> Int64? {
        var words = words
        while let last = words.last, words.count >= 2, isTrailer(last, currency: currency) { words.removeLast() }
        guard let last = words.last else { return nil }
        return amount(last, currency: currency)
    }

    static func isTrailer(_ word: String, currency: Currency) -> Bool {
        (word.count == 1 && (word.first!.isUppercase || word == "*")) || word == "€" || word == "£" || word == currency.code
    }

    /// `name amount [letter]`: the name keeps every word before the amount.
    static func pricedLine(_ words: [String], currency: Currency) -> (name: String, amount: Int64, vat: String?)? {
        var words = words
        var vat: String?
        // `9,41B`: OCR lost the space before the VAT letter.
        if words.count >= 2, let last = words.last, last.count >= 5, let letter = last.last, letter.isUppercase, letter.isASCII,
            amount(String(last.dropLast()), currency: currency) != nil
        {
            words[words.count - 1] = String(last.dropLast())
            words.append(String(letter))
        }
        if words.count >= 3, let last = words.last, last.count == 1, last.first!.isUppercase { vat = last; words.removeLast() }
        while let last = words.last, words.count >= 2, isTrailer(last, currency: currency) { words.removeLast() }
        guard words.count >= 2, let amount = amount(words.last!, currency: currency) else { return nil }
        let name = words.dropLast().joined(separator: " ")
        guard name.contains(where: { $0.isLetter }) else { return nil }
        return (name, amount, vat)
    }

    /// `2 x 0,99`, `2x0,99`, `2 * 0,99`, `2 Stk x 0,99`: the count and the price of one.
    static func quantityLine(_ words: [String], currency: Currency) -> (Int64, Int64)? {
        let joined = words.joined(separator: " ")
        var rest = Substring(joined)
        var count: Int64 = 0, digits = 0
        while let c = rest.first, c.isASCII, let d = c.wholeNumberValue, digits < 6 {
            count = count * 10 + Int64(d)
            digits += 1
            rest = rest.dropFirst()
        }
        guard digits > 0, count > 1 else { return nil }
        rest = rest.drop(while: { $0 == " " })
        for unit in ["Stk", "ST", "kpl", "pcs"] where rest.hasPrefix(unit) { rest = rest.dropFirst(unit.count).drop(while: { $0 == " " }) }
        guard let mark = rest.first, "xX×*".contains(mark) else { return nil }
        let tail = rest.dropFirst().split(separator: " ").map(String.init).filter { !isTrailer($0, currency: currency) || amount($0, currency: currency) != nil }
        guard tail.count == 1, let unit = amount(tail[0], currency: currency), unit > 0 else { return nil }
        return (count, unit)
    }

    /// `0,512 kg x 2,99 EUR/kg` (also `€/kg`): thousandths of a kilogram and the price of one.
    static func weightLine(_ line: String, currency: Currency) -> (Int64, Int64)? {
        let words = line.replacingOccurrences(of: "×", with: "x").split(separator: " ").map(String.init)
        guard let kg = words.firstIndex(where: { $0.lowercased() == "kg" }), kg >= 1, kg + 2 < words.count,
            words[kg + 1].lowercased() == "x"
        else { return nil }
        let weight = words[kg - 1]
        let bytes = Array(weight.utf8)
        guard bytes.count >= 5, bytes[bytes.count - 4] == UInt8(ascii: ",") || bytes[bytes.count - 4] == UInt8(ascii: "."),
            let whole = Int64(String(decoding: bytes[..<(bytes.count - 4)], as: UTF8.self)),
            let fraction = Int64(String(decoding: bytes[(bytes.count - 3)...], as: UTF8.self))
        else { return nil }
        guard let per = amount(words[kg + 2], currency: currency), per > 0 else { return nil }
        let unitWords = words[(kg + 3)...]
        guard unitWords.allSatisfy({ $0.lowercased().hasSuffix("/kg") }) else { return nil }
        return (whole * 1000 + fraction, per)
    }

    /// `A 7% 3,83 0,27 4,10` or `7% 3,83 0,27 4,10`, also `A 7,0 %`: a VAT table row.
    static func vatRow(_ words: [String], line: Int, currency: Currency) -> VATRow? {
        var words = words
        var letter: String?
        if let first = words.first, first.count == 1, first.first!.isUppercase, first.first!.isLetter {
            letter = first
            words.removeFirst()
        }
        if words.count >= 2, words[1] == "%" { words[0] += "%"; words.remove(at: 1) }
        guard words.count == 4, words[0].hasSuffix("%") else { return nil }
        let rateText = words[0].dropLast().replacingOccurrences(of: ",", with: ".")
        guard let rate = Decimal(string: rateText), rate >= 0, rate < 100,
            let net = amount(words[1], currency: currency), let tax = amount(words[2], currency: currency),
            let gross = amount(words[3], currency: currency)
        else { return nil }
        let hundredths = NSDecimalNumber(decimal: rate * 100).int64Value
        return VATRow(line: line, letter: letter, rateHundredths: hundredths, netMinor: net, taxMinor: tax, grossMinor: gross)
    }

    /// The date (`YYYY-MM-DD`) and time (`HH:MM`, or nil) a line holds: `16.12.2024 15:53`,
    /// `16.12.24`, `2024-12-16`, `16/12/24` (day first), `16.12.2024 klo 15.53`.
    static func dateAndTime(_ line: String) -> (String, String?)? {
        let words = line.split(separator: " ").map(String.init)
        for (i, word) in words.enumerated() {
            guard let date = date(word) else { continue }
            var time: String?
            for next in words.dropFirst(i + 1).prefix(2) {
                if next.lowercased() == "klo" { continue }
                time = clock(next)
                break
            }
            return (date, time)
        }
        return nil
    }

    static func date(_ word: String) -> String? {
        let parts: [Substring]
        let yearFirst: Bool
        if word.contains("-") { parts = word.split(separator: "-", omittingEmptySubsequences: false); yearFirst = true }
        else if word.contains("/") { parts = word.split(separator: "/", omittingEmptySubsequences: false); yearFirst = false }
        else { parts = word.split(separator: ".", omittingEmptySubsequences: false); yearFirst = false }
        guard parts.count == 3 || (parts.count == 4 && parts[3].isEmpty && !yearFirst) else { return nil }
        guard parts.prefix(3).allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        let numbers = parts.prefix(3).map { Int($0)! }
        var (y, m, d) = yearFirst ? (numbers[0], numbers[1], numbers[2]) : (numbers[2], numbers[1], numbers[0])
        let yearDigits = yearFirst ? parts[0].count : parts[2].count
        if yearDigits == 2 { y += 2000 } else if yearDigits != 4 { return nil }
        if yearFirst && (parts[1].count != 2 || parts[2].count != 2) { return nil }
        guard (2000...2099).contains(y), (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y) else { return nil }
        return String(format: "%04d-%02d-%02d", y, m, d)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `15:53`, `15:53:07`, `15.53` → `15:53`.
    static func clock(_ word: String) -> String? {
        let parts = word.split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "." })
        guard parts.count == 2 || parts.count == 3,
            parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60, parts[1].count == 2
        else { return nil }
        return String(format: "%02d:%02d", h, m)
    }

    /// The store's name, street, postcode and city, and phone from the lines above the items.
    static func header(_ lines: [String]) -> Header {
        var h = Header()
        for line in lines {
            let key = folded(line)
            if h.phone == nil, let word = leadingWord(key, in: ["TEL.", "TEL", "PUH.", "PUH", "PHONE", "TELEFON"]) {
                h.phone = String(line.dropFirst(word.count)).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ":"))
                h.phone = h.phone?.trimmingCharacters(in: .whitespaces)
                continue
            }
            let words = line.split(separator: " ").map(String.init)
            if h.postcode == nil, let first = words.first, first.count == 5, first.allSatisfy({ $0.isASCII && $0.isNumber }), words.count >= 2 {
                h.postcode = first
                h.city = words.dropFirst().joined(separator: " ")
                continue
            }
            // A British postcode ends the line: `London SW1A 1AA`.
            if h.postcode == nil, words.count >= 3, isBritishPostcode(words[words.count - 2], words[words.count - 1]) {
                h.postcode = words.suffix(2).joined(separator: " ")
                h.city = words.dropLast(2).joined(separator: " ")
                continue
            }
            if h.name == nil, line.contains(where: { $0.isLetter }) {
                h.name = line
                continue
            }
            if h.street == nil, line.contains(where: { $0.isNumber }), line.contains(where: { $0.isLetter }) { h.street = line }
        }
        return h
    }

    static func isBritishPostcode(_ outward: String, _ inward: String) -> Bool {
        let o = Array(outward), i = Array(inward)
        guard (2...4).contains(o.count), i.count == 3, o[0].isLetter, o.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }),
            i[0].isNumber, i[1].isUppercase, i[2].isUppercase
        else { return false }
        return o.contains(where: { $0.isNumber })
    }

    static func detectCurrency(_ text: String) -> Currency? {
        let upper = text.uppercased()
        for (marks, code) in [(["€", "EUR"], "EUR"), (["£", "GBP"], "GBP"), (["USD", "$"], "USD"), (["SEK"], "SEK")]
        where marks.contains(where: { upper.contains($0) }) {
            return try? Currency(code: code)
        }
        return nil
    }

    // MARK: Output

    /// `receipts scan --format json`: one object, amounts as decimal strings.
    public var json: JSONOutput {
        let digits = currency.minorDigits
        func amount(_ m: Int64?) -> JSONOutput { m.map { .string(Money.decimalString($0, digits: digits)) } ?? .null }
        func text(_ s: String?) -> JSONOutput { s.map { .string($0) } ?? .null }
        return .object([
            ("store", text(store?.name ?? header.name)),
            ("store_id", text(store?.id)),
            ("store_details", .object([
                ("name", text(header.name)), ("street", text(header.street)), ("postcode", text(header.postcode)),
                ("city", text(header.city)), ("phone", text(header.phone)),
            ])),
            ("date", text(date)), ("time", text(time)),
            ("total", amount(totalMinor)), ("currency", .string(currency.code)),
            ("items", .array(items.map { i in
                .object([
                    ("name", .string(i.name)),
                    ("quantity", i.unit == "kg" ? .number(Double(i.quantity) / 1000, decimals: 3) : .integer(i.quantity)),
                    ("unit", .string(i.unit)), ("price", amount(i.priceMinor)), ("vat", text(i.vat)), ("line", .integer(Int64(i.line))),
                ])
            })),
            ("items_sum", amount(itemsSumMinor)),
            ("paid", amount(paidMinor)),
            ("vat", .array(vatRows.map { r in
                .object([
                    ("letter", text(r.letter)), ("rate", .string(Money.decimalString(r.rateHundredths, digits: 2))),
                    ("net", amount(r.netMinor)), ("tax", amount(r.taxMinor)), ("gross", amount(r.grossMinor)),
                ])
            })),
            ("status", .string(status.rawValue)),
            ("problems", .array(problems.map { .string($0) })),
            ("corrections", .array(corrections.map { .string($0) })),
            ("unread", .array(unread.map { .object([("line", .integer(Int64($0.line))), ("text", .string($0.text))]) })),
            ("text", .string(self.text)),
        ])
    }
}
