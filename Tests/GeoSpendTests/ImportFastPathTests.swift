import Testing

@testable import GeoSpend

/// The import's per-row shortcuts (issue 16: parsing was 4.6 µs a row) must give exactly what
/// the general code gives: a canonical timestamp kept as written, printable-ASCII ids and text
/// let through after one pass over their bytes, FNV-1a read from the bytes in place.
@Suite struct ImportFastPathTests {
    /// Written forms RFC 3339 allows (https://www.rfc-editor.org/rfc/rfc3339 §5.6: `t`/`z` in
    /// lower case; the note on a space for `T`; `+00:00` and `-00:00` for UTC), each with the
    /// canonical text `Timestamp` documents (`T`, `Z` for a zero offset): only canonical input
    /// may be kept as it is.
    @Test(arguments: [
        ("2025-03-01T10:00:00+02:00", "2025-03-01T10:00:00+02:00"),
        ("2025-03-01t10:00:00+02:00", "2025-03-01T10:00:00+02:00"),
        ("2025-03-01 10:00:00-05:30", "2025-03-01T10:00:00-05:30"),
        ("2025-03-01T10:00:00z", "2025-03-01T10:00:00Z"),
        ("2025-03-01T10:00:00+00:00", "2025-03-01T10:00:00Z"),
        ("2025-03-01T10:00:00-00:00", "2025-03-01T10:00:00Z"),
        ("2025-03-01T10:00:00.5Z", "2025-03-01T10:00:00.5Z"),
        ("2025-03-01 10:00:00.123456789+00:00", "2025-03-01T10:00:00.123456789Z"),
        ("0001-01-01", "0001-01-01"),
    ])
    func timestampsComeOutCanonical(input: String, canonical: String) throws {
        let t = try Timestamp(parsing: input)
        #expect(t.text == canonical)
        #expect(t.localDate == String(canonical.prefix(10)))
        let again = try Timestamp(parsing: canonical)
        #expect(again == t)
        #expect(again.epochMilliseconds == t.epochMilliseconds && again.utcOffsetMinutes == t.utcOffsetMinutes)
    }

    @Test func timestampFieldsAreReadFromTheBytes() throws {
        // 2025-12-31T23:59:59.250+01:00 is 22:59:59.250 UTC: 1767221999250 ms (date -d @1767221999).
        let t = try Timestamp(parsing: "2025-12-31T23:59:59.2509+01:00")
        #expect(t.epochMilliseconds == 1_767_221_999_250)
        #expect(t.utcOffsetMinutes == 60 && t.localDate == "2025-12-31")
        #expect(throws: ValueError.self) { try Timestamp(parsing: "2025-12-31T23:59:59.+01:00") }
        #expect(throws: ValueError.self) { try Timestamp(parsing: "2025-12-31T23:59:59+01:00 ") }
        #expect(throws: ValueError.self) { try Timestamp(parsing: "2025-02-29") }
    }

    private func parse(_ fields: [String: String]) -> Result<Expense, FieldProblem> {
        let base = ["user": "ann", "amount": "1.00", "currency": "EUR", "occurred_at": "2025-03-01"]
        return Result { () throws(FieldProblem) in try ExpenseFields.parse(base.merging(fields) { $1 }) }
    }

    /// Ids at the edges of the one-pass check: what it lets through, and what it must leave to
    /// the full checks (spaces at either end, controls, DEL, more than 128 bytes).
    @Test func identifiersAtTheShortcutsEdges() throws {
        #expect(try parse(["id": String(repeating: "a", count: 128)]).get().id.count == 128)
        #expect(try parse(["id": "a b~!"]).get().id == "a b~!")
        for (id, reason) in [
            (String(repeating: "a", count: 129), "longer than 128"), (" a", "leading or trailing spaces"),
            ("a ", "leading or trailing spaces"), ("a\u{7F}", "U+007F"), ("a\tb", "U+0009"),
            ("a\u{00A0}", "U+00A0"),
        ] {
            guard case .failure(let problem) = parse(["id": id]) else {
                Issue.record("\(id.debugDescription) was accepted")
                continue
            }
            #expect(problem.field == "id" && problem.reason.contains(reason), "\(id.debugDescription): \(problem.reason)")
        }
        // Non-ASCII ids take the full path: NFC, so the decomposed form is stored composed.
        #expect(try parse(["user": "Jose\u{301}"]).get().userID.utf8.count == "Jos\u{E9}".utf8.count)
    }

