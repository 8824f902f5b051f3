import Foundation
import GeoSpend
import GeoSpendTestStores
import GeoSpendTestSupport
import Testing

/// Prices, products, baskets, inflation, receipts and shopping lists on `--db postgresql://…`
/// give the file's bytes: each step below runs on a SpatiaLite file and on a PostgreSQL
/// database in turn, writes included, and stdout, stderr and exit status must be equal
/// (`PostGISCLITests.difference`), errors too.
///
/// Fixtures: the Helsinki places (Data/helsinki-places.geojson) and Data/examples/prices.csv;
/// PricesCLITests' hand-written stores a, b, c and their prices; Open Prices rows as
/// PriceTests writes them (columns from data.gouv.fr's "Open Prices" dataset page); the first
/// case of Tests/Fixtures/prices/basket.json (stores and records from
/// Tests/validators/prices_oracle.py, seeded) turned into a stores and a prices CSV; and
/// receipt texts of Tests/Fixtures/prices/receipts.json (same generator).
@Suite(.serialized, .enabled(if: PostGISTestServer.address != nil, "needs $GEOSPEND_TEST_POSTGRES (make test starts a server)"))
struct PostGISPricesCLITests {
    let cli = PostGISCLITests()
    var dir: URL { cli.dir }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// An empty file and an empty PostgreSQL database.
    func databases() throws -> (file: String, server: String) {
        (dir.appendingPathComponent("prices.sqlite").path, PostGISTestServer.url(try PostGISTestServer.newDatabase()))
    }

    /// Runs each step on both, in order: the steps whose outputs differ, and the file's outputs.
    func run(_ steps: [[String]], _ dbs: (file: String, server: String)) throws -> (differing: [String], onFile: [ProgramOutput]) {
        var differing: [String] = [], onFile: [ProgramOutput] = []
        for args in steps {
            let (output, difference) = try cli.compared(args, dbs)
            onFile.append(output)
            if let difference { differing.append("\(args.joined(separator: " ")): \(difference)") }
        }
        return (differing, onFile)
    }

    /// The first generated basket case: its stores, and its records as a prices CSV per user
    /// (a record of no user is u0's).
    func basketCase() throws -> (stores: String, prices: [(user: String, file: String)], items: [String], asOf: String) {
        let fixture = try JSONSerialization.jsonObject(with: Data(contentsOf: CLITests.repo.appendingPathComponent("Tests/Fixtures/prices/basket.json"))) as! [String: Any]
        let c = (fixture["cases"] as! [[String: Any]])[0]
        var stores = "id,name,lat,lon\n"
        for s in c["stores"] as! [[String: Any]] { stores += "\(s["id"]!),\(s["name"]!),\(s["lat"]!),\(s["lon"]!)\n" }
        var byUser: [String: String] = [:]
        for r in c["records"] as! [[String: Any]] {
            let pack = r["pack"] as! String
            let unitStart = pack.firstIndex { $0.isLetter } ?? pack.endIndex  // "10": ten pieces
            let user = (r["user"] as? String) ?? "u0"
            byUser[user, default: "product,store_id,price,currency,recorded_at,quantity,unit\n"] +=
                "\(r["product"]!),\(r["store"]!),\(r["price"]!),\(r["currency"]!),\(r["date"]!),\(pack[..<unitStart]),\(unitStart == pack.endIndex ? "pcs" : pack[unitStart...])\n"
        }
        let items = (c["items"] as! [[String: Any]]).flatMap { ["--item", "\($0["product"]!)=\($0["want"]!)"] }
        return (try file("basket-stores.csv", stores), try byUser.keys.sorted().map { ($0, try file("basket-\($0).csv", byUser[$0]!)) },
                items, c["as_of"] as! String)
    }

    /// Receipt texts of the generated fixture whose lines add up to their total.
    func receipts(_ n: Int) throws -> [String] {
        let fixture = try JSONSerialization.jsonObject(with: Data(contentsOf: CLITests.repo.appendingPathComponent("Tests/Fixtures/prices/receipts.json"))) as! [String: Any]
        let good = (fixture["cases"] as! [[String: Any]]).filter { (($0["expected"] as! [String: Any])["sum_matches"] as? Bool) == true }
        return try good.prefix(n).enumerated().map { try file("receipt-\($0.offset).txt", $0.element["text"] as! String) }
    }

