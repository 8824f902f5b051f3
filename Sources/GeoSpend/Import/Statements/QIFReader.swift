/// Quicken Interchange Format: sections started by `!Type:Bank`, `!Type:CCard`, `!Type:Cash`,
/// `!Type:Oth A`, `!Type:Oth L` hold transactions, one field per line (a letter, then the value),
/// each transaction ended by `^`. `D` date, `T` (or `U`) amount, `P` payee → title (and merchant
/// of an expense), `M` memo → notes, `L` category (`Cat:Sub/Class` → `Cat:Sub`; `[Account]` makes
/// it a transfer), `N` check number (ignored). A negative amount is money out. Other sections
/// (`!Account`, `!Type:Cat`, `!Type:Memorized`, `!Type:Invst`, `!Option:…`) are skipped.
///
/// QIF has no ids and no currency: records leave both absent. Dates carry no order: it comes from
/// `--date-format`, or from a day above 12 somewhere in the file. Described in Quicken's QIF
/// documentation ("Quicken Interchange Format (QIF) files", Intuit support article) and
/// Wikipedia's "Quicken Interchange Format".
enum QIFReader {
    /// The order of a date's numbers.
    enum DateOrder: Equatable {
        case monthDayYear, dayMonthYear, yearMonthDay

        /// From a pattern such as `MM/dd/yy`, `dd.MM.yyyy` or `yyyy-MM-dd`.
        init?(pattern: String) {
            guard let d = pattern.firstIndex(of: "d"), let m = pattern.firstIndex(of: "M"), let y = pattern.firstIndex(of: "y")
            else { return nil }
            if y < m && m < d { self = .yearMonthDay } else if m < d && d < y { self = .monthDayYear } else if d < m && m < y {
                self = .dayMonthYear
            } else { return nil }
        }
    }

    private static let transactionTypes: Set<String> = ["bank", "ccard", "cash", "oth a", "oth l"]

    static func read(_ bytes: [UInt8], file: String, dateFormat: String?, minorDigits: Int = 2) throws(ImportError)
        -> [Result<StatementTransaction, RowError>]
    {
        // QIF declares no character set: UTF-8 when the bytes are UTF-8, else Windows-1252
        // (what Quicken and Windows banks write).
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let charset: StatementText.Charset = String(validating: body, as: UTF8.self) == nil ? .windows1252 : .utf8
        let text = try StatementText.decode(bytes, charset, file: file)
        var order: DateOrder?
        if let dateFormat {
            guard let o = DateOrder(pattern: dateFormat) else {
                throw .badFile(RowError(file: file, line: 1, column: "D", reason: "--date-format \(ValueError.quote(dateFormat)) does not order d, M and y (e.g. MM/dd/yyyy or dd.MM.yyyy)"))
            }
            order = o
        }

        // Pass 1: the records of the transaction sections, with their raw fields.
        struct Raw { var line: Int; var fields: [(letter: Character, value: String, line: Int)] = [] }
        var records: [Raw] = []
        var inTransactions = false
        var sawSection = false
        var current: Raw?
        for (n, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = n + 1
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.trimmedWhitespace.isEmpty { continue }
            if line.hasPrefix("!") {
                let header = line.trimmedWhitespace.lowercased()
                sawSection = true
                if header.hasPrefix("!type:") {
                    inTransactions = transactionTypes.contains(String(header.dropFirst(6)).trimmedWhitespace)
                } else if header.hasPrefix("!option") || header.hasPrefix("!clear") {
                    continue  // switches, not sections
                } else {
                    inTransactions = false
                }
                current = nil
                continue
            }
            guard inTransactions else { continue }
            if line.first == "^" {
                if let c = current { records.append(c) }
                current = nil
                continue
            }
            if current == nil { current = Raw(line: lineNumber) }
            current!.fields.append((line.first!, String(line.dropFirst()), lineNumber))
        }
        if let c = current, !c.fields.isEmpty { records.append(c) }  // a last record without its ^
        guard sawSection else {
            throw .badFile(RowError(file: file, line: 1, column: "document", reason: "is not a QIF file: expected a !Type:Bank (or CCard, Cash) line first"))
        }

        // The date order: given, or the one the file's dates allow.
        let dates = records.flatMap { r in r.fields.filter { $0.letter == "D" } }
        if order == nil {
            order = try inferOrder(dates.map { ($0.value, $0.line) }, file: file)
        }

        // Pass 2: records.
        return records.map { r -> Result<StatementTransaction, RowError> in
            do throws(FieldError) {
                return .success(try transaction(r.line, r.fields, order: order ?? .monthDayYear, minorDigits: minorDigits))
            } catch {
                let line = r.fields.first { String($0.letter) == error.column }?.line ?? r.line
                return .failure(RowError(file: file, line: line, column: error.column, reason: error.reason))
            }
        }
    }

