import Foundation
import Testing

@testable import GeoSpend

/// The pure parts of mapped imports: strict date patterns, decimal commas, the sign
/// convention, time zones and column suggestions.
@Suite struct ColumnMappingTests {
    @Test func datePatternsAreStrict() throws {
        let p = try DateFormatPattern("dd.MM.yyyy")
        #expect(try p.parse("05.03.2025").text == "2025-03-05")
        // DateFormatter would take each of these.
        for bad in ["5.3.2025", "31.02.2025", "05.03.25", "05.03.2025x", "05-03-2025", "05.13.2025"] {
            #expect(throws: ValueError.self, "\(bad)") { try p.parse(bad) }
        }
        #expect(try DateFormatPattern("d.M.yyyy").parse("5.3.2025").text == "2025-03-05")
        #expect(try DateFormatPattern("MM/dd/yyyy HH:mm").parse("03/05/2025 08:15").text == "2025-03-05T08:15:00")
        #expect(try DateFormatPattern("dd.MM.yy").parse("29.02.24").text == "2024-02-29")
        #expect(throws: ValueError.self) { try DateFormatPattern("dd.MM.yyy") }
        #expect(throws: ValueError.self) { try DateFormatPattern("dd.MM") }
        #expect(throws: ValueError.self) { try DateFormatPattern("DD.MM.YYYY") }
    }

    @Test func decimalCommaAndSign() throws {
        var c = ValueConversions()
        c.decimalComma = true
        #expect(try c.amount("-1.234,56") == ("1234.56", true))
        #expect(try c.amount("3.200,00") == ("3200.00", false))
        #expect(try c.amount("+4,5") == ("4.5", false))
        #expect(try c.amount("1234567,5") == ("1234567.5", false))
        for bad in ["1.23,4", "1,2,3", "12.3456,00", "4,"] {
            #expect(throws: ValueError.self, "\(bad)") { try c.amount(bad) }
        }
        c.decimalComma = false
        #expect(try c.amount("-12.50") == ("12.50", true))
        #expect {
            try c.amount("1,50")
        } throws: { ($0 as? ValueError)?.description.contains("add --decimal-comma") == true }
    }

    @Test func signGivesKindUnlessKindIsMapped() throws {
        var fields = ["amount": "-4.50"]
        try ExpenseMapping.convert(&fields, ValueConversions(), signGivesKind: true, column: { $0 })
        #expect(fields == ["amount": "4.50", "kind": "expense"])
        fields = ["amount": "2500"]
        try ExpenseMapping.convert(&fields, ValueConversions(), signGivesKind: true, column: { $0 })
        #expect(fields["kind"] == "income")
        fields = ["amount": "-4.50", "kind": "income"]
        try ExpenseMapping.convert(&fields, ValueConversions(), signGivesKind: false, dropSign: true, column: { $0 })
        #expect(fields == ["amount": "4.50", "kind": "income"])
    }

    @Test func timeZonesGiveTheOffsetOfTheDay() throws {
        var c = ValueConversions()
        let helsinki: TimeZone = try #require(TimeZone(identifier: "Europe/Helsinki"))
        c.timeZone = helsinki
        // Summer time in Finland began 2025-03-30 at 03:00 local time.
        #expect(try c.timestamp("2025-03-29 12:00:00") == "2025-03-29T12:00:00+02:00")
        #expect(try c.timestamp("2025-03-31T12:00:00") == "2025-03-31T12:00:00+03:00")
        #expect(throws: ValueError.self) { try c.timestamp("2025-03-30 03:30:00") }
        #expect(try c.timestamp("2025-03-31T12:00:00Z") == "2025-03-31T12:00:00Z", "an offset given wins")
        c.dateFormat = try DateFormatPattern("dd.MM.yyyy HH:mm")
        #expect(try c.timestamp("26.10.2025 12:00") == "2025-10-26T12:00:00+02:00")
        c.timeZone = nil
        #expect(throws: ValueError.self) { try c.timestamp("26.10.2025 12:00") }
    }

    @Test(arguments: [
        ("lng", "lon"), ("Longitude", "lon"), ("latitude", "lat"), ("date", "occurred_at"), ("Timestamp", "occurred_at"),
        ("value", "amount"), ("amout", "amount"), ("memo", "notes"), ("Betrag", "amount"), ("curency", "currency"),
    ])
    func suggestions(name: String, field: String) {
        #expect(ColumnSuggestion.field(for: name, among: ExpenseRecord.columns) == field)
    }

    @Test func noSuggestionForUnrelatedNames() {
        #expect(ColumnSuggestion.field(for: "colour", among: ExpenseRecord.columns) == nil)
        #expect(ColumnSuggestion.field(for: "x1", among: ExpenseRecord.columns) == nil)
    }

    @Test func headerProblemsAreReportedTogether() throws {
        let mapping = ExpenseMapping(layout: .canonical, conversions: ValueConversions())
        #expect {
            _ = try mapping.resolve(header: ["user", "amount", "currency", "date", "lat", "lng"], file: "f.csv", line: 1, delimiter: 44)
        } throws: { error in
            guard case ImportError.badHeader(let errors) = error else { return false }
            return errors.map(\.description) == [
                #"f.csv:1: date: unknown column — did you mean "occurred_at"?"#,
                #"f.csv:1: lng: unknown column — did you mean "lon"?"#,
                "f.csv:1: occurred_at: required column is missing from the header",
            ]
        }
        #expect {
            _ = try mapping.resolve(header: ["user;amount;currency;occurred_at"], file: "f.csv", line: 1, delimiter: 44)
        } throws: { ($0 as? ImportError)?.description == "f.csv:1: header: the header looks semicolon-separated: try --delimiter ';'" }
    }

    @Test func utf16WithEitherByteOrderAndLatin1() throws {
        let text = "user,title\nann,Café\n"
        var le: [UInt8] = [0xFF, 0xFE], be: [UInt8] = [0xFE, 0xFF]
        for u in text.utf16 {
            le += [UInt8(u & 0xFF), UInt8(u >> 8)]
            be += [UInt8(u >> 8), UInt8(u & 0xFF)]
        }
        for bytes in [le, be, Array(le.dropFirst(2))] {
            let decoded = try Fixtures.withFile(bytes) { try SourceEncoding.utf16.utf8Bytes(path: $0, displayName: "f") }
            #expect(decoded == Array(text.utf8))
        }
        let latin1 = try Fixtures.withFile([0x43, 0x61, 0x66, 0xE9]) { try SourceEncoding.latin1.utf8Bytes(path: $0, displayName: "f") }
        #expect(latin1 == Array("Café".utf8))
    }
}