    @Test func sameBytesAsTheFile() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let dbs = try databases()
        let abc = try file("abc.csv", PricesCLITests.stores), u1 = try file("u1.csv", PricesCLITests.prices)
        let bad = try file("bad.csv", PriceTests.header + """
            Milk,,,,a,1.29,EUR,2026-03-02T09:00:00+02:00,1,l
            Flour,,,,a,0.00,EUR,2026-03-02,1,kg
            Salt,,,,zz,0.59,EUR,2026-03-02,1,kg
            Rice,,,,b,2.10,EUR,2026-03-02,2,kg

            """)
        let openPrices = try file("open-prices.csv", """
            id,type,product_code,product_name,category_tag,labels_tags,price,price_is_discounted,price_per,currency,location_osm_id,location_osm_type,location_id,date,proof_id,owner
            101,PRODUCT,4006381333931,Textmarker,,,1.55,False,,EUR,288130404,NODE,77,2026-02-20,5,h1
            102,CATEGORY,,,en:apples,['en:organic'],2.49,False,KILOGRAM,EUR,4867546225,NODE,78,2026-02-21,6,h2
            103,PRODUCT,5010017088439,,,,3.10,False,,EUR,123456,WAY,79,2026-02-22,7,h3

            """)
        let jsonl = try file("open-prices.jsonl", """
            {"id":104,"product_code":"4006381333931","product_name":null,"price":1.59,"currency":"EUR","location_osm_id":288130404,"location_osm_type":"NODE","date":"2026-03-01","owner":"h4"}

            """)
        let basket = try basketCase()
        let receipts = try receipts(3)
        let long = try file("long.txt", "Lidl\nMilk 1,00\n\(String(repeating: "x", count: 5000)) 2,00\nSUMME 3,00\n")
        let mismatch = try file("mismatch.txt", "Lidl\nMilk 1,00\nSUMME 3,00\n")

