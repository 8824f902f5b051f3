/// ISO 20022 camt.053 bank-to-customer statements (`BkToCstmrStmt`), message versions
/// camt.053.001.02 to .001.08 (the element paths used here are the same in all of them, except
/// that .08 wraps a party's name in `Pty`).
///
/// Each booked `Ntry` of each `Stmt` is one record: `Amt` (its `Ccy` attribute the currency),
/// `CdtDbtInd` `DBIT` → expense, `CRDT` → income; `BookgDt` (else `ValDt`) `Dt` → a bare date,
/// `DtTm` → RFC 3339 (a `DtTm` without an offset keeps only its date: the zone is not known);
/// id from `AcctSvcrRef`, else `NtryRef`, else the transaction's `EndToEndId` (not when it is
/// `NOTPROVIDED`); the creditor's name (`RltdPties/Cdtr/Nm`) of a debit, or the debtor's of a
/// credit → title (merchant of an expense); `RmtInf/Ustrd`, else `AddtlTxInf`, else
/// `AddtlNtryInf` → notes.
///
/// An entry booked as a batch, with several `TxDtls`, becomes one record per `TxDtls` (its own
/// amount; id `<entry id>/<n>` unless it has its own `AcctSvcrRef`), so each purchase of the
/// batch is an expense. The details must add up to the entry's own amount (credits within a debit
/// entry subtract, and the other way round): a batch that does not is refused on the entry's line,
/// never imported as a different sum (issue 35, item 18). Entries with status `PDNG` (pending) or `INFO` are skipped: the booked
/// entry comes in a later statement. A reversal (`RvslInd` true) is imported in the direction
/// its `CdtDbtInd` gives, with "reversal" in its notes.
///
/// Described in ISO 20022's message definition report for Bank-to-Customer Cash Management
/// (camt.053, iso20022.org) and the Finnish banks' implementation guide (Finance Finland,
/// "ISO 20022 Account Statement camt.053 implementation guide").
enum CamtReader {
    static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [Result<StatementTransaction, RowError>] {
        func bad(_ line: Int, _ reason: String) -> ImportError {
            .badFile(RowError(file: file, line: line, column: "document", reason: reason))
        }
        let prolog = String(decoding: bytes.prefix(200), as: UTF8.self)
        var charset = StatementText.Charset.utf8
        if let declared = OFXReader.xmlEncoding(prolog.drop { $0 != "<" }.description) {
            guard let c = StatementText.Charset(declared: declared) else {
                throw bad(1, "encoding \"\(declared)\" is not one GeoSpend reads (UTF-8, ISO-8859-1, windows-1252)")
            }
            charset = c
        }
        let text = try StatementText.decode(bytes, charset, file: file)
        let root = try StatementReaders.parseMarkup(text, sgml: false, file: file)
        guard let document = root.children.first else { throw bad(1, "is empty; expected a camt.053 <Document>") }
        // The ISO 20022 namespace says which message this is (other declarations, such as xsi's, do not).
        let namespaces = document.attributes.filter { $0.key == "xmlns" || $0.key.hasPrefix("xmlns:") }.map(\.value)
        let iso = namespaces.filter { $0.contains("iso:20022") }.sorted()
        let namespace = iso.first { $0.contains("camt.053.") } ?? iso.first ?? ""
        guard document.name == "Document", namespace.isEmpty || namespace.contains("camt.053.") else {
            let what = namespace.isEmpty ? "<\(document.name)>" : namespace
            throw bad(document.line, "is \(what), not a camt.053 bank-to-customer statement (urn:iso:std:iso:20022:tech:xsd:camt.053.001.NN)")
        }
        guard let message = document.child("BkToCstmrStmt") else {
            throw bad(document.line, "has no BkToCstmrStmt; is this a camt.053 statement?")
        }
        var out: [Result<StatementTransaction, RowError>] = []
        for statement in message.children("Stmt") {
            let accountCurrency = statement.value("Acct", "Ccy")
            for entry in statement.children("Ntry") {
                let status = (entry.value("Sts") ?? entry.value("Sts", "Cd"))?.uppercased()
                if status == "PDNG" || status == "INFO" { continue }
                do {
                    for t in try transactions(entry, accountCurrency: accountCurrency) { out.append(.success(t)) }
                } catch {
                    out.append(.failure(RowError(file: file, line: error.line, column: error.column, reason: error.reason)))
                }
            }
        }
        return out
    }

