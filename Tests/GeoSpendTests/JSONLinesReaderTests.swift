import Foundation
import Testing

@testable import GeoSpend

/// The JSON Lines reader scans 1 MiB chunks for line ends instead of taking a byte at a time
/// (issue 22 item 13 follow-up): lines across a chunk's end, the 1 MiB line limit, NUL bytes,
/// a byte-order mark and CRLF read as before.
@Suite struct JSONLinesReaderTests {
    @Test func linesAcrossChunksAndLimitsReadAsBefore() throws {
        let good = #"{"user":"ann","amount":"1.00","currency":"EUR","occurred_at":"2025-01-01"}"#
        var text = "\u{FEFF}" + good + "\n"
        text += String(repeating: " ", count: (1 << 20) - text.utf8.count - 10) + "\n"  // line 3 crosses the first chunk's end
        text += good + "\r\n"
        text += #"{"user":""# + String(repeating: "a", count: 1 << 20) + "\"}\n"  // 4: too long
        text += "{\"user\":\"a\u{0}\"}\n"  // 5: a NUL byte
        text += String(repeating: " ", count: (1 << 20) - 100) + "\n"
        text += "{\"user\":\"" + String(repeating: "b", count: (1 << 20) - 20) + "\"}\n"  // 7: within the limit, across a chunk
        text += good  // 8: no line end
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jsonl-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var found: [String] = []
        let bytes = try RecordReaders.jsonLines(path: path, displayName: "in", known: ExpenseRecord.columns) { result in
            switch result {
            case .success(let r): found.append("\(r.location) ok")
            case .failure(let e): found.append(e.description.count > 200 ? String(e.description.prefix(60)) : e.description)
            }
        }
        #expect(bytes == Int64(text.utf8.count))
        #expect(found == ["1 ok", "3 ok", "in:4: row: the line is longer than 1 MiB", "in:5: row: contains a NUL byte", "7 ok", "8 ok"])
    }
}
