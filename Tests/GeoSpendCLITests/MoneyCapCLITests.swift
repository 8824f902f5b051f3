import Foundation
import GeoSpendTestSupport
import Testing

/// Issue 35 (hardening round 2), items 1 and 20 through the built binary: amounts at the cap of
/// 10^15 minor units, many of them or multiplied, give an answer or a clear refusal, never a trap
/// (a trap ends the binary with a signal: runProgram saw status 4, SIGILL, before the fixes).
@Suite(.serialized) struct MoneyCapCLITests {
    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    func inFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-cap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: d) }
        return try body(d)
    }

    /// Two stores in Helsinki and one price each of u1's; the basket's home is far away.
    func priceDatabase(_ dir: URL) throws -> String {
        let db = dir.appendingPathComponent("p.sqlite").path
        let s = dir.appendingPathComponent("s.csv").path, p = dir.appendingPathComponent("p.csv").path
        try "id,name,lat,lon\na,Store A,60.1709,24.9384\nb,Store B,60.1689,24.9384\n".write(toFile: s, atomically: true, encoding: .utf8)
        try """
            product,store_id,price,currency,recorded_at,quantity,unit
            Bread,a,3.00,EUR,2025-06-01T10:00:00+03:00,1,pcs
            Bread,b,2.00,EUR,2025-06-01T10:00:00+03:00,1,pcs
            Milk,b,10000000000000.00,EUR,2025-06-01T10:00:00+03:00,1,pcs

            """.write(toFile: p, atomically: true, encoding: .utf8)
        #expect(try geospend(["import", "stores", s, "--db", db]).status == 0)
        let r = try geospend(["prices", "import", p, "--user", "u1", "--db", db])
        #expect(r.status == 0, "\(r.err)")
        return db
    }

    /// The attack of item 1: 9,300 lines of the largest amount. Before, the items' sum trapped
    /// (Int64 overflow in `ParsedReceipt.itemsSumMinor`); now the lines that would take the sum
    /// past the cap are unread, with the reason, and the sum stays at the cap.
    @Test func receiptOfThousandsOfLargestAmountsIsRead() throws {
        try inFolder { dir in
            let file = dir.appendingPathComponent("r.txt").path
            let lines = (1...9_300).map { "Item\($0) 10000000000000,00" }
            try ("Big Store\n" + lines.joined(separator: "\n") + "\nSUMME 10000000000000,00\n").write(toFile: file, atomically: true, encoding: .utf8)
            let r = try geospend(["receipts", "parse", file, "--currency", "EUR", "--format", "json"])
            #expect(r.status == 0, "status \(r.status): \(r.err.suffix(300))")
            let j = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            #expect((j["items"] as? [Any])?.count == 1)
            #expect((j["unread"] as? [[String: Any]])?.count == 9_299)
            #expect(((j["unread"] as? [[String: Any]])?.first?["reason"] as? String)?.contains("the largest amount GeoSpend stores") == true)
            #expect(j["items_sum"] as? String == "10000000000000.00")
            #expect(j["sum_matches"] as? Bool == true)
        }
    }

    /// Item 1's second attack: a cost per km at the cap, a home 6,600 km away. Before, the trip's
    /// cost (1.3 × 10^19 cents) trapped converting to Int64; now a usage error names the option.
    /// And an item whose wanted quantity costs more than the cap is refused by name.
    @Test func basketAtTheCapIsRefusedNotTrapped() throws {
        try inFolder { dir in
            let db = try priceDatabase(dir)
            let far = try geospend([
                "basket", "--item", "Bread", "--as-of", "2025-06-30", "--near", "0,0", "--cost-per-km", "10000000000000.00", "--db", db,
            ])
            #expect(far.status == 2, "status \(far.status): \(far.err)")
            #expect(far.err.contains("give a smaller --cost-per-km"), "\(far.err)")
            let many = try geospend(["basket", "--item", "Milk=1000000", "--item", "Bread", "--as-of", "2025-06-30", "--db", db])
            #expect(many.status == 2, "status \(many.status): \(many.err)")
            #expect(many.err.contains("Milk") && many.err.contains("for the quantity wanted"), "\(many.err)")
            // The same basket within the cap still answers.
            let near = try geospend([
                "basket", "--item", "Bread", "--as-of", "2025-06-30", "--near", "60.17,24.94", "--cost-per-km", "0.30", "--db", db,
            ])
            #expect(near.status == 0, "\(near.err)")
        }
    }

    /// Item 20: `lists complete` with two prices at the cap. Before, it stored an expense of
    /// 2 × 10^15 cents (which `import` then refused when the user's export was read back); now it
    /// is refused, nothing stored, and the list can still be completed within the cap.
    @Test func listCompletedAboveTheCapIsRefused() throws {
        try inFolder { dir in
            let db = try priceDatabase(dir)
            let add = try geospend(["lists", "add", "--user", "u1", "--name", "Week", "--budget", "5.00", "--currency", "EUR", "--item", "Bread", "--item", "Cheese", "--db", db])
            #expect(add.status == 0, "\(add.err)")
            let over = try geospend([
                "lists", "complete", "--user", "u1", "--id", "1", "--store", "b", "--at", "2025-07-01T18:00:00+03:00",
                "--price", "Bread=10000000000000.00", "--price", "Cheese=10000000000000.00", "--db", db,
            ])
            #expect(over.status == 2, "status \(over.status): \(over.out) \(over.err)")
            #expect(over.err.contains("20000000000000.00 EUR") && over.err.contains("nothing stored"), "\(over.err)")
            let export = try #require(try JSONSerialization.jsonObject(with: Data(try geospend(["users", "export", "u1", "--db", db]).out.utf8)) as? [String: Any])
            #expect((export["expenses"] as? [Any])?.count == 0, "\(export.keys)")
            let within = try geospend([
                "lists", "complete", "--user", "u1", "--id", "1", "--store", "b", "--at", "2025-07-01T18:00:00+03:00",
                "--price", "Bread=9999999999999.99", "--price", "Cheese=0.01", "--db", db,
            ])
            #expect(within.status == 0, "\(within.err)")
            #expect(within.out.contains("10000000000000.00 EUR"), "\(within.out)")
        }
    }
}