    /// A field error with the line of the element at fault.
    struct EntryError: Error {
        let line: Int
        let column: String
        let reason: String
    }

    private static func transactions(_ entry: MarkupElement, accountCurrency: String?) throws(EntryError) -> [StatementTransaction] {
        func fail(_ column: String, _ reason: String, at e: MarkupElement = entry) -> EntryError {
            EntryError(line: e.line, column: column, reason: reason)
        }
        let details = entry.child("NtryDtls").map { $0.children("TxDtls") } ?? []
        let entryID = entry.value("AcctSvcrRef") ?? entry.value("NtryRef")
        let date = try occurred(entry)
        let reversal = entry.value("RvslInd")?.lowercased() == "true"

        func record(_ at: MarkupElement, amountElement: MarkupElement?, indicator: String?, detail: MarkupElement?, id: String?)
            throws(EntryError) -> StatementTransaction
        {
            guard let amountElement, !amountElement.text.trimmedWhitespace.isEmpty else {
                throw fail("Amt", "is missing; every entry needs its amount", at: at)
            }
            let amount: SignedDecimal
            do { amount = try SignedDecimal(amountElement.text, column: "Amt") } catch {
                throw fail(error.column, error.reason, at: amountElement)
            }
            guard !amount.negative else {
                throw fail("Amt", "\(ValueError.quote(amountElement.text.trimmedWhitespace)) is negative; camt amounts are positive and CdtDbtInd gives the direction", at: amountElement)
            }
            let kind: ExpenseKind
            switch indicator?.uppercased() {
            case "DBIT": kind = .expense
            case "CRDT": kind = .income
            case let other: throw fail("CdtDbtInd", "\(ValueError.quote(other ?? "")) is not DBIT or CRDT", at: at)
            }
            let party = kind == .expense ? "Cdtr" : "Dbtr"
            let name = detail.flatMap { $0.value("RltdPties", party, "Nm") ?? $0.value("RltdPties", party, "Pty", "Nm") }
            var t = StatementTransaction(line: at.line, kind: kind, amount: amount.magnitude, counterparty: name)
            t["currency"] = amountElement.attributes["Ccy"] ?? accountCurrency
            t["occurred_at"] = date
            t["id"] = id
            let ustrd = detail?.child("RmtInf")?.children("Ustrd").compactMap { $0.text.trimmedWhitespace.isEmpty ? nil : $0.text.trimmedWhitespace }
            var notes = (ustrd?.isEmpty == false ? ustrd!.joined(separator: " ") : nil)
                ?? detail?.value("AddtlTxInf") ?? entry.value("AddtlNtryInf")
            if reversal { notes = notes.map { "reversal: \($0)" } ?? "reversal" }
            t["notes"] = notes
            return t
        }

        func endToEnd(_ d: MarkupElement?) -> String? {
            guard let id = d?.value("Refs", "EndToEndId"), id.uppercased() != "NOTPROVIDED" else { return nil }
            return id
        }
        let indicator = entry.value("CdtDbtInd")
        if details.count <= 1 {
            let d = details.first
            return [try record(entry, amountElement: entry.child("Amt"), indicator: indicator, detail: d, id: entryID ?? endToEnd(d))]
        }
        let records = try details.enumerated().map { (n, d) throws(EntryError) in
            let amount = d.child("Amt") ?? d.child("AmtDtls")?.child("TxAmt")?.child("Amt")
            let id = d.value("Refs", "AcctSvcrRef") ?? entryID.map { "\($0)/\(n + 1)" } ?? endToEnd(d)
            return try record(d, amountElement: amount, indicator: d.value("CdtDbtInd") ?? indicator, detail: d, id: id)
        }
        try checkBatchSum(entry, records)
        return records
    }