    @Test func freeTextAtTheShortcutsEdges() throws {
        #expect(try parse(["notes": String(repeating: "x", count: maximumTextLength)]).get().notes?.count == maximumTextLength)
        #expect(try parse(["notes": "tab\there\nand a line"]).get().notes == "tab\there\nand a line")
        for (text, reason) in [
            (String(repeating: "x", count: maximumTextLength + 1), "longer than"), ("a\u{7F}", "U+007F"),
            ("a\u{1}", "U+0001"), ("a\u{202E}b", "U+202E"),
        ] {
            guard case .failure(let problem) = parse(["title": text]) else {
                Issue.record("\(text.debugDescription) was accepted")
                continue
            }
            #expect(problem.field == "title" && problem.reason.contains(reason), "\(problem.reason)")
        }
    }

    /// Hashes from an independent FNV-1a (64-bit: offset basis 0xcbf29ce484222325, prime
    /// 0x100000001b3, http://www.isthe.com/chongo/tech/comp/fnv/) over the fields as
    /// `Expense.contentHash` documents them (UTF-8, each followed by 0x1f, an absent field 0x1e),
    /// computed by a ten-line Python script written for this test. The first row is `e1` of
    /// `geospend generate --seed 1 --scale region`, whose stored `content_hash` (old binary) is
    /// the same number: stored hashes must not change.
    @Test func contentHashIsFNV1aOfTheFields() throws {
        let e1 = Expense(
            id: "e1", userID: "user888", amount: Money(minorUnits: 2726, currency: try Currency(code: "EUR")),
            occurredAt: try Timestamp(parsing: "2025-11-25T17:47:19+02:00"), title: "Pickwick", category: "Entertainment",
            merchant: "Pickwick",
            location: ExpenseLocation(coordinate: try Coordinate(latitude: 60.1700954, longitude: 25.3409132), accuracyMeters: 12),
            storeID: "1369465651~t37")
        #expect(e1.contentHash == -4_013_726_500_662_556_676)
        let x = Expense(
            id: "x", userID: "José", kind: .income, amount: Money(minorUnits: 100_000, currency: try Currency(code: "JPY")),
            occurredAt: try Timestamp(parsing: "2025-01-01"), title: "Café ☕", notes: "note\twith tab")
        #expect(x.contentHash == -7_095_116_758_534_719_046)
    }

    /// Caches keyed by `ExactText` must compare and hash bytes, as SQLite compares text.
    @Test func exactTextIsBytes() {
        let composed = "Jos\u{E9}", decomposed = "Jose\u{301}"
        #expect(composed == decomposed)  // Swift's String equality: canonical equivalence
        #expect(ExactText(composed) != ExactText(decomposed))
        #expect(ExactText(composed) == ExactText(String(decoding: Array(composed.utf8), as: UTF8.self)))
        #expect(Set([ExactText(composed), ExactText(decomposed), ExactText("Jos\u{E9}")]).count == 2)
        #expect(ExactText("ab") != ExactText("abc") && ExactText("ab") != ExactText("ba") && ExactText("") == ExactText(""))
        #expect(ExactText("Jos\u{E9}") != ExactText("Jos\u{E8}"))  // same length, one byte apart
        let long = String(repeating: "long id ", count: 10)  // not a small string
        #expect(Set([ExactText(long), ExactText(long + "")]).count == 1)
    }
}
