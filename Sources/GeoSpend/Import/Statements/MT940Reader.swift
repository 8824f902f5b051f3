import Foundation

/// SWIFT MT940 customer statements as banks offer them for download (`.sta`, `.mt940`), in
/// the German banks' flavour (DFÜ-Abkommen, Anlage 3 "Datenformate", with the structured
/// `:86:`).
///
/// A file holds one or more statements, each a run of fields `:TAG:value` (a value goes on over
/// the lines that do not start a new field; SWIFT's `{1:…}{4:` envelope and the `-` ending a
/// message are skipped). Read: `:60F:`/`:60M:` (the opening balance, `C250301EUR1234,56`) for
/// the statement's currency, and each `:61:` statement line with the `:86:` after it:
/// - `:61:` `YYMMDD` value date, optional `MMDD` entry (booking) date, `D`/`C` (`RD`/`RC`
///   reversals: a reversed credit is money out), an optional funds-code letter, the amount with
///   a decimal comma, then the transaction type (`NMSC`, …) and references. `occurred_at` is
///   the booking date (its year from the value date, across a turn of the year), else the value
///   date; debit → expense, credit → income.
/// - `:86:` structured as `GVC?00…?10…?20…`: `?00` booking text, `?20`–`?29` and `?60`–`?63`
///   the purpose (its 27-character lines joined), `?32`/`?33` the counterparty's name → title,
///   and merchant of money out. An unstructured `:86:` is the title as it is.
///
/// The format has no transaction id: records get the derived id (a second import of the same
/// file changes nothing). Described in SWIFT's Standards MT Message Reference Guide, Category 9
/// (MT940 fields 20, 25, 28C, 60a, 61, 86, 62a), and the Deutsche Kreditwirtschaft's
/// "Datenformate" appendix of the DFÜ agreement (field 86 subfields).
enum MT940Reader {
    static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [Result<StatementTransaction, RowError>] {
        // Banks write ISO 8859-1 or Windows-1252 as often as UTF-8.
        let charset: StatementText.Charset = String(validating: bytes, as: UTF8.self) == nil ? .windows1252 : .utf8
        let text = try StatementText.decode(bytes, charset, file: file)
        let fields = self.fields(text)
        guard fields.contains(where: { $0.tag == "61" || $0.tag == "20" }) else {
            throw .badFile(RowError(file: file, line: 1, column: "document", reason: "is not an MT940 statement: no :20: or :61: field"))
        }
        var out: [Result<StatementTransaction, RowError>] = []
        var currency: String?
        var i = 0
        while i < fields.count {
            let field = fields[i]
            i += 1
            switch field.tag {
            case "20": currency = nil  // a new statement
            case "60F", "60M":
                let v = Array(field.value.trimmedWhitespace)
                if v.count >= 10 { currency = String(v[7..<10]) }
            case "61":
                let info = i < fields.count && fields[i].tag == "86" ? fields[i] : nil
                if info != nil { i += 1 }
                do {
                    out.append(.success(try transaction(field, info: info, currency: currency)))
                } catch {
                    out.append(.failure(RowError(file: file, line: field.line, column: error.column, reason: error.reason)))
                }
            default: break
            }
        }
        return out
    }

    /// One `:TAG:value` field and the line it starts on; continuation lines joined with `\n`.
    struct Field {
        let tag: String
        let line: Int
        var value: String
    }

