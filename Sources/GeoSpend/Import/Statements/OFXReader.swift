/// Open Financial Exchange bank and credit-card statements, 1.x (SGML after an `OFXHEADER:100`
/// header, end tags of data elements left out) and 2.x (XML with an `<?OFX …?>` declaration).
///
/// Each `STMTTRN` of a `BANKTRANLIST` in a `STMTRS` (bank) or `CCSTMTRS` (credit card) is one
/// record: `FITID` → id; `TRNAMT` → amount, a negative one money out (`expense`), a positive one
/// money in (`income`), `TRNTYPE` `XFER` a `transfer` whatever the sign; `DTPOSTED` → occurred_at;
/// `NAME` (or `PAYEE`'s `NAME`) → title, and merchant of an expense; `MEMO` → notes; currency
/// from the statement's `CURDEF`, or the transaction's `CURRENCY` aggregate, which says the
/// amount is in another currency (`ORIGCURRENCY` only says what it was converted from, so the
/// amount stays in `CURDEF`). Described in the OFX Specification 1.0.2 (§3.2.8 dates, §3.2.9
/// amounts, §11.4.2 statements) and 2.2 (ofx.net).
enum OFXReader {
    static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [Result<StatementTransaction, RowError>] {
        func bad(_ line: Int, _ reason: String) -> ImportError {
            .badFile(RowError(file: file, line: line, column: "document", reason: reason))
        }
        // The header is ASCII: read it as Latin-1 up to the first tag to learn the character set.
        let firstTag = bytes.firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
        let header = String(decoding: bytes[..<firstTag], as: Unicode.ASCII.self)
        let sgml: Bool
        var charset = StatementText.Charset.utf8
        if header.contains("OFXHEADER:") {
            sgml = true
            var values: [String: String] = [:]
            for line in header.split(whereSeparator: \.isNewline) {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { values[parts[0].trimmedWhitespace.uppercased()] = parts[1].trimmedWhitespace }
            }
            if values["ENCODING"]?.uppercased() == "UTF-8" {
                charset = .utf8
            } else if let declared = values["CHARSET"] {
                guard let c = StatementText.Charset(declared: declared) else {
                    throw bad(1, "CHARSET:\(declared) is not a character set GeoSpend reads (1252, ISO-8859-1, NONE, UTF-8); convert the file with iconv and declare ENCODING:UTF-8")
                }
                charset = c
            }
        } else {
            let start = bytes[firstTag...].prefix(400)
            let prolog = String(decoding: start, as: UTF8.self)
            guard prolog.hasPrefix("<?xml") || prolog.hasPrefix("<?OFX") || prolog.hasPrefix("<OFX") else {
                throw bad(1, "is not an OFX statement: expected the OFXHEADER:100 header of OFX 1.x or the <?OFX …?> declaration of 2.x")
            }
            sgml = false
            if let declared = xmlEncoding(prolog) {
                guard let c = StatementText.Charset(declared: declared) else {
                    throw bad(1, "encoding \"\(declared)\" is not one GeoSpend reads (UTF-8, ISO-8859-1, windows-1252)")
                }
                charset = c
            }
        }
        let text = try StatementText.decode(bytes, charset, file: file)
        let root = try StatementReaders.parseMarkup(text, sgml: sgml, file: file)
        guard let ofx = root.child("OFX") else { throw bad(1, "has no <OFX> element") }
        let statements = (ofx.descendants("STMTRS") + ofx.descendants("CCSTMTRS")).sorted { $0.line < $1.line }
        guard !statements.isEmpty else {
            throw bad(ofx.line, "has no bank (STMTRS) or credit-card (CCSTMTRS) statement; investment statements are not expenses")
        }
        var out: [Result<StatementTransaction, RowError>] = []
        for statement in statements {
            let currency = statement.value("CURDEF")
            for trn in statement.child("BANKTRANLIST")?.children("STMTTRN") ?? [] {
                do { out.append(.success(try transaction(trn, currency: currency))) } catch {
                    out.append(.failure(RowError(file: file, line: trn.line, column: error.column, reason: error.reason)))
                }
            }
        }
        // In file order: with an aggregate left open (SGML), a statement can sit inside another's
        // transaction, and its transactions came before the outer ones after it (fuzz: ofx).
        return out.enumerated().sorted { a, b in
            (line(a.element), a.offset) < (line(b.element), b.offset)
        }.map(\.element)
    }

    private static func line(_ r: Result<StatementTransaction, RowError>) -> Int {
        switch r {
        case .success(let t): t.line
        case .failure(let e): Int(e.location) ?? 0
        }
    }

