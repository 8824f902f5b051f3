import Testing

@testable import GeoSpend

@Suite struct CSVReaderTests {
    func read(_ text: String) -> [Result<CSVReader.Row, CSVReader.SyntaxError>] {
        read(bytes: Array(text.utf8))
    }

    func read(bytes: [UInt8]) -> [Result<CSVReader.Row, CSVReader.SyntaxError>] {
        let reader = CSVReader(bytes: bytes)
        var out: [Result<CSVReader.Row, CSVReader.SyntaxError>] = []
        while let r = reader.next() { out.append(r) }
        return out
    }

    func rows(_ text: String) throws -> [[String]] {
        try read(text).map { try $0.get().fields }
    }

    @Test func quotedFieldsCommasNewlinesAndDoubledQuotes() throws {
        let r = read("a,b,c\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n1,,3\r\n")
        #expect(try r.map { try $0.get().fields } == [["a", "b", "c"], ["x, y", "say \"hi\"", "two\nlines"], ["1", "", "3"]])
        #expect(try r.map { try $0.get().line } == [1, 2, 4])
    }

    @Test func emptyLinesAreSkippedAndTrailingCommaIsAField() throws {
        #expect(try rows("a,b\n\n1,\n\n") == [["a", "b"], ["1", ""]])
        #expect(try rows("a,b\n1,") == [["a", "b"], ["1", ""]])
    }

    @Test func byteOrderMarkIsStripped() throws {
        #expect(try rows("\u{FEFF}id,name\n1,x\n") == [["id", "name"], ["1", "x"]])
    }

    @Test func unterminatedQuoteIsFatalAndNamesTheLineItOpenedOn() {
        let r = read("a,b\n1,2\n3,\"oops\n4,5\n6,7\n")
        #expect(r.count == 3)
        guard case .failure(let e) = r[2] else { Issue.record("expected an error"); return }
        #expect(e.line == 3)
        #expect(e.fieldIndex == 1)
        #expect(e.isFatal)
        #expect(e.reason.contains("unterminated"))
    }

    @Test(arguments: [
        ("a,b\n1,x\"y\n2,3\n", "quote inside an unquoted field"),
        ("a,b\n1,\"x\"y\n2,3\n", "text after a closing quote"),
    ])
    func badQuotingIsReportedAndReadingResumes(text: String, reason: String) throws {
        let r = read(text)
        #expect(r.count == 3)
        guard case .failure(let e) = r[1] else { Issue.record("expected an error"); return }
        #expect(e.reason.contains(reason))
        #expect(e.line == 2)
        #expect(try r[2].get().fields == ["2", "3"])
    }

    @Test func nulInvalidUTF8AndOversizeFields() throws {
        var bytes = Array("a,b\n1,x".utf8) + [0] + Array("y\n2,".utf8) + [0xC3, 0x28] + Array("\n3,ok\n".utf8)
        var r = read(bytes: bytes)
        #expect(r.count == 4)
        guard case .failure(let nul) = r[1], case .failure(let utf) = r[2] else { Issue.record("expected errors"); return }
        #expect(nul.reason.contains("NUL"))
        #expect(utf.reason.contains("UTF-8"))
        #expect(utf.fieldIndex == 1)
        #expect(try r[3].get().fields == ["3", "ok"])

        bytes = Array("a\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024 + 1) + Array("\nfine\n".utf8)
        r = read(bytes: bytes)
        guard case .failure(let big) = r[1] else { Issue.record("expected an error"); return }
        #expect(big.reason.contains("64 KiB"))
        #expect(try r[2].get().fields == ["fine"])
    }

    @Test func exactlyMaximumSizeIsAccepted() throws {
        let bytes = Array("a\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024) + Array("\n".utf8)
        #expect(try read(bytes: bytes)[1].get().fields[0].utf8.count == 64 * 1024)
    }

    @Test func raggedRowsAreTheCallersToJudge() throws {
        #expect(try rows("a,b\n1\n1,2,3\n") == [["a", "b"], ["1"], ["1", "2", "3"]])
    }
}

@Suite struct StrictJSONTests {
    func parse(_ s: String) throws -> JSONValue { try StrictJSONParser.parse(Array(s.utf8)) }

    @Test func objectsKeepOrderAndNumbersKeepTheirText() throws {
        let v = try parse(#"{"amount": 12.50, "b": [1, true, null], "s": "a\u00e9\ud83d\ude00"}"#)
        #expect(v["amount"] == .number("12.50"))
        #expect(v["s"] == .string("aé😀"))
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, #"{"a":NaN}"#, #"{"a":Infinity}"#, #"{"a":01}"#, #"{"a":1,}"#, #"[1,]"#, #"{"a":"\ud800"}"#,
        "{\"a\":\"x\ny\"}", #"{"a":1} x"#, #"// c"#, #"{'a':1}"#, #"{"a":"\u0000"}"#, "",
    ])
    func rejects(text: String) {
        #expect(throws: StrictJSONParser.SyntaxError.self) { try parse(text) }
    }

    @Test func duplicateKeyNamesTheKey() {
        #expect { try parse(#"{"user":"a","user":"b"}"#) } throws: {
            ($0 as? StrictJSONParser.SyntaxError)?.reason.contains("\"user\" twice") == true
        }
    }
}