    /// The batch's details, signed by their direction, add up exactly to the entry's amount in
    /// the entry's direction; else an error on the entry's line naming both sums.
    private static func checkBatchSum(_ entry: MarkupElement, _ records: [StatementTransaction]) throws(EntryError) {
        guard let amountElement = entry.child("Amt"), let entryAmount = try? SignedDecimal(amountElement.text, column: "Amt"),
            let total = exact(entryAmount.magnitude)
        else { return }  // the entry's own amount is missing or unreadable: the details stand alone
        let entryDebit = entry.value("CdtDbtInd")?.uppercased() == "DBIT"
        var sum = ExactDecimal(units: 0, scale: 0)
        for r in records {
            guard let part = r["amount"].flatMap(exact) else { return }  // reported on its own detail
            let sameWay = (r["kind"] == ExpenseKind.expense.rawValue) == entryDebit
            guard let next = sum.adding(part, negated: !sameWay) else {
                throw EntryError(line: entry.line, column: "Amt", reason: "the batch's details are too large to add up")
            }
            sum = next
        }
        guard sum.equals(total) else {
            let currency = amountElement.attributes["Ccy"].map { " \($0)" } ?? ""
            throw EntryError(
                line: entry.line, column: "Amt",
                reason: "the batch's \(records.count) TxDtls add up to \(sum.text)\(currency), not the entry's amount \(entryAmount.magnitude)\(currency); nothing of this entry is imported (check the statement with the bank)")
        }
    }

    /// A non-negative decimal text (`100.00`, `30`) as an exact integer with a scale; nil beyond
    /// 18 digits.
    private static func exact(_ text: String) -> ExactDecimal? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let digits = parts.joined()
        guard !digits.isEmpty, digits.count <= 18, let units = Int64(digits) else { return nil }
        return ExactDecimal(units: units, scale: parts.count == 2 ? parts[1].count : 0)
    }

    /// `units` × 10^-`scale`, added and compared exactly.
    struct ExactDecimal {
        var units: Int64
        var scale: Int

        func rescaled(to s: Int) -> Int64? {
            var u = units
            for _ in scale..<max(scale, s) {
                let (m, o) = u.multipliedReportingOverflow(by: 10)
                if o { return nil }
                u = m
            }
            return u
        }

        func adding(_ other: ExactDecimal, negated: Bool) -> ExactDecimal? {
            let s = max(scale, other.scale)
            guard let a = rescaled(to: s), let b = other.rescaled(to: s) else { return nil }
            let (sum, o) = negated ? a.subtractingReportingOverflow(b) : a.addingReportingOverflow(b)
            return o ? nil : ExactDecimal(units: sum, scale: s)
        }

        func equals(_ other: ExactDecimal) -> Bool {
            let s = max(scale, other.scale)
            guard let a = rescaled(to: s), let b = other.rescaled(to: s) else { return false }
            return a == b
        }

        var text: String { Money.decimalString(units, digits: scale) }
    }

    /// `BookgDt` (else `ValDt`) as a bare date or an RFC 3339 date-time.
    private static func occurred(_ entry: MarkupElement) throws(EntryError) -> String {
        guard let holder = entry.child("BookgDt") ?? entry.child("ValDt") else {
            throw EntryError(line: entry.line, column: "BookgDt", reason: "is missing (and so is ValDt); every entry needs its date")
        }
        let column = holder.name
        var text: String
        if let d = holder.value("Dt") {
            text = d
        } else if let dt = holder.value("DtTm") {
            // ISO 20022 date-times may leave the offset out: keep the day rather than guess a zone.
            let hasOffset = dt.count > 19 && (dt.hasSuffix("Z") || dt.dropFirst(19).contains("+") || dt.dropFirst(19).contains("-"))
            text = hasOffset ? dt : String(dt.prefix(10))
        } else {
            throw EntryError(line: holder.line, column: column, reason: "has neither Dt nor DtTm")
        }
        do { return try Timestamp(parsing: text).text } catch {
            throw EntryError(line: holder.line, column: column, reason: error.description)
        }
    }
}
