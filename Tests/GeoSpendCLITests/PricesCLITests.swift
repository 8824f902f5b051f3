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

    /// Three stores around a home in Helsinki: a ≈ 111 m north, b ≈ 111 m south, c ≈ 5.6 km north.
    static let stores = """
        id,name,lat,lon
        a,Store A,60.1709,24.9384
        b,Store B,60.1689,24.9384
        c,Store C,60.2199,24.9384

        """

    /// Prices of one user (u1) before 2025-06-30, one after it, one in SEK.
    static let prices = """
        product,store_id,price,currency,recorded_at,quantity,unit,category
        Milk,a,1.00,EUR,2025-06-01T10:00:00+03:00,1,l,Dairy
        Milk,a,0.10,EUR,2025-07-05T10:00:00+03:00,1,l,Dairy
        Milk,a,9.00,SEK,2025-06-01T11:00:00+03:00,1,l,Dairy
        Milk,b,0.55,EUR,2025-06-01T10:00:00+03:00,0.5,l,Dairy
        Milk,c,0.50,EUR,2025-06-01T10:00:00+03:00,1,l,Dairy
        Bread,a,3.00,EUR,2025-06-01T10:00:00+03:00,1,pcs,Bakery
        Bread,b,2.00,EUR,2025-06-01T10:00:00+03:00,1,pcs,Bakery
        Bread,c,1.00,EUR,2025-06-01T10:00:00+03:00,1,pcs,Bakery
        Cheese,a,5.00,EUR,2025-06-01T10:00:00+03:00,1,kg,Dairy
        Cheese,c,4.00,EUR,2025-06-01T10:00:00+03:00,1,kg,Dairy

        """

    func priceDatabase(_ dir: URL) throws -> String {
        let db = dir.appendingPathComponent("p.sqlite").path
        let s = dir.appendingPathComponent("s.csv").path, p = dir.appendingPathComponent("p.csv").path
        try Self.stores.write(toFile: s, atomically: true, encoding: .utf8)
        try Self.prices.write(toFile: p, atomically: true, encoding: .utf8)
        #expect(try geospend(["import", "stores", s, "--db", db]).status == 0)
        let r = try geospend(["prices", "import", p, "--user", "u1", "--db", db])
        #expect(r.status == 0, "\(r.err)")
        return db
    }

    /// The seed's rule (as-of, availability, ranking), the issue's JSON keys, packs of different
    /// sizes, one currency; within reach with a travel cost and the two-store split. Expected
    /// figures by hand from `prices` above.
    @Test func basket() throws {
        try inFolder { dir in
            let db = try priceDatabase(dir)
            let items = ["--item", "Milk=2", "--item", "Bread", "--item", "Cheese", "--as-of", "2025-06-30", "--db", db, "--format", "json"]
            let r = try geospend(["basket"] + items)
            #expect(r.status == 0, "\(r.err)")
            let j = try json(r.out)
            for key in ["best_store", "best_total_price", "best_currency", "total_items", "available_items", "stores"] {
                #expect(j.keys.contains(key), "missing \(key)")
            }
            // Milk=2: packs differ (1 l at a and c, 0.5 l at b), so 2 l: a 2.00, c 1.00, b 2.20.
            // a 2.00 + 3.00 + 5.00 = 10.00; c 1.00 + 1.00 + 4.00 = 6.00; b has 2 of 3 (67 % < 85 %).
            #expect(j["best_store"] as? String == "c")
            #expect(j["best_total_price"] as? String == "6.00")
            #expect(j["best_currency"] as? String == "EUR")
            #expect(j["total_items"] as? Int == 3)
            #expect(j["available_items"] as? Int == 3)
            let stores = try #require(j["stores"] as? [[String: Any]])
            #expect(stores.map { ($0["store"] as! [String: Any])["id"] as! String } == ["c", "a"])
            #expect(stores.map { $0["total_price"] as! String } == ["6.00", "10.00"])
            #expect(stores[1]["item_prices"] as? [String: String] == ["Milk": "2.00", "Bread": "3.00", "Cheese": "5.00"])
            for key in ["store", "total_price", "currency", "available_items", "unavailable_items", "item_prices", "distance_m"] {
                #expect(stores.allSatisfy { $0.keys.contains(key) }, "missing \(key)")
            }
            #expect((j["currencies_left_out"] as? [[String: Any]])?.first?["currency"] as? String == "SEK")

            // Within 1 km: c is out; b still lacks cheese, so a alone is ranked. Among a and b the
            // packs tie (1 l, 0.5 l): Milk=2 is two of the smaller, 1 l: a 1.00, b 1.10; a's total
            // 9.00. The split a + b (milk and cheese at a, bread at b) is 8.00; trip home → a → b → home.
            let near = try geospend(["basket"] + items + ["--near", "60.1699,24.9384", "--radius", "1km", "--cost-per-km", "0.30"])
            #expect(near.status == 0, "\(near.err)")
            let n = try json(near.out)
            let ranked = try #require(n["stores"] as? [[String: Any]])
            #expect(ranked.map { ($0["store"] as! [String: Any])["id"] as! String } == ["a"])
            let d = try #require(ranked[0]["distance_m"] as? Double)
            #expect(abs(d - 111.4) < 0.5)
            let travel = (30 * 2 * d / 1000).rounded(.toNearestOrAwayFromZero) / 100
            #expect(ranked[0]["travel_cost"] as? String == String(format: "%.2f", travel))
            let split = try #require(n["split"] as? [String: Any])
            #expect(split["stores"] as? [String] == ["a", "b"])
            #expect(ranked[0]["total_price"] as? String == "9.00")
            #expect(split["total_price"] as? String == "8.00")
            let prices = try #require(split["item_prices"] as? [String: [String: String]])
            #expect(prices.mapValues { $0["store"]! } == ["Milk": "a", "Bread": "b", "Cheese": "a"])
            let trip = try #require(split["trip_m"] as? Double)
            #expect(abs(trip - 4 * 111.4) < 2)

            // --min-users 2: every price here comes from u1 alone, so none is published.
            let crowd = try json(try geospend(["basket"] + items + ["--min-users", "2"]).out)
            #expect(crowd["best_store"] is NSNull)
            // --currency SEK: only a's milk.
            let sek = try json(try geospend(["basket"] + items + ["--currency", "SEK", "--min-availability", "0.3"]).out)
            #expect(sek["best_store"] as? String == "a")
            #expect(sek["best_total_price"] as? String == "18.00")

            let bad = try geospend(["basket", "--item", "Milk=zwei", "--db", db])
            #expect(bad.status == 2)
            #expect(bad.err.contains("Milk=zwei"))
            #expect(try geospend(["basket", "--db", db]).status == 2)
            // A position off the globe names the option and the text given, not --lat/--lon.
            let offGlobe = try geospend(["basket"] + items + ["--near", "95,24.9", "--radius", "1km"])
            #expect(offGlobe.status == 2)
            #expect(offGlobe.err.contains("--near 95,24.9:") && !offGlobe.err.contains("--lat"), "\(offGlobe.err)")
        }
    }

    /// An item is read as `products search` reads it: "Milch" is "Vollmilch 1,5%" (the README's
    /// example, Data/examples/prices.csv), which a price record named "Milch" would not be filed
    /// under; a brand alone chooses nothing, and neither does a name nothing answers.
    @Test func basketReadsItemsAsSearchDoes() throws {
        try inFolder { dir in
            let db = dir.appendingPathComponent("b.sqlite").path
            #expect(try geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", db]).status == 0)
            #expect(try geospend(["prices", "import", "Data/examples/prices.csv", "--user", "alice", "--db", db]).status == 0)
            let r = try geospend(["basket", "--item", "Milch=2", "--item", "Brot", "--item", "Valio", "--as-of", "2026-03-31", "--format", "json", "--db", db])
            #expect(r.status == 0, "\(r.err)")
            let matched = try #require(try json(r.out)["matched"] as? [[String: Any]], "\(r.out)")
            #expect(matched.map { $0["item"] as? String } == ["Milch", "Brot", "Valio"])
            #expect(matched[0]["product"] as? String == "Vollmilch 1,5%" && matched[0]["product_id"] is Int, "\(matched)")
            #expect(matched[1]["product"] is NSNull && matched[2]["product"] is NSNull, "\(matched)")
            #expect(r.err.contains(#""Milch" is read as "Vollmilch 1,5%""#) && r.err.contains(#"no product matches "Brot""#), "\(r.err)")
            let milk = try json(try geospend(["basket", "--item", "Milch", "--as-of", "2026-03-31", "--format", "json", "--db", db]).out)
            #expect(milk["best_store"] as? String == "4867546225" && milk["best_total_price"] as? String == "1.19", "\(milk)")
        }
    }

    /// The seed's formula through the CLI: butter +30 % (4 records, k = 1), cheese −10 %
    /// (2 records); the category weighs them by records, (4 × 30 − 2 × 10) / 6; --store narrows.
    @Test func inflation() throws {
        try inFolder { dir in
            let db = try priceDatabase(dir)
            let p = dir.appendingPathComponent("more.csv").path
            try """
                product,store_id,price,currency,recorded_at,category
                Butter,a,1.00,EUR,2025-01-10,Fats
                Butter,a,1.10,EUR,2025-03-10,Fats
                Butter,b,1.20,EUR,2025-05-10,Fats
                Butter,a,1.30,EUR,2025-06-10,Fats
                Margarine,a,2.00,EUR,2025-02-10,Fats
                Margarine,a,1.80,EUR,2025-04-10,Fats
                Butter,a,9.99,EUR,2024-01-10,Fats

                """.write(toFile: p, atomically: true, encoding: .utf8)
            #expect(try geospend(["prices", "import", p, "--user", "u1", "--db", db]).status == 0)
            let one = try json(try geospend(["prices", "inflation", "--product", "Butter", "--as-of", "2025-06-30", "--db", db, "--format", "json"]).out)
            #expect(abs((one["rate_percent"] as! Double) - 30) < 1e-6)
            #expect(one["records"] as? Int == 4)
            #expect((one["first_window"] as? [String: Any])?["from"] as? String == "2025-01-10")
            #expect((one["last_window"] as? [String: Any])?["to"] as? String == "2025-06-10")
            let category = try json(try geospend(["prices", "inflation", "--category", "Fats", "--as-of", "2025-06-30", "--db", db, "--format", "json"]).out)
            #expect(abs((category["rate_percent"] as! Double) - 100.0 / 6) < 1e-5)
            #expect(category["records"] as? Int == 6)
            // At store a only: butter 1.00, 1.10, 1.30 (k = 1: +30 %) and margarine −10 %: (3 × 30 − 2 × 10) / 5.
            let atA = try json(try geospend(["prices", "inflation", "--category", "Fats", "--store", "a", "--as-of", "2025-06-30", "--db", db, "--format", "json"]).out)
            #expect(abs((atA["rate_percent"] as! Double) - 14) < 1e-6)
            let near = try json(try geospend(["prices", "inflation", "--product", "Butter", "--near", "60.1689,24.9384", "--radius", "10m", "--as-of", "2025-06-30", "--db", db, "--format", "json"]).out)
            #expect(near["records"] as? Int == 1)
            #expect(near["rate_percent"] as? Double == 0)
            // Neither is the overall rate (issue 38, seed 003 L1056); both at once are refused.
            #expect(try geospend(["prices", "inflation", "--as-of", "2025-06-30", "--db", db]).status == 0)
            #expect(try geospend(["prices", "inflation", "--product", "Butter", "--category", "Dairy", "--db", db]).status == 2)
        }
    }

    /// A receipt becomes one expense at its store and one price record per line, in one
    /// transaction: a failure among the lines leaves no expense behind; an unknown store and
    /// the same receipt again are refused.
    @Test func receiptsImport() throws {
        try inFolder { dir in
            let db = try priceDatabase(dir)
            let file = dir.appendingPathComponent("r.txt").path
            try "REWE Markt\nMilk 1,29\nBrot Vollkorn 2,49\nÄpfel 1kg 3,99\nSUMME 7,77\n".write(toFile: file, atomically: true, encoding: .utf8)
            let args = ["receipts", "import", file, "--user", "ann", "--store", "a", "--at", "2025-06-02T09:00:00+03:00", "--db", db]
            let r = try geospend(args + ["--format", "json"])
            #expect(r.status == 0, "\(r.err)")
            let j = try json(r.out)
            #expect(j["total"] as? String == "7.77")
            #expect(j["price_records"] as? Int == 3)
            // Only u1 recorded Milk before: it is new to ann (issue 35, item 10: another user's
            // purchases are not hers to learn of), though the line joins the catalogue's product.
            #expect((j["matched"] as? [[String: String]])?.map { $0["product"]! } == [])
            #expect(j["new_products"] as? [String] == ["Milk", "Brot Vollkorn", "Äpfel 1kg"])
            let summary = try json(try geospend(["summary", "--user", "ann", "--db", db, "--format", "json"]).out)
            #expect("\(summary)".contains("7.77"))
            let insights = try geospend(["insights", "--user", "ann", "--db", db, "--format", "csv"])
            #expect(insights.out.contains("Store A"))

            let again = try geospend(args)
            #expect(again.status == 2)
            #expect(again.err.contains("stored before"))
            let unknown = try geospend(["receipts", "import", file, "--user", "ann", "--store", "zz", "--at", "2025-06-03", "--db", db])
            #expect(unknown.status == 2)
            #expect(unknown.err.contains("--store zz"))

            // A line no product name can be is refused with its line number, and nothing of the
            // receipt stays (ReceiptStorageTests shows the transaction rolls back when the store refuses a line).
            let long = String(repeating: "x", count: 5000)
            try "Lidl\nMilk 1,00\n\(long) 2,00\nSUMME 3,00\n".write(toFile: file, atomically: true, encoding: .utf8)
            let failed = try geospend(["receipts", "import", file, "--user", "ann", "--store", "b", "--at", "2025-06-04", "--db", db])
            #expect(failed.status == 2)
            #expect(failed.err.contains("line 3: the name is 5000 characters long"))
            let after = try geospend(["expenses", "list", "--user", "ann", "--db", db, "--format", "json"])
            #expect(after.status == 0, "\(after.err)")
            #expect(!after.out.contains("2025-06-04"))
            let history = try geospend(["prices", "history", "--product", "Milk", "--user", "ann", "--db", db, "--format", "csv"])
            #expect(history.status == 0, "\(history.err)")
            #expect(history.out.contains("2025-06-02") && !history.out.contains("2025-06-04"), "\(history.out)")

            let mismatch = dir.appendingPathComponent("m.txt").path
            try "Lidl\nMilk 1,00\nSUMME 3,00\n".write(toFile: mismatch, atomically: true, encoding: .utf8)
            // Items not adding up: kept for review (issue 42 §2), no expense until confirmed.
            let waiting = try geospend(["receipts", "import", mismatch, "--user", "ann", "--store", "b", "--at", "2025-06-05", "--format", "json", "--db", db])
            #expect(waiting.status == 0, "\(waiting.err)")
            #expect(try json(waiting.out)["status"] as? String == "needs_review")
            #expect(try json(waiting.out)["expense_id"] is NSNull)
        }
    }

    /// Lists: name and budget checked, an item added twice adds its quantity, the estimate (the
    /// basket's cheapest store) over the budget says "budget exceeded", complete stores the
    /// expense and the price records; users export and delete cover the lists.
    @Test func shoppingLists() throws {
        try inFolder { dir in
            let db = try priceDatabase(dir)
            #expect(try geospend(["receipts", "parse", "--help"]).status == 0)
            let noName = try geospend(["lists", "add", "--user", "u1", "--name", " ", "--budget", "5", "--currency", "EUR", "--db", db])
            #expect(noName.status == 2 && noName.err.contains("--name"))
            let zero = try geospend(["lists", "add", "--user", "u1", "--name", "Week", "--budget", "0", "--currency", "EUR", "--db", db])
            #expect(zero.status == 2 && zero.err.contains("--budget") && zero.err.contains("zero"))
            let add = try geospend(["lists", "add", "--user", "u1", "--name", "Week", "--budget", "5.00", "--currency", "EUR", "--item", "Bread", "--item", "Cheese", "--db", db])
            #expect(add.status == 0, "\(add.err)")
            let more = try geospend(["lists", "add", "--user", "u1", "--id", "1", "--item", "bread=2", "--over-budget", "--db", db])
            #expect(more.out.contains("Bread × 3"), "\(more.out) \(more.err)")
            // Bread × 3 + Cheese: c 3.00 + 4.00 = 7.00 > 5.00.
            let show = try json(try geospend(["lists", "show", "--user", "u1", "--id", "1", "--as-of", "2025-06-30", "--db", db, "--format", "json"]).out)
            #expect(show["estimated_cost"] as? String == "7.00")
            #expect(show["estimate_store"] as? String == "c")
            #expect(show["budget_exceeded"] as? Bool == true)
            #expect(try geospend(["lists", "show", "--user", "u1", "--id", "1", "--as-of", "2025-06-30", "--db", db]).out.contains("budget exceeded"))
            let within = try json(try geospend(["lists", "show", "--user", "u1", "--id", "1", "--as-of", "2025-06-30", "--near", "60.1699,24.9384", "--radius", "1km", "--db", db, "--format", "json"]).out)
            #expect(within["estimate_store"] as? String == "a")
            #expect(within["estimated_cost"] as? String == "14.00")

            let done = try geospend(["lists", "complete", "--user", "u1", "--id", "1", "--store", "b", "--at", "2025-07-01T18:00:00+03:00",
                                     "--price", "Bread=5.70", "--price", "Cheese=4.10", "--db", db])
            #expect(done.status == 0, "\(done.err)")
            #expect(done.out.contains("9.80 EUR"))
            let history = try geospend(["prices", "history", "--product", "Cheese", "--user", "u1", "--db", db, "--format", "csv"])
            #expect(history.out.contains("4.10"), "\(history.out)")
            #expect(try geospend(["lists", "complete", "--user", "u1", "--id", "1", "--store", "b", "--at", "2025-07-02", "--price", "Bread=1.00", "--db", db]).status == 2)

            let export = try json(try geospend(["users", "export", "u1", "--db", db]).out)
            let lists = try #require(export["shopping_lists"] as? [[String: Any]])
            #expect(lists.map { $0["completed_expense_id"] as? String } == ["list-u1-1"])
            #expect((export["counts"] as? [String: Int])?["shopping_lists"] == 1)
            let deleted = try geospend(["users", "delete", "u1", "--yes", "--db", db])
            #expect(deleted.out.contains("shopping_list_items 2") && deleted.out.contains("shopping_lists 1"), "\(deleted.out)")
        }
    }

    /// Each new command has --help with an example, wrapped for an 80-column terminal.
    @Test(arguments: [
        ["basket"], ["trends"], ["receipts", "parse"], ["receipts", "import"], ["lists", "add"], ["lists", "show"], ["lists", "complete"],
        ["prices", "inflation"],
    ])
    func helpHasAnExample(command: [String]) throws {
        let r = try geospend(command + ["--help"])
        #expect(r.status == 0)
        #expect(r.out.contains("Example"))
        #expect(r.out.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(command): \(r.out)")
    }
}