    static func transaction(_ trn: MarkupElement, currency: String?) throws(FieldError) -> StatementTransaction {
        guard let amountText = trn.value("TRNAMT") else {
            throw FieldError(column: "TRNAMT", reason: "is missing; every STMTTRN needs its amount")
        }
        let amount = try SignedDecimal(amountText, column: "TRNAMT")
        guard let posted = trn.value("DTPOSTED") else {
            throw FieldError(column: "DTPOSTED", reason: "is missing; every STMTTRN needs the date it was posted")
        }
        let kind: ExpenseKind = trn.value("TRNTYPE")?.uppercased() == "XFER" ? .transfer : amount.negative ? .expense : .income
        var t = StatementTransaction(
            line: trn.line, kind: kind, amount: amount.magnitude, counterparty: trn.value("NAME") ?? trn.value("PAYEE", "NAME"))
        t["occurred_at"] = try date(posted, column: "DTPOSTED")
        t["id"] = trn.value("FITID")
        t["notes"] = trn.value("MEMO")
        t["currency"] = trn.value("CURRENCY", "CURSYM") ?? currency
        return t
    }

    /// An OFX date, `YYYYMMDD[HHMM[SS[.XXX]]][offset[:zone name]]`, as RFC 3339, or a bare date
    /// when there is no time. The offset is in hours, decimal for the zones half or three
    /// quarters of an hour off (`[-3.5:NST]`, `[+5.75]`); without one the time is GMT (§3.2.8.2).
    static func date(_ text: String, column: String) throws(FieldError) -> String {
        func fail(_ why: String) -> FieldError { FieldError(column: column, reason: "\(ValueError.quote(text)) \(why)") }
        let expected = "is not an OFX date like 20250301 or 20250301120000.000[+2:EET]"
        var s = Substring(text)
        var offsetMinutes = 0
        if let open = s.firstIndex(of: "[") {
            guard s.last == "]" else { throw fail(expected) }
            let zone = s[s.index(after: open)..<s.index(before: s.endIndex)]
            let number = zone.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
            offsetMinutes = try offset(String(number), fail)
            s = s[..<open]
        }
        let b = Array(s.utf8)
        guard [8, 12, 14].contains(b.count) || (b.count > 15 && b[14] == UInt8(ascii: ".")),
            b.prefix(14).allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { throw fail(expected) }
        func part(_ start: Int, _ length: Int) -> String { String(decoding: b[start..<(start + length)], as: UTF8.self) }
        var rfc = "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))"
        if b.count > 8 {
            rfc += "T\(part(8, 2)):\(part(10, 2)):\(b.count >= 14 ? part(12, 2) : "00")"
            if b.count > 15 { rfc += "." + part(15, b.count - 15) }
            rfc += Timestamp.offsetText(offsetMinutes)
        }
        do { return try Timestamp(parsing: rfc).text } catch {
            throw fail(error.description.contains("fraction") ? "has a malformed fraction of a second" : expected + " (\(rfc) is not a valid date)")
        }
    }

    /// `+2`, `-5`, `0`, `-3.5`, `+5.75` → minutes east of GMT.
    private static func offset(_ text: String, _ fail: (String) -> FieldError) throws(FieldError) -> Int {
        var s = Substring(text.trimmedWhitespace)
        let negative = s.first == "-"
        if s.first == "-" || s.first == "+" { s = s.dropFirst() }
        let pieces = s.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(pieces.count), let hours = Int(pieces[0]), hours <= 14 else {
            throw fail("has a time-zone offset that is not a number of hours, like [+2:EET]")
        }
        var minutes = hours * 60
        if pieces.count == 2 {
            // Decimal hours: .5 is half an hour. "+5.30" would be 5 h 18 min, a zone no one has;
            // it is refused rather than read as 5:30, which the spec does not say.
            switch pieces[1] {
            case "0", "00": break
            case "25": minutes += 15
            case "5", "50": minutes += 30
            case "75": minutes += 45
            default:
                throw fail("has a time-zone offset in decimal hours that is not a whole quarter hour (write +5.5 for UTC+05:30)")
            }
        }
        return negative ? -minutes : minutes
    }

    /// The `encoding` of an XML declaration, if the prolog has one.
    static func xmlEncoding(_ prolog: String) -> String? {
        guard prolog.hasPrefix("<?xml"), let end = prolog.range(of: "?>") else { return nil }
        let decl = prolog[..<end.lowerBound]
        guard let key = decl.range(of: "encoding") else { return nil }
        let rest = decl[key.upperBound...].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }
}
