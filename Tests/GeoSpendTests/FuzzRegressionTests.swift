import Foundation
import Testing

@testable import GeoSpend

/// Inputs the libFuzzer targets in Fuzz/ found breaking an invariant, kept as tests so they stay
/// fixed (`make fuzz`; Fuzz/README.md lists each finding).
@Suite struct FuzzRegressionTests {
    /// Row errors of a JSON Lines text, read through the real reader from a temporary file.
    func jsonLinesErrors(_ text: String) throws -> [RowError] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-regression-\(UUID().uuidString).jsonl").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var errors: [RowError] = []
        _ = try RecordReaders.jsonLines(path: path, displayName: "in.jsonl", known: ExpenseRecord.columns) { result in
            if case .failure(let e) = result { errors.append(e) }
        }
        return errors
    }

    /// Found by `jsonl` (crash-0bb5c621…): an empty key gave the message `in.jsonl:1: : unknown
    /// key`; a key with a newline or of a megabyte would have broken or flooded the message.
    @Test(arguments: [
        ("{\"\":1}", "\"\""), ("{\"a\\nb\":1}", "\"a\\nb\""), ("{\"colour\":\"red\"}", "colour"),
        ("{\"\(String(repeating: "k", count: 100))\":1}", "\"" + String(repeating: "k", count: 57) + "…\""),
    ])
    func unknownKeysAreNamedReadably(line: String, column: String) throws {
        let errors = try jsonLinesErrors(line + "\n")
        #expect(errors.count == 1)
        #expect(errors.first?.column == column)
        #expect(errors.first?.description.hasPrefix("in.jsonl:1: \(column): unknown key") == true)
    }
}
