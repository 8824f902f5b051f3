import Foundation
import PropertyBased
import Testing

@testable import GeoSpend

/// Issue 35 (hardening round 2): QIF amounts read in the import's currency's minor units with
/// their digit grouping checked (item 14), and camt.053 batches that must add up to their entry
/// (item 18).
@Suite struct StatementAmountTests {
    static func read(_ format: StatementFormat, _ text: String, currency: String? = nil) throws -> (records: [[String: String]], errors: [String]) {
        var records: [[String: String]] = []
        var errors: [String] = []
        let options = StatementOptions(currency: try currency.map { try Currency(code: $0) })
        _ = try Fixtures.withFile(Array(text.utf8)) { path in
            try StatementReaders.read(format, path: path, displayName: "statement", options: options) { result in
                switch result {
                case .success(let r):
                    var fields: [String: String] = [:]
                    for k in ["id", "kind", "amount", "currency"] { fields[k] = try r.text(k) }
                    records.append(fields)
                case .failure(let e): errors.append(e.description)
                }
            }
        }
        return (records, errors)
    }

    static func qif(_ amount: String) -> String { "!Type:Bank\nD2025-03-01\nT\(amount)\nPKiosk\n^\n" }

    // MARK: QIF (item 14)

    /// `-1,234` in KWD (three minor digits) is 1.234 dinars; in EUR it is 1,234 euros, grouped.
    @Test func qifAmountsFollowTheCurrencysMinorDigits() throws {
        #expect(try Self.read(.qif, Self.qif("-1,234"), currency: "KWD").records.first?["amount"] == "1.234")
        #expect(try Self.read(.qif, Self.qif("-1,234"), currency: "BHD").records.first?["amount"] == "1.234")
        #expect(try Self.read(.qif, Self.qif("-1,234"), currency: "EUR").records.first?["amount"] == "1234")
        #expect(try Self.read(.qif, Self.qif("-1,234")).records.first?["amount"] == "1234")
        #expect(try Self.read(.qif, Self.qif("-1.234,567"), currency: "KWD").records.first?["amount"] == "1234.567")
        #expect(try Self.read(.qif, Self.qif("-1,234.50"), currency: "EUR").records.first?["amount"] == "1234.50")
        #expect(try Self.read(.qif, Self.qif("-12,50"), currency: "EUR").records.first?["amount"] == "12.50")
        #expect(try Self.read(.qif, Self.qif("1,234,567.89"), currency: "EUR").records.first?["amount"] == "1234567.89")
    }

    /// Grouping in anything but threes after the first group is refused with the line and why.
    @Test func qifMalformedGroupingIsRefused() throws {
        for bad in ["-12,345,67", "1,23.45", "1234,567,8", ",234,567", "1.234.56,7", "1,234.5.6"] {
            let (records, errors) = try Self.read(.qif, Self.qif(bad), currency: "EUR")
            #expect(records.isEmpty, "\(bad) read as \(records)")
            #expect(errors.count == 1 && errors.first?.hasPrefix("statement:3: T: \"\(bad)\"") == true, "\(errors)")
        }
        let (_, errors) = try Self.read(.qif, Self.qif("-12,345,67"), currency: "EUR")
        #expect(errors == [#"statement:3: T: "-12,345,67" is not an amount: its digits are grouped wrongly (groups of three after the first, like -1,234,567.89)"#])
    }

    /// Any text of digits, marks and signs: an amount or an error, and an amount read back
    /// without its grouping equals the digits given.
    @Test func qifAmountsOfAnyShapeNeverTrap() async {
        let character = Boundary.pick(Array("0123456789,.,.-+ ") + ["1", "0"])
        await propertyCheck(count: 2000, input: character.array(of: 0...24), Boundary.pick([0, 2, 3])) { chars, digits in
            let text = String(chars)
            if let d = try? QIFReader.amountValue(text, minorDigits: digits) {
                let given = text.filter(\.isNumber)
                #expect(d.magnitude.filter(\.isNumber).drop { $0 == "0" } == given.drop { $0 == "0" }, "\(text) → \(d.magnitude)")
            }
        }
    }

    // MARK: camt.053 batches (item 18)

    static func batch(entry: String, details: [String], indicator: String = "DBIT") -> String {
        let tx = details.map { "<TxDtls><AmtDtls><TxAmt><Amt Ccy=\"EUR\">\($0)</Amt></TxAmt></AmtDtls></TxDtls>" }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
            <BkToCstmrStmt><Stmt><Acct><Ccy>EUR</Ccy></Acct>
            <Ntry><Amt Ccy="EUR">\(entry)</Amt><CdtDbtInd>\(indicator)</CdtDbtInd><Sts>BOOK</Sts>
            <BookgDt><Dt>2025-03-08</Dt></BookgDt><AcctSvcrRef>B1</AcctSvcrRef>
            <NtryDtls>
            \(tx)
            </NtryDtls></Ntry>
            </Stmt></BkToCstmrStmt>
            </Document>
            """
    }

    /// The attack: an entry of 100.00 whose details are 30.00 + 30.00 imported 60.00 silently.
    @Test func camtBatchThatDoesNotAddUpIsRefused() throws {
        let (records, errors) = try Self.read(.camt053, Self.batch(entry: "100.00", details: ["30.00", "30.00"]))
        #expect(records.isEmpty)
        #expect(errors == [
            "statement:4: Amt: the batch's 2 TxDtls add up to 60.00 EUR, not the entry's amount 100.00 EUR; nothing of this entry is imported (check the statement with the bank)"
        ])
        let good = try Self.read(.camt053, Self.batch(entry: "100.00", details: ["70.00", "30"]))
        #expect(good.errors == [] && good.records.map { $0["amount"] } == ["70.00", "30"])
        let credit = try Self.read(.camt053, Self.batch(entry: "5.5", details: ["2.25", "3.250"], indicator: "CRDT"))
        #expect(credit.errors == [] && credit.records.count == 2)
    }

    /// A detail in the other direction subtracts: 100 = 130 − 30, and 100 ≠ 130 + 30.
    @Test func camtBatchDetailsInTheOtherDirectionSubtract() throws {
        func batch(_ second: String) -> String {
            Self.batch(entry: "100.00", details: ["130.00", "30.00"]).replacingOccurrences(
                of: "<TxDtls><AmtDtls><TxAmt><Amt Ccy=\"EUR\">30.00</Amt></TxAmt></AmtDtls></TxDtls>",
                with: "<TxDtls><AmtDtls><TxAmt><Amt Ccy=\"EUR\">30.00</Amt></TxAmt></AmtDtls><CdtDbtInd>\(second)</CdtDbtInd></TxDtls>")
        }
        let refund = try Self.read(.camt053, batch("CRDT"))
        #expect(refund.errors == [] && refund.records.map { $0["kind"] } == ["expense", "income"])
        #expect(try Self.read(.camt053, batch("DBIT")).errors.first?.contains("add up to 160.00 EUR, not the entry's amount 100.00 EUR") == true)
    }

    /// The batches' sums at the extremes (18 digits, many details): an error, never a trap.
    @Test func camtBatchSumsOfExtremesNeverTrap() throws {
        let huge = "999999999999999999"
        let (records, errors) = try Self.read(.camt053, Self.batch(entry: huge, details: Array(repeating: huge, count: 20)))
        #expect(records.isEmpty && errors.count == 1, "\(errors)")
        let (_, fine) = try Self.read(.camt053, Self.batch(entry: "0.3", details: ["0.1", "0.1", "0.1"]))
        #expect(fine == [])
    }
}
