import Foundation
import Testing

@testable import GeoSpend

/// The bank-statement readers (OFX 1.x/2.x, QIF, camt.053) on the example files in
/// Data/examples (written from the format descriptions cited in Data/README.md) and on small
/// inline statements for dates, inference and errors.
@Suite struct StatementReaderTests {
    static let keys = ["id", "kind", "amount", "currency", "occurred_at", "title", "merchant", "notes", "category"]

    /// Records as key → value (absent keys left out), and the errors as printed.
    static func read(
        _ format: StatementFormat, path: String, name: String = "statement", options: StatementOptions = StatementOptions()
    ) throws -> (records: [[String: String]], locations: [String], errors: [String]) {
        var records: [[String: String]] = []
        var locations: [String] = []
        var errors: [String] = []
        _ = try StatementReaders.read(format, path: path, displayName: name, options: options) { result in
            switch result {
            case .success(let r):
                var fields: [String: String] = [:]
                for k in keys { fields[k] = try r.text(k) }
                records.append(fields)
                locations.append(r.location)
            case .failure(let e): errors.append(e.description)
            }
        }
        return (records, locations, errors)
    }

    static func read(_ format: StatementFormat, text: String, options: StatementOptions = StatementOptions()) throws
        -> (records: [[String: String]], locations: [String], errors: [String])
    {
        try Fixtures.withFile(Array(text.utf8)) { try read(format, path: $0, options: options) }
    }

    /// The error a statement is refused with as a whole (`badFile`), as printed.
    static func refusal(_ format: StatementFormat, bytes: [UInt8], options: StatementOptions = StatementOptions()) -> String? {
        do {
            _ = try Fixtures.withFile(bytes) { try read(format, path: $0, options: options) }
            return nil
        } catch { return "\(error)" }
    }

    // MARK: OFX

