import Foundation
import GeoSpendTestSupport
import Testing

/// Issue 18 part 2 through the built binary: trends, receipts, basket, inflation. Expected
/// figures are written by hand in each test from the rows it imports, not computed by GeoSpend.
@Suite(.serialized) struct PricesCLITests {
    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    /// `body` with a fresh folder, removed afterwards (nothing left in /tmp).
    func inFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-prices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: d) }
        return try body(d)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Months as YYYY-MM, per currency, empty months as zero rows, the local month of the offset,
    /// income left out, --by category, csv.
    @Test func trendsPerMonth() throws {
        try inFolder { dir in
            let db = dir.appendingPathComponent("t.sqlite").path, csv = dir.appendingPathComponent("e.csv").path
            try """
                id,user,amount,currency,occurred_at,category,kind
                e1,ann,10.00,EUR,2025-01-05T10:00:00+02:00,Food,expense
                e2,ann,2.50,EUR,2025-01-31T23:30:00-05:00,Transport,expense
                e3,ann,1000,JPY,2025-03-02,Food,expense
                e4,ann,7.00,EUR,2025-04-01T00:30:00+03:00,Food,expense
                e5,ann,500.00,EUR,2025-02-10,Salary,income
                e6,bob,99.00,EUR,2025-02-10,Food,expense

                """.write(toFile: csv, atomically: true, encoding: .utf8)
            #expect(try geospend(["import", "expenses", csv, "--db", db]).status == 0)
            let r = try geospend(["trends", "--user", "ann", "--db", db, "--format", "json"])
            #expect(r.status == 0, "\(r.err)")
            let j = try json(r.out)
            #expect(j["months"] as? [String] == ["2025-01", "2025-02", "2025-03", "2025-04"])
            let rows = try #require(j["rows"] as? [[String: Any]])
            // e2 is 31 January at its offset (1 February in UTC); e4 is 1 April locally (31 March UTC).
            #expect(rows.map { "\($0["currency"]!) \($0["month"]!) \($0["count"]!) \($0["total"]!)" } == [
                "EUR 2025-01 2 12.50", "EUR 2025-02 0 0.00", "EUR 2025-03 0 0.00", "EUR 2025-04 1 7.00",
                "JPY 2025-01 0 0", "JPY 2025-02 0 0", "JPY 2025-03 1 1000", "JPY 2025-04 0 0",
            ])
            let byCategory = try geospend(["trends", "--user", "ann", "--db", db, "--by", "category", "--from", "2024-12-01", "--to", "2025-01-31", "--format", "csv"])
            #expect(byCategory.status == 0, "\(byCategory.err)")
            #expect(byCategory.out == """
                month,currency,category,count,total
                2024-12,EUR,Food,0,0.00
                2025-01,EUR,Food,1,10.00
                2024-12,EUR,Transport,0,0.00
                2025-01,EUR,Transport,1,2.50

                """)
            let unknown = try geospend(["trends", "--user", "nobody", "--db", db])
            #expect(unknown.status == 2)
            #expect(unknown.err.contains("nobody"))
        }
    }

    /// The seed's receipt, json; a sum that does not add up is said on stderr; a missing file is
    /// named.
    @Test func receiptsParse() throws {
        try inFolder { dir in
            let file = dir.appendingPathComponent("r.txt").path
            try "REWE Markt\nMilch 1,5% 1,29\nBrot Vollkorn 2,49\nÄpfel 1kg 3,99\nSUMME 7,77\n".write(toFile: file, atomically: true, encoding: .utf8)
            let r = try geospend(["receipts", "parse", file, "--format", "json"])
            #expect(r.status == 0, "\(r.err)")
            let j = try json(r.out)
            #expect(j["store"] as? String == "REWE Markt")
            #expect(j["total"] as? String == "7.77")
            let items = try #require(j["items"] as? [[String: Any]])
            #expect(items.map { $0["name"] as! String } == ["Milch 1,5%", "Brot Vollkorn", "Äpfel 1kg"])
            #expect(items.map { $0["price"] as! String } == ["1.29", "2.49", "3.99"])
            #expect(items.map { $0["quantity"] as! Int } == [1, 1, 1])
            #expect(j["sum_matches"] as? Bool == true)
            #expect(r.err.isEmpty)

            try "Lidl\n2x Joghurt 1,98\nSUMME 2,98\n".write(toFile: file, atomically: true, encoding: .utf8)
            let off = try geospend(["receipts", "parse", file])
            #expect(off.status == 0)
            #expect(off.err.contains("the items add up to 1.98 EUR, not the total 2.98"))
            #expect(off.out.contains("Joghurt"))

            let missing = try geospend(["receipts", "parse", dir.appendingPathComponent("none.txt").path])
            #expect(missing.status == 2)
            #expect(missing.err.contains("none.txt: no such file"))
            try Data([0x4D, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: file))
            let binary = try geospend(["receipts", "parse", file])
            #expect(binary.status == 2)
            #expect(binary.err.contains("is not UTF-8 text"))
        }
    }
}