    static func fields(_ text: String) -> [Field] {
        var fields: [Field] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            var line = Substring(raw)
            if line.last == "\r" { line = line.dropLast() }
            // SWIFT's envelope: `{1:F01…}{2:…}{4:` before the fields, `-}` or `-` after them.
            if line.hasPrefix("{") {
                guard let start = line.range(of: "{4:") else { continue }
                line = line[start.upperBound...]
                if line.isEmpty { continue }
            }
            if line == "-" || line == "-}" || line.trimmedWhitespace.isEmpty { continue }
            if line.first == ":", let close = line.dropFirst().firstIndex(of: ":") {
                let tag = line[line.index(after: line.startIndex)..<close]
                if (2...3).contains(tag.count), tag.prefix(2).allSatisfy({ $0.isASCII && $0.isNumber }) {
                    fields.append(Field(tag: String(tag), line: n + 1, value: String(line[line.index(after: close)...])))
                    continue
                }
            }
            if !fields.isEmpty { fields[fields.count - 1].value += "\n" + line }
        }
        return fields
    }

    static func transaction(_ line: Field, info: Field?, currency: String?) throws(FieldError) -> StatementTransaction {
        let first = line.value.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        let s = Array(first)
        func fail(_ why: String) -> FieldError {
            FieldError(column: "field 61", reason: "\(ValueError.quote(first)) \(why)")
        }
        func digits(_ r: Range<Int>) -> Bool { r.upperBound <= s.count && s[r].allSatisfy { $0.isASCII && $0.isNumber } }
        guard digits(0..<6) else { throw fail("does not start with the value date YYMMDD") }
        let year = 2000 + Int(String(s[0..<2]))!, month = Int(String(s[2..<4]))!, day = Int(String(s[4..<6]))!
        var i = 6
        var booked = (year: year, month: month, day: day)
        if digits(6..<10) {
            let m = Int(String(s[6..<8]))!, d = Int(String(s[8..<10]))!
            // Booked in January for a December value date, or the other way round.
            let y = month == 12 && m == 1 ? year + 1 : month == 1 && m == 12 ? year - 1 : year
            booked = (y, m, d)
            i = 10
        }
        let debit: Bool
        if i + 1 < s.count, s[i] == "R", s[i + 1] == "C" || s[i + 1] == "D" {
            debit = s[i + 1] == "C"  // reversal of a credit takes money out
            i += 2
        } else if i < s.count, s[i] == "C" || s[i] == "D" {
            debit = s[i] == "D"
            i += 1
        } else {
            throw fail("has no debit/credit mark (D, C, RD, RC) after the dates")
        }
        if i < s.count, s[i].isLetter { i += 1 }  // the funds code, the currency's third letter
        var amountText = ""
        while i < s.count, s[i].isASCII && s[i].isNumber || s[i] == "," {
            amountText.append(s[i])
            i += 1
        }
        guard amountText.contains(where: \.isNumber), amountText.filter({ $0 == "," }).count == 1 else {
            throw fail("has no amount with a decimal comma (like 12,50) after the debit/credit mark")
        }
        let amount = try SignedDecimal(amountText, column: "field 61")
        let date = "\(Timestamp.pad(booked.year, 4))-\(Timestamp.pad(booked.month, 2))-\(Timestamp.pad(booked.day, 2))"
        do { _ = try Timestamp(parsing: date) } catch { throw fail("has no valid date: \(error)") }

        let details = info.map { Self.details($0.value) }
        var t = StatementTransaction(line: line.line, kind: debit ? .expense : .income, amount: amount.magnitude, counterparty: details?.name)
        t["occurred_at"] = date
        t["currency"] = currency
        if let details {
            if details.name == nil { t["title"] = details.text }
            let notes = [details.bookingText, details.purpose].compactMap { $0 }
            t["notes"] = notes.isEmpty ? nil : notes.joined(separator: "\n")
        }
        return t
    }

    /// What a `:86:` says: structured (`166?00…?20…?32…`) or free text.
    struct Details: Equatable {
        var bookingText: String?
        var purpose: String?
        var name: String?
        /// The whole field when it is not structured.
        var text: String?
    }

    static func details(_ value: String) -> Details {
        // DFÜ wraps the field at 65 characters anywhere, even inside a subfield: the line ends
        // are not part of the text.
        let joined = value.split(separator: "\n").joined()
        guard joined.count > 3, let mark = joined.first(where: { !$0.isNumber }), mark == "?" || mark == ">" else {
            let text = value.split(separator: "\n").map { $0.trimmedWhitespace }.joined(separator: " ")
            return Details(text: text.isEmpty ? nil : text)
        }
        var subfields: [Int: String] = [:]
        for piece in joined.split(separator: mark).dropFirst() {
            guard piece.count >= 2, let key = Int(piece.prefix(2)) else { continue }
            subfields[key, default: ""] += piece.dropFirst(2)
        }
        func text(_ keys: [Int]) -> String? {
            let t = keys.compactMap { subfields[$0] }.joined().trimmedWhitespace
            return t.isEmpty ? nil : t
        }
        return Details(
            bookingText: text([0]), purpose: text(Array(20...29) + Array(60...63)), name: text([32, 33]))
    }
}