        var steps: [[String]] = [
            ["import", "stores", "Data/helsinki-places.geojson"], ["import", "stores", abc], ["import", "stores", basket.stores],
            ["prices", "import", "Data/examples/prices.csv", "--user", "alice"],
            ["prices", "import", "Data/examples/prices.csv", "--user", "alice"],  // again: a no-op
            ["prices", "import", u1, "--user", "u1"],
            ["prices", "import", bad, "--user", "u1"],  // bad rows: nothing written
            ["prices", "import", bad, "--user", "u1", "--skip-invalid"],
            ["prices", "import", openPrices, "--user", "ann"],  // a way no store came from
            ["prices", "import", openPrices, "--user", "ann", "--skip-invalid"],
            ["prices", "import", jsonl, "--user", "ann"],
        ]
        steps += basket.prices.map { ["prices", "import", $0.file, "--user", $0.user] }
        steps += [
            ["prices", "history", "--product", "Vollmilch 1,5%", "--user", "alice"],
            ["prices", "history", "--product", "vollmilch", "--user", "alice", "--format", "json"],
            ["prices", "history", "--product", "Milk", "--all-users", "--format", "csv"],
            ["prices", "history", "--product", "4006381333931", "--user", "ann", "--format", "json"],
            ["prices", "history", "--product", "coffee", "--all-users", "--store", "node/101", "--format", "json"],
            ["prices", "history", "--product", "Nothing like it", "--user", "alice"],
            ["prices", "history", "--product", "Milk", "--user", "nobody"],
            ["products", "search", "", "--format", "json"],
            ["products", "search", "milch", "--user", "alice"],
            ["products", "search", "", "--user", "u1", "--format", "csv"],
            ["products", "search", "x", "--user", "nobody"],
            ["prices", "inflation", "--product", "Milk", "--as-of", "2025-06-30", "--format", "json"],
            ["prices", "inflation", "--category", "dairy", "--as-of", "2025-06-30", "--format", "json"],
            ["prices", "inflation", "--category", "Dairy", "--store", "a", "--as-of", "2025-06-30"],
            ["prices", "inflation", "--product", "Milk", "--near", "60.1689,24.9384", "--radius", "10m", "--as-of", "2025-06-30", "--format", "json"],
            ["prices", "inflation", "--product", "bread", "--as-of", basket.asOf, "--days", "60", "--format", "json"],
            ["prices", "inflation", "--product", "Nothing like it", "--as-of", "2025-06-30"],
            ["basket", "--item", "Milk=2", "--item", "Bread", "--item", "Cheese", "--as-of", "2025-06-30", "--format", "json"],
            ["basket", "--item", "Milk=2", "--item", "Bread", "--item", "Cheese", "--as-of", "2025-06-30"],
            ["basket", "--item", "Milk=2", "--item", "Bread", "--item", "Cheese", "--as-of", "2025-06-30", "--near", "60.1699,24.9384",
             "--radius", "1km", "--cost-per-km", "0.30", "--format", "json"],
            ["basket", "--item", "Milk=2", "--item", "Bread", "--currency", "SEK", "--min-availability", "0.3", "--as-of", "2025-06-30", "--format", "json"],
            ["basket"] + basket.items + ["--as-of", basket.asOf, "--format", "json"],
            ["basket"] + basket.items + ["--as-of", basket.asOf, "--min-users", "2", "--format", "json"],
            ["basket", "--item", "Milk=zwei"],
        ]
        for (i, r) in receipts.enumerated() {
            steps.append(["receipts", "import", r, "--user", "ann", "--store", i % 2 == 0 ? "a" : "b", "--at", "2025-06-0\(i + 2)T09:00:00+03:00", "--format", i == 0 ? "json" : "table"])
        }
        steps += [
            ["receipts", "import", receipts[0], "--user", "ann", "--store", "a", "--at", "2025-06-02T09:00:00+03:00"],  // stored before
            ["receipts", "import", receipts[0], "--user", "ann", "--store", "zz", "--at", "2025-06-03"],
            ["receipts", "import", long, "--user", "ann", "--store", "b", "--at", "2025-06-04"],
            ["receipts", "import", mismatch, "--user", "ann", "--store", "b", "--at", "2025-06-05"],
            ["receipts", "import", mismatch, "--user", "ann", "--store", "b", "--at", "2025-06-05", "--allow-mismatch", "--category", "Groceries"],
            ["prices", "history", "--product", "Milk", "--user", "ann", "--format", "csv"],
            ["products", "search", "", "--user", "ann", "--format", "json"],
            ["summary", "--user", "ann", "--format", "json"],
            ["insights", "--user", "ann", "--format", "csv"],
            ["lists", "add", "--user", "u1", "--name", " ", "--budget", "5", "--currency", "EUR"],
            ["lists", "add", "--user", "u1", "--name", "Week", "--budget", "0", "--currency", "EUR"],
            ["lists", "add", "--user", "nobody", "--name", "Week", "--budget", "5", "--currency", "EUR"],
            ["lists", "add", "--user", "u1", "--name", "Week", "--budget", "5.00", "--currency", "EUR", "--item", "Bread", "--item", "Cheese"],
            ["lists", "add", "--user", "u1", "--id", "1", "--item", "bread=2", "--item", "Äpfel=1.5kg"],
            ["lists", "add", "--user", "u1", "--name", "Weekend", "--budget", "12.50", "--currency", "EUR", "--item", "Milk=1l"],
            ["lists", "add", "--user", "alice", "--name", "Alice's", "--budget", "3", "--currency", "EUR"],
            ["lists", "add", "--user", "u1", "--id", "9", "--item", "Milk"],
            ["lists", "show", "--user", "u1"],
            ["lists", "show", "--user", "u1", "--format", "json"],
            ["lists", "show", "--user", "u1", "--id", "1", "--as-of", "2025-06-30", "--format", "json"],
            ["lists", "show", "--user", "u1", "--id", "1", "--as-of", "2025-06-30", "--near", "60.1699,24.9384", "--radius", "1km"],
            ["lists", "show", "--user", "u1", "--id", "7"],
            ["lists", "complete", "--user", "u1", "--id", "1", "--store", "b", "--at", "2025-07-01T18:00:00+03:00",
             "--price", "Bread=5.70", "--price", "Cheese=4.10"],
            ["lists", "complete", "--user", "u1", "--id", "1", "--store", "b", "--at", "2025-07-02", "--price", "Bread=1.00"],
            ["lists", "complete", "--user", "u1", "--id", "2", "--store", "zz", "--at", "2025-07-02", "--price", "Milk=1.00"],
            ["lists", "complete", "--user", "u1", "--id", "2", "--store", "c", "--at", "2025-07-02", "--price", "Butter=1.00"],
            ["lists", "add", "--user", "u1", "--id", "1", "--item", "Milk"],
            ["lists", "show", "--user", "u1", "--format", "json"],
            ["prices", "history", "--product", "Cheese", "--user", "u1", "--format", "csv"],
            ["products", "search", "", "--format", "json"],
        ]
        let (differing, onFile) = try run(steps, dbs)
        #expect(differing.isEmpty, "\(differing.joined(separator: "\n"))")
        // The steps did something: imports, matches, errors, lists.
        #expect(onFile.filter { $0.status == 0 }.count > 50 && onFile.filter { $0.status == 2 }.count >= 12)
        #expect(onFile[4].err.contains("imported 0 price records (0 new products), 6 already present"), "\(onFile[4].err)")