    private static func transaction(
        _ line: Int, _ fields: [(letter: Character, value: String, line: Int)], order: DateOrder, minorDigits: Int
    ) throws(FieldError) -> StatementTransaction {
        func value(_ letter: Character) -> String? {
            fields.first { $0.letter == letter }.map { $0.value.trimmedWhitespace }.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let amountText = value("T") ?? value("U") else {
            throw FieldError(column: "T", reason: "is missing; every transaction needs its amount (a T line)")
        }
        let amount = try amountValue(amountText, minorDigits: minorDigits)
        guard let dateText = value("D") else {
            throw FieldError(column: "D", reason: "is missing; every transaction needs its date (a D line)")
        }
        let category = value("L")
        let isTransfer = category?.hasPrefix("[") == true
        let kind: ExpenseKind = isTransfer ? .transfer : amount.negative ? .expense : .income
        var t = StatementTransaction(line: line, kind: kind, amount: amount.magnitude, counterparty: value("P"))
        t["occurred_at"] = try date(dateText, order: order)
        t["notes"] = value("M")
        if let category, !isTransfer {
            t["category"] = String(category.prefix { $0 != "/" }).trimmedWhitespace
        }
        return t
    }

    /// `-1,234.56` → 1234.56, `-12.50`, and a decimal comma when it is the only mark (`-12,50`);
    /// `1.234,56` with both marks takes the last as decimal. A lone comma before exactly three
    /// digits groups thousands (`-1,234` → 1234), except in a currency with three minor digits
    /// (KWD, BHD), where it is the decimal mark (`-1,234` → 1.234, issue 35 item 14). Groups after
    /// the first have three digits: `-12,345,67` is refused, never read as 1234567.
    /// - Parameter minorDigits: the import's currency's (`--currency`); QIF names none.
    static func amountValue(_ text: String, minorDigits: Int = 2) throws(FieldError) -> SignedDecimal {
        func fail(_ why: String) -> FieldError { FieldError(column: "T", reason: "\(ValueError.quote(text)) \(why)") }
        var body = Substring(text.trimmedWhitespace)
        var sign = ""
        if let first = body.first, first == "-" || first == "+" {
            sign = String(first)
            body = body.dropFirst()
        }
        let commas = body.count { $0 == "," }, dots = body.count { $0 == "." }
        var decimalMark: Character?, groupMark: Character?
        if commas > 0 && dots > 0 {
            let last = body.last { $0 == "," || $0 == "." }!
            (decimalMark, groupMark) = last == "," ? (",", ".") : (".", ",")
            guard body.count(where: { $0 == last }) == 1 else { throw fail("is not an amount: it has more than one decimal mark") }
        } else if commas + dots > 1 {
            groupMark = commas > 0 ? "," : "."
        } else if commas + dots == 1 {
            let mark: Character = commas > 0 ? "," : "."
            let after = body.count - 1 - body.distance(from: body.startIndex, to: body.firstIndex(of: mark)!)
            if mark == "," && after == 3 && minorDigits != 3 { groupMark = "," } else { decimalMark = mark }
        }
        var integer = body, fraction: Substring?
        if let decimalMark, let at = body.lastIndex(of: decimalMark) {
            integer = body[..<at]
            fraction = body[body.index(after: at)...]
        }
        if let groupMark {
            let groups = integer.split(separator: groupMark, omittingEmptySubsequences: false)
            guard (1...3).contains(groups[0].count), groups.dropFirst().allSatisfy({ $0.count == 3 }) else {
                throw fail("is not an amount: its digits are grouped wrongly (groups of three after the first, like -1,234,567.89)")
            }
            integer = Substring(groups.joined())
        }
        do { return try SignedDecimal(sign + integer + (fraction.map { "." + $0 } ?? ""), column: "T") } catch {
            throw fail("is not an amount")
        }
    }

    /// The three numbers of a date (`03/01/2025`, `3/ 1'25`, `01.03.2025`, `2025-03-01`) and
    /// whether its year came after an apostrophe (Quicken's mark for 2000 onwards).
    static func numbers(_ text: String) -> (Int, Int, Int, firstIsYear: Bool, apostrophe: Bool)? {
        var parts: [String] = []
        var current = ""
        var apostrophe = false
        for c in text {
            if c.isASCII && c.isNumber {
                current.append(c)
            } else if "/.-' ".contains(c) {
                if c == "'" { apostrophe = true }
                if !current.isEmpty { parts.append(current); current = "" }
            } else {
                return nil
            }
        }
        if !current.isEmpty { parts.append(current) }
        guard parts.count == 3, let a = Int(parts[0]), let b = Int(parts[1]), let c = Int(parts[2]) else { return nil }
        return (a, b, c, parts[0].count == 4, apostrophe)
    }

    /// The order every date allows: a first number above 12 means day first, a second one above
    /// 12 month first. - Throws: when the dates disagree, or when none settles it.
    static func inferOrder(_ dates: [(String, Int)], file: String) throws(ImportError) -> DateOrder? {
        var dayFirst: Int?, monthFirst: Int?, ambiguous: (String, Int)?
        for (text, line) in dates {
            guard let n = numbers(text) else { continue }  // reported on its row
            if n.firstIsYear { continue }  // 2025-03-01 reads one way only
            if n.0 > 12 { dayFirst = dayFirst ?? line } else if n.1 > 12 { monthFirst = monthFirst ?? line } else if n.0 != n.1 {
                ambiguous = ambiguous ?? (text, line)
            }
        }
        switch (dayFirst, monthFirst) {
        case (let d?, let m?):
            throw .badFile(RowError(
                file: file, line: max(d, m), column: "D",
                reason: "the dates disagree: line \(d) puts the day first, line \(m) the month; pass --date-format with the order of this file's dates"))
        case (.some, nil): return .dayMonthYear
        case (nil, .some): return .monthDayYear
        case (nil, nil):
            guard let (text, line) = ambiguous else { return .monthDayYear }  // every date reads the same either way
            throw .badFile(RowError(
                file: file, line: line, column: "D",
                reason: "\(ValueError.quote(text)) could be day or month first and no date in the file settles it; pass --date-format MM/dd/yyyy or --date-format dd/MM/yyyy"))
        }
    }

    static func date(_ text: String, order: DateOrder) throws(FieldError) -> String {
        guard let n = numbers(text) else {
            throw FieldError(column: "D", reason: "\(ValueError.quote(text)) is not a date like 03/01/2025, 3/ 1'25 or 01.03.2025")
        }
        var (year, month, day): (Int, Int, Int)
        if n.firstIsYear || order == .yearMonthDay {
            (year, month, day) = (n.0, n.1, n.2)
        } else if order == .dayMonthYear {
            (day, month, year) = (n.0, n.1, n.2)
        } else {
            (month, day, year) = (n.0, n.1, n.2)
        }
        if year < 100 {
            // Two digits: after an apostrophe 2000 + yy (Quicken's convention), else 1970–2069.
            year += n.apostrophe || year < 70 ? 2000 : 1900
        }
        let rfc = "\(Timestamp.pad(year, 4))-\(Timestamp.pad(month, 2))-\(Timestamp.pad(day, 2))"
        do { return try Timestamp(parsing: rfc).text } catch {
            throw FieldError(column: "D", reason: "\(ValueError.quote(text)) is not a valid date (read as \(rfc))")
        }
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
