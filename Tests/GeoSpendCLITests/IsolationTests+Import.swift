import Foundation
import GeoSpendTestSupport
import Testing

extension IsolationTests {
    /// `users import` (issue 38) joins the suite: bob's whole export (every section import
    /// writes: price records, receipts, tags and marks, a list, community entries) can never be
    /// written into alice — `--as alice` is refused while she has data, as is a restore over bob
    /// himself — and alice's outputs stay byte for byte what they were through bob's delete and
    /// restore, after which bob's export reads exactly as before but for his API token (never
    /// restored).
    @Test func usersImportNeverWritesIntoAnotherUser() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let shared = try database("import", rows: IsolationFixture.rows(for: ["alice", "bob"]), budgets: [("alice", "alice"), ("bob", "bob")])
        let alice = try aliceOutputs(shared)
        let file = dir.appendingPathComponent("bob-export.json").path
        let exported = try geospend(["users", "export", "bob", "--out", file, "--db", shared])
        try #require(exported.status == 0, "\(exported.err)")
        let bob = try String(contentsOfFile: file, encoding: .utf8)
        for key in [
            "\"price_records\":[\n", "\"receipts\":[\n", "\"product_tags\":[{", "\"product_marks\":[\n", "\"shopping_lists\":[\n",
            "\"community\":{\"member\":{", "\"posts\":[{",
        ] {
            #expect(bob.contains(key), "the fixture lacks \(key)")
        }
        for args in [["--as", "alice"], [] as [String]] {
            let refused = try geospend(["users", "import", file, "--db", shared] + args)
            #expect(refused.status != 0 && refused.err.contains("already has data"), "\(args): \(refused.err)")
        }
        try expectSame(try aliceOutputs(shared), alice, "after bob's document was refused for alice")
        #expect(try geospend(["users", "export", "bob", "--db", shared]).out == bob, "the refusals wrote nothing for bob either")

        let deleted = try geospend(["users", "delete", "bob", "--yes", "--db", shared])
        try #require(deleted.status == 0, "\(deleted.err)")
        let restored = try geospend(["users", "import", file, "--db", shared])
        #expect(restored.status == 0 && restored.out.hasPrefix("restored user bob from "), "\(restored.out) \(restored.err)")
        #expect(restored.err.contains("1 API token(s) not restored"), "\(restored.err)")
        // The same bytes but for bob's API token, which a restore never brings back.
        let expected = bob.replacingOccurrences(of: #""api_tokens":\[[^\]]*\],"#, with: "\"api_tokens\":[],", options: .regularExpression)
        #expect(expected != bob && expected.contains("\"api_tokens\":[],\n"))
        let back = try geospend(["users", "export", "bob", "--db", shared]).out
        let (was, now) = (expected.split(separator: "\n"), back.split(separator: "\n"))
        #expect(back == expected, "\(zip(was, now).filter { $0 != $1 }.prefix(3).map { "was \($0)\nnow \($1)" })")
        try expectSame(try aliceOutputs(shared), alice, "after bob's delete and restore")
    }
}