        // users export: the same documents (the times each store stamps aside).
        func masked(_ text: String) -> String {
            text.replacingOccurrences(of: #""(created|updated)_at": ?"[^"]*""#, with: "\"time\":\"…\"", options: .regularExpression)
        }
        for user in ["u1", "ann", "alice"] {
            let a = try cli.geospend(["users", "export", user, "--db", dbs.file]), b = try cli.geospend(["users", "export", user, "--db", dbs.server])
            #expect(a.status == 0 && b.status == 0 && a.out.contains("\"price_records\""), "\(user): \(a.err) \(b.err)")
            #expect(masked(a.out) == masked(b.out), "users export \(user)")
        }

        // users delete: every price record and list of u1 goes, and the products only u1's
        // records named; the catalogue then reads the same, and a new product gets the same id
        // on both (the file reuses the largest id freed; so must the server).
        for db in [dbs.file, dbs.server] {
            let r = try cli.geospend(["users", "delete", "u1", "--yes", "--db", db])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.contains("price_records 20, product_marks 0, product_tag_links 0, product_tags 0, receipts 0, recurring_numbers 0, recurring_rules 0, shopping_list_items 4, shopping_list_numbers 1, shopping_lists 2"), "\(r.out)")
        }
        let left = try runProgram("/usr/bin/psql", [dbs.server, "-qAt", "-c", """
            SELECT (SELECT count(*) FROM price_records WHERE user_id = 'u1') + (SELECT count(*) FROM shopping_lists WHERE user_id = 'u1')
                 + (SELECT count(*) FROM shopping_list_items WHERE user_id = 'u1') + (SELECT count(*) FROM shopping_list_numbers WHERE user_id = 'u1')
                 + (SELECT count(*) FROM products AS p WHERE NOT EXISTS (SELECT 1 FROM price_records WHERE product_id = p.id))
            """])
        #expect(left.out.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(left.out) \(left.err)")
        let after = try file("after.csv", PriceTests.header + "Quark,,,Dairy,c,0.99,EUR,2025-07-03,250,g\n")
        let afterSteps = [
            ["users", "export", "u1"], ["products", "search", "", "--format", "json"], ["prices", "import", after, "--user", "u2"],
            ["products", "search", "", "--format", "json"], ["lists", "show", "--user", "alice", "--format", "json"],
        ]
        let differingAfter = try run(afterSteps, dbs).differing
        #expect(differingAfter.isEmpty, "\(differingAfter.joined(separator: "\n"))")
    }

    /// The comparison can fail: a price recorded on the server alone shows in its outputs.
    @Test func differencesAreSeen() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let dbs = try databases()
        let u1 = try file("u1.csv", PricesCLITests.prices), extra = try file("extra.csv", PriceTests.header + "Milk,,,,b,0.45,EUR,2025-06-20,1,l\n")
        let setup = [["import", "stores", try file("abc.csv", PricesCLITests.stores)], ["prices", "import", u1, "--user", "u1"]]
        #expect(try run(setup, dbs).differing.isEmpty)
        #expect(try cli.geospend(["prices", "import", extra, "--user", "u1", "--db", dbs.server]).status == 0)
        let queries = [
            ["prices", "history", "--product", "Milk", "--user", "u1"],
            ["basket", "--item", "Milk=2", "--item", "Bread", "--item", "Cheese", "--as-of", "2025-06-30", "--format", "json"],
            ["prices", "inflation", "--product", "Milk", "--as-of", "2025-06-30", "--format", "json"],
        ]
        #expect(try run(queries, dbs).differing.count == queries.count)
    }
}
