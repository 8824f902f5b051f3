import Foundation
import Testing

@testable import GeoSpend

/// Inputs the libFuzzer targets in Fuzz/ found breaking an invariant, kept as tests so they stay
/// fixed (`make fuzz`; Fuzz/README.md lists each finding).
@Suite struct FuzzRegressionTests {
    func withFile<T>(_ bytes: [UInt8], _ body: (String) throws -> T) throws -> T { try Fixtures.withFile(bytes, body) }

    /// Row errors of a JSON Lines text, read through the real reader.
    func jsonLinesErrors(_ text: String) throws -> [RowError] {
        try withFile(Array(text.utf8)) { path in
            var errors: [RowError] = []
            _ = try RecordReaders.jsonLines(path: path, displayName: "in.jsonl", known: ExpenseRecord.columns) { result in
                if case .failure(let e) = result { errors.append(e) }
            }
            return errors
        }
    }

    /// Found by `jsonl` (crash-0bb5c621…): an empty key gave the message `in.jsonl:1: : unknown
    /// key`; a key with a newline or of a megabyte would have broken or flooded the message.
    @Test(arguments: [
        ("{\"\":1}", "\"\""), ("{\"a\\nb\":1}", "\"a\\nb\""), ("{\"colour\":\"red\"}", "colour"),
        ("{\"\(String(repeating: "k", count: 100))\":1}", "\"" + String(repeating: "k", count: 57) + "…\""),
        // Not from the fuzzer (issue 22): a bidi override or zero-width space in a key would
        // disguise the message on the terminal that shows it.
        ("{\"lat\u{202E}x\":1}", "\"lat\\u{202E}x\""), ("{\"lat\u{200B}\":1}", "\"lat\\u{200B}\""),
    ])
    func unknownKeysAreNamedReadably(line: String, column: String) throws {
        let errors = try jsonLinesErrors(line + "\n")
        #expect(errors.count == 1)
        #expect(errors.first?.column == column)
        #expect(errors.first?.description.hasPrefix("in.jsonl:1: \(column): unknown key") == true)
    }

    /// Found by `csv`: a header naming an unknown column with control characters printed them
    /// raw into the message (crash-de363ee5…, the bytes `03 0A 63 28`; quoting alone did not
    /// help: `ValueError.quote` escaped only \\n \\r \\t \\0 and `"`); once escaped, 90 of them
    /// made a 460-character column (crash-196fd5e3…): the cut now counts escaped characters.
    static let controlHeaders: [([UInt8], String)] = {
        let long: [UInt8] = Array("id,user,kind,amou".utf8) + [UInt8](repeating: 3, count: 90) + Array("nt,currency\n".utf8)
        let cut: String = #""amou"# + String(repeating: #"\u{3}"#, count: 10) + #"…""#
        return [([0x03, 0x0A, 0x63, 0x28], #""\u{3}""#), (long, cut)]
    }()

    @Test(arguments: controlHeaders)
    func unknownHeaderNamesAreQuotedAndCut(header: [UInt8], column: String) throws {
        let error = try withFile(header) { path -> RowError? in
            do {
                _ = try RecordReaders.csv(path: path, displayName: "in.csv", known: ExpenseRecord.columns, required: []) { _ in }
            } catch let ImportError.badFile(e) { return e }
            return nil  // no error at all: the #expect below fails
        }
        #expect(error?.column == column)
        #expect(error?.description.hasPrefix("in.csv:1: \(column): unknown column") == true)
    }

    /// Found by `ofx` (crash-feaf8955…, minimized to these bytes): a statement left open inside
    /// another's transaction (SGML recovers unclosed aggregates by nesting) gave its transactions
    /// before the outer one that comes first in the file, so row errors were not in line order.
    @Test func ofxTransactionsComeInFileOrderWhenStatementsNest() throws {
        let input = "OFXHEADER:\r\n<OFX>\r\r<STMTRS>\r\r<BANKTRANLIST>\r\r\r\n<STMTTRN>\r\r\r\n<STMTRS>\r<BANKTRANLIST>\r<STMTTRN>2<ANLS>\n</STMTTRN>\n<STMTTRN>POS\r</OFX>\r\n"
        let lines = try OFXReader.read(Array(input.utf8), file: "in.ofx").map { result -> Int in
            switch result {
            case .success(let t): t.line
            case .failure(let e): Int(e.location) ?? 0
            }
        }
        #expect(lines.count == 3)
        #expect(lines == lines.sorted(), "\(lines)")
    }
}