    @Test func ofx1ExampleReadsEveryTransaction() throws {
        let (records, locations, errors) = try Self.read(.ofx, path: Fixtures.path("Data/examples/statement-ofx1.ofx"))
        #expect(errors == [])
        #expect(records.count == 14)
        #expect(locations.first == "39")  // the line of the first <STMTTRN>
        #expect(records[0] == [
            "id": "202503010001", "kind": "expense", "amount": "4.50", "currency": "EUR",
            "occurred_at": "2025-03-01T08:30:00.000+02:00", "title": "Robert's Coffee Kamppi",
            "merchant": "Robert's Coffee Kamppi", "notes": "Card purchase",
        ])
        // CHARSET:1252: "ä" is the byte 0xE4 in the file.
        #expect(records[1]["merchant"] == "Kahvila Säpä")
        #expect(records[1]["occurred_at"] == "2025-03-01T12:45:00+02:00")
        #expect(records[2]["occurred_at"] == "2025-03-02")  // a date without a time stays a date
        #expect(records[4] == [
            "id": "202503050001", "kind": "income", "amount": "2500.00", "currency": "EUR",
            "occurred_at": "2025-03-05", "title": "Acme Oy", "notes": "Salary March",
        ])
        #expect(records[5]["merchant"] == "Ravintola Savoy & Co")  // &amp;
        #expect(records[6]["kind"] == "transfer")
        #expect(records[6]["amount"] == "200.00")
        #expect(records[6]["merchant"] == nil)
    }

    @Test func ofxSGMLAndXMLGiveTheSameRecords() throws {
        let one = try Self.read(.ofx, path: Fixtures.path("Data/examples/statement-ofx1.ofx"))
        let two = try Self.read(.ofx, path: Fixtures.path("Data/examples/statement-ofx2.ofx"))
        #expect(two.errors == [])
        #expect(one.records.count == 14)
        #expect(one.records == two.records)
    }

    @Test(arguments: [
        ("20250301", "2025-03-01"),
        ("20250301[+2:EET]", "2025-03-01"),
        ("20250301120000", "2025-03-01T12:00:00Z"),  // no zone: GMT (§3.2.8.2)
        ("202503011200", "2025-03-01T12:00:00Z"),
        ("20250301120000.000[+2:EET]", "2025-03-01T12:00:00.000+02:00"),
        ("20251005132200.124[-5:EST]", "2025-10-05T13:22:00.124-05:00"),
        ("20250301120000[0:GMT]", "2025-03-01T12:00:00Z"),
        ("20250301120000[-3.5:NST]", "2025-03-01T12:00:00-03:30"),
        ("20250301120000[+5.5:IST]", "2025-03-01T12:00:00+05:30"),
        ("20250301120000[+5.75]", "2025-03-01T12:00:00+05:45"),
        ("20250301120000[3]", "2025-03-01T12:00:00+03:00"),
    ])
    func ofxDates(input: String, expected: String) throws {
        #expect(try OFXReader.date(input, column: "DTPOSTED") == expected)
    }

    @Test(arguments: ["2025-03-01", "20251301", "20250230", "20250301126000", "20250301120000[+5.30:IST]", "20250301120000[EET]", "2025030112", ""])
    func ofxBadDates(input: String) {
        #expect(throws: FieldError.self) { try OFXReader.date(input, column: "DTPOSTED") }
    }

    static func ofx2(_ transactions: String, currency: String = "EUR", statement: String = "STMTRS") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
        <OFX>
        <CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>1</TRNUID>
        <\(statement)>
        <CURDEF>\(currency)</CURDEF>
        <BANKTRANLIST>
        \(transactions)
        </BANKTRANLIST>
        </\(statement)>
        </CCSTMTTRNRS></CREDITCARDMSGSRSV1>
        </OFX>
        """
    }

    @Test func ofxCreditCardAndTransactionCurrency() throws {
        let text = Self.ofx2("""
            <STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20250301</DTPOSTED><TRNAMT>-1200</TRNAMT><FITID>a</FITID>
            <NAME>Ichiran</NAME><CURRENCY><CURRATE>0.0061</CURRATE><CURSYM>JPY</CURSYM></CURRENCY></STMTTRN>
            <STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20250302</DTPOSTED><TRNAMT>-7,30</TRNAMT><FITID>b</FITID>
            <PAYEE><NAME>Fazer</NAME></PAYEE><ORIGCURRENCY><CURRATE>1.1</CURRATE><CURSYM>SEK</CURSYM></ORIGCURRENCY></STMTTRN>
            """, statement: "CCSTMTRS")
        let (records, locations, errors) = try Self.read(.ofx, text: text)
        #expect(errors == [])
        #expect(locations == ["8", "10"])
        #expect(records.map { $0["currency"] } == ["JPY", "EUR"])  // CURRENCY overrides; ORIGCURRENCY does not
        #expect(records.map { $0["amount"] } == ["1200", "7.30"])  // OFX allows a decimal comma
        #expect(records[1]["merchant"] == "Fazer")
    }

    @Test func ofxBadTransactionsAreReportedAtTheirLine() throws {
        let text = Self.ofx2("""
            <STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20250301</DTPOSTED><TRNAMT>12,5O</TRNAMT><FITID>a</FITID></STMTTRN>
            <STMTTRN><TRNTYPE>DEBIT</TRNTYPE><TRNAMT>-1.00</TRNAMT><FITID>b</FITID></STMTTRN>
            <STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20250301</DTPOSTED><TRNAMT>-2.00</TRNAMT><FITID>c</FITID></STMTTRN>
            """)
        let (records, _, errors) = try Self.read(.ofx, text: text)
        #expect(records.count == 1)
        #expect(errors == [
            #"statement:8: TRNAMT: "12,5O" is not a decimal number"#,
            "statement:9: DTPOSTED: is missing; every STMTTRN needs the date it was posted",
        ])
    }

    @Test func ofxBrokenDocumentsAreRefusedWithTheLine() {
        let sgml = "OFXHEADER:100\nDATA:OFXSGML\nCHARSET:1252\n\n<OFX>\n<BANKMSGSRSV1>\n<STMTTRNRS>\n<STMTRS>\n<CURDEF>EUR\n</BANKMSGSRSV1>\n</OFX>\n"
        // SGML closes the open data elements and aggregates up to </BANKMSGSRSV1>: no transaction, no error.
        #expect(Self.refusal(.ofx, bytes: Array(sgml.utf8)) == nil)
        let unclosed = "OFXHEADER:100\nCHARSET:1252\n\n<OFX>\n<BANKMSGSRSV1>\n<STMTRS>\n<CURDEF>EUR\n"
        #expect(Self.refusal(.ofx, bytes: Array(unclosed.utf8)) == "statement:6: document: <STMTRS> is never closed (the file ends first)")
        let xml = Self.ofx2("<STMTTRN><TRNAMT>-1.00</TRNAMT><DTPOSTED>20250301</DTPOSTED>\n</BANKTRANLIST>")
        #expect(Self.refusal(.ofx, bytes: Array(xml.utf8)) == "statement:9: document: </BANKTRANLIST> where </STMTTRN> (opened on line 8) was expected")
        #expect(Self.refusal(.ofx, bytes: Array("date,amount\n".utf8))?.contains("is not an OFX statement") == true)
        let badCharset = "OFXHEADER:100\nCHARSET:8859-15\n\n<OFX></OFX>"
        #expect(Self.refusal(.ofx, bytes: Array(badCharset.utf8))?.contains("CHARSET:8859-15 is not a character set GeoSpend reads") == true)
        // 0x81 has no character in Windows-1252.
        let undefined = Array("OFXHEADER:100\nCHARSET:1252\n\n<OFX>\n<NAME>a".utf8) + [0x81] + Array("\n</OFX>".utf8)
        #expect(Self.refusal(.ofx, bytes: undefined) == "statement:5: encoding: byte 0x81 is not a character in Windows-1252")
    }

    // MARK: QIF

    @Test func qifExampleReadsEveryTransaction() throws {
        let (records, locations, errors) = try Self.read(.qif, path: Fixtures.path("Data/examples/statement.qif"))
        #expect(errors == [])
        #expect(records.count == 14)
        #expect(locations.prefix(3) == ["2", "8", "14"])
        // Day first: 29.03.2025 and others settle it.
        #expect(records[0] == [
            "kind": "expense", "amount": "4.50", "occurred_at": "2025-03-01", "title": "Robert's Coffee Kamppi",
            "merchant": "Robert's Coffee Kamppi", "notes": "Card purchase", "category": "Food:Coffee",
        ])
        #expect(records[1]["merchant"] == "Kahvila Säpä")
        #expect(records[4] == [
            "kind": "income", "amount": "2500.00", "occurred_at": "2025-03-05", "title": "Acme Oy", "notes": "Salary March",
            "category": "Salary",
        ])
        #expect(records[5]["category"] == "Food:Restaurants")  // "/Personal" is a class, not a category
        #expect(records[6] == [
            "kind": "transfer", "amount": "200.00", "occurred_at": "2025-03-07", "title": "Own account", "notes": "To savings",
        ])
        #expect(records.allSatisfy { $0["id"] == nil && $0["currency"] == nil })
    }

    @Test func qifDateOrderFromTheFileOrTheOption() throws {
        let monthFirst = "!Type:CCard\nD3/ 1'25\nT-4.50\n^\nD03/14/2025\nT-1.00\n^\n"
        #expect(try Self.read(.qif, text: monthFirst).records.map { $0["occurred_at"] } == ["2025-03-01", "2025-03-14"])
        let ambiguous = "!Type:Bank\nD03/01/2025\nT-4.50\n^\nD04/02/2025\nT-1.00\n^\n"
        #expect(Self.refusal(.qif, bytes: Array(ambiguous.utf8)) == #"statement:2: D: "03/01/2025" could be day or month first and no date in the file settles it; pass --date-format MM/dd/yyyy or --date-format dd/MM/yyyy"#)
        let dayFirst = try Self.read(.qif, text: ambiguous, options: StatementOptions(dateFormat: "dd/MM/yyyy"))
        #expect(dayFirst.records.map { $0["occurred_at"] } == ["2025-01-03", "2025-02-04"])
        let given = try Self.read(.qif, text: ambiguous, options: StatementOptions(dateFormat: "MM/dd/yy"))
        #expect(given.records.map { $0["occurred_at"] } == ["2025-03-01", "2025-04-02"])
        let disagree = "!Type:Bank\nD13/01/2025\nT-4.50\n^\nD01/14/2025\nT-1.00\n^\n"
        #expect(Self.refusal(.qif, bytes: Array(disagree.utf8))?.contains("the dates disagree: line 2 puts the day first, line 5 the month") == true)
        let iso = "!Type:Bank\nD2025-03-01\nT-4.50\n^\n"
        #expect(try Self.read(.qif, text: iso).records.first?["occurred_at"] == "2025-03-01")
        let sameEitherWay = "!Type:Bank\nD03.03.2025\nT-4.50\n^\n"
        #expect(try Self.read(.qif, text: sameEitherWay).records.first?["occurred_at"] == "2025-03-03")
    }

    @Test func qifAmountsAndSkippedSections() throws {
        let text = """
            !Account
            NChecking
            TBank
            ^
            !Type:Cat
            NFood
            E
            ^
            !Type:Bank
            D13.03.2025
            T-1.234,56
            ^
            D13.03.2025
            U-12,50
            ^
            D13.03.2025
            T1,234
            ^
            """
        let (records, _, errors) = try Self.read(.qif, text: text)
        #expect(errors == [])
        #expect(records.map { $0["amount"] } == ["1234.56", "12.50", "1234"])
    }

    @Test func qifBadRecordsAreReportedAtTheirField() throws {
        let text = "!Type:Bank\nD13.03.2025\nT-4.5O\n^\nD31.02.2025\nT-1.00\n^\nPNo date\nT-1.00\n^\n"
        let (records, _, errors) = try Self.read(.qif, text: text)
        #expect(records.isEmpty)
        #expect(errors == [
            #"statement:3: T: "-4.5O" is not an amount"#,
            #"statement:5: D: "31.02.2025" is not a valid date (read as 2025-02-31)"#,
            "statement:8: D: is missing; every transaction needs its date (a D line)",
        ])
        #expect(Self.refusal(.qif, bytes: Array("D01.03.2025\nT-1\n^\n".utf8))?.contains("is not a QIF file") == true)
    }

    // MARK: camt.053

    @Test func camtExampleReadsBookedEntries() throws {
        let (records, locations, errors) = try Self.read(.camt053, path: Fixtures.path("Data/examples/statement-camt053.xml"))
        #expect(errors == [])
        #expect(records.count == 11)  // 10 booked entries, one of them a batch of two; the pending one skipped
        #expect(locations.first == "27")  // the line of the first <Ntry>
        #expect(records[0] == [
            "id": "20250301NDEA0001", "kind": "expense", "amount": "4.50", "currency": "EUR",
            "occurred_at": "2025-03-01T08:30:00+02:00", "title": "Robert's Coffee Kamppi",
            "merchant": "Robert's Coffee Kamppi", "notes": "Card purchase",
        ])
        #expect(records[1]["merchant"] == "Kahvila Säpä")
        #expect(records[2]["notes"] == "KORTTIOSTO")  // no Ustrd: AddtlNtryInf
        #expect(records[3] == [
            "id": "20250305NDEA0001", "kind": "income", "amount": "2500.00", "currency": "EUR",
            "occurred_at": "2025-03-05", "title": "Acme Oy", "notes": "Salary March",
        ])
        #expect(records[4]["occurred_at"] == "2025-03-06")  // a DtTm without an offset keeps its day
        #expect(records[4]["merchant"] == "Ravintola Savoy & Co")
        #expect(records[5]["id"] == "20250308NDEA0001/1")
        #expect(records[5]["amount"] == "7.80")
        #expect(records[6]["id"] == "20250308NDEA0001/2")
        #expect(records[6]["merchant"] == "Alko Kamppi")
        #expect(records[9]["kind"] == "income")
        #expect(records[9]["notes"] == "reversal: Show cancelled")
        #expect(!records.contains { $0["title"] == "Wolt" })
    }

    static func camt(_ namespace: String, _ entries: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Document xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:iso:std:iso:20022:tech:xsd:\(namespace)">
        <BkToCstmrStmt><Stmt><Acct><Ccy>EUR</Ccy></Acct>
        \(entries)
        </Stmt></BkToCstmrStmt>
        </Document>
        """
    }

    @Test func camtVersion08AndErrors() throws {
        let v8 = Self.camt("camt.053.001.08", """
            <Ntry><Amt Ccy="SEK">120.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
            <BookgDt><Dt>2025-03-01</Dt></BookgDt><NtryDtls><TxDtls><Refs><EndToEndId>E2E-1</EndToEndId></Refs>
            <RltdPties><Cdtr><Pty><Nm>Åhléns</Nm></Pty></Cdtr></RltdPties></TxDtls></NtryDtls></Ntry>
            <Ntry><Amt>1.O0</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2025-03-01</Dt></BookgDt></Ntry>
            <Ntry><Amt>1.00</Amt><CdtDbtInd>DEBIT</CdtDbtInd><BookgDt><Dt>2025-03-01</Dt></BookgDt></Ntry>
            <Ntry><Amt>1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd></Ntry>
            """)
        let (records, _, errors) = try Self.read(.camt053, text: v8)
        #expect(records == [[
            "id": "E2E-1", "kind": "expense", "amount": "120.00", "currency": "SEK", "occurred_at": "2025-03-01",
            "title": "Åhléns", "merchant": "Åhléns",
        ]])
        #expect(errors == [
            #"statement:7: Amt: "1.O0" is not a decimal number"#,
            #"statement:8: CdtDbtInd: "DEBIT" is not DBIT or CRDT"#,
            "statement:9: BookgDt: is missing (and so is ValDt); every entry needs its date",
        ])
        let camt054 = Self.camt("camt.054.001.02", "")
        #expect(Self.refusal(.camt053, bytes: Array(camt054.utf8))?.contains("camt.054.001.02, not a camt.053") == true)
        let broken = Self.camt("camt.053.001.02", "<Ntry><Amt>1.00</Amt>")
        #expect(Self.refusal(.camt053, bytes: Array(broken.utf8)) == "statement:5: document: </Stmt> where </Ntry> (opened on line 4) was expected")
        let rawAmpersand = Self.camt("camt.053.001.02", "<Ntry><AddtlNtryInf>A & B</AddtlNtryInf></Ntry>")
        #expect(Self.refusal(.camt053, bytes: Array(rawAmpersand.utf8))?.contains("write &amp; for a literal ampersand") == true)
    }
}
