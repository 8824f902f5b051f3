import Foundation
import Testing

@testable import GeoSpend

/// JSON strings: plain ones are copied whole, the rest escaped scalar by scalar.
@Suite struct JSONOutputTests {
    @Test(arguments: [
        ("Cafe Ekberg", #""Cafe Ekberg""#),
        ("Café – Ekberg 東京", #""Café – Ekberg 東京""#),
        ("a\"b\\c", #""a\"b\\c""#),
        ("line\nbreak\r\ttab\u{1}", #""line\nbreak\r\ttab\u0001""#),
        ("sep\u{2028}para\u{2029}", #""sep\u2028para\u2029""#),
        ("", #""""#),
    ])
    func stringsAreEscapedExactlyWhereNeeded(text: String, expected: String) throws {
        let written = JSONOutput.string(text).serialized(pretty: false)
        #expect(written == expected)
        // An outside reader gets the text back.
        let parsed = try JSONSerialization.jsonObject(with: Data("[\(written)]".utf8)) as? [String]
        #expect(parsed == [text])
    }
}
