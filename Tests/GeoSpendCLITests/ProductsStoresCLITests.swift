import Foundation
import GeoSpendTestSupport
import Testing

/// Issue 38's "products, stores and corrections" through the built binary: `prices
/// list|edit|delete`. Expected values are written by hand from Data/examples/prices.csv.
@Suite(.serialized) struct ProductsStoresCLITests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-products-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    func ok(_ args: [String], _ db: String) throws -> String {
        let r = try geospend(args + ["--db", db])
        #expect(r.status == 0, "\(args): \(r.err)")
        return r.out
    }

    func json(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "\(text)")
    }

    /// alice's six records of Data/examples/prices.csv, and one of bob's.
    func database() throws -> String {
        let db = dir.appendingPathComponent("p.sqlite").path
        _ = try ok(["import", "stores", "Data/helsinki-places.geojson"], db)
        _ = try ok(["prices", "import", "Data/examples/prices.csv", "--user", "alice"], db)
        let bob = dir.appendingPathComponent("bob.csv").path
        try "product,store_id,price,currency,recorded_at\nRuisleipä,288130404,2.10,EUR,2026-03-03\n".write(toFile: bob, atomically: true, encoding: .utf8)
        _ = try ok(["prices", "import", bob, "--user", "bob"], db)
        return db
    }

    @Test func aRecordIsCorrectedAndDeleted() throws {
        let db = try database()
        let list = try json(try ok(["prices", "list", "--user", "alice", "--format", "json"], db))
        // Oldest first: the two of 2 March 09:10 (+02:00) and the bare date 2 March, by id.
        #expect(list.map { "\($0["id"]!) \($0["product"]!) \($0["price"]!)" } == [
            "6 Stabilo Boss Textmarker 1.49", "1 Vollmilch 1,5% 1.29", "4 Äpfel 3.99", "3 Vollmilch 1,5% 1.19", "5 Äpfel 1.79",
            "2 Vollmilch 1,5% 1.35",
        ])
        #expect(list.allSatisfy { ($0["created_at"] as? String)?.hasSuffix("Z") == true && $0["created_at"] as? String == $0["updated_at"] as? String })
        let milk = try json(try ok(["prices", "list", "--user", "alice", "--product", "Vollmilch 1,5%", "--format", "json"], db))
        #expect(milk.map { $0["id"] as? Int } == [1, 3, 2])

        let edited = try json(try ok(["prices", "edit", "3", "--user", "alice", "--price", "1.25", "--quantity", "500", "--unit", "ml", "--format", "json"], db))
        #expect(edited.count == 1)
        #expect(edited[0]["price"] as? String == "1.25" && edited[0]["quantity"] as? Double == 500 && edited[0]["unit"] as? String == "ml")
        #expect(edited[0]["unit_price"] as? Double == 2.5, "1.25 for 500 ml: 2.50 per litre")
        #expect(edited[0]["store_id"] as? String == "4867546225" && edited[0]["recorded_at"] as? String == "2026-03-04T12:00:00+02:00")
        let history = try ok(["prices", "history", "--product", "Vollmilch 1,5%", "--user", "alice", "--format", "csv"], db)
        #expect(history.contains("2026-03-04T12:00:00+02:00,4867546225,"), "\(history)")
        #expect(history.contains(",1.25,EUR,500,ml,2.5000,l,import,"), "\(history)")

        // Re-importing the file is still a no-op: the correction stays.
        let again = try geospend(["prices", "import", "Data/examples/prices.csv", "--user", "alice", "--db", db])
        #expect(again.err.contains("imported 0 price records (0 new products), 6 already present"), "\(again.err)")

        let deleted = try geospend(["prices", "delete", "5", "--user", "alice", "--db", db])
        #expect(deleted.status == 0 && deleted.err.contains("deleted price record 5 of alice"), "\(deleted.err)")
        #expect(try json(try ok(["prices", "list", "--user", "alice", "--format", "json"], db)).map { $0["id"] as? Int } == [6, 1, 4, 3, 2])
    }

    /// Another user's record is "no such record" (exit 2), as a missing one; bad values name
    /// the option; nothing changes.
    @Test func refusals() throws {
        let db = try database()
        let before = try ok(["prices", "list", "--user", "alice", "--format", "json"], db)
        let bobs = try json(try ok(["prices", "list", "--user", "bob", "--format", "json"], db))
        let bobID = try #require(bobs.first?["id"] as? Int)
        for (args, message) in [
            (["prices", "edit", "\(bobID)", "--user", "alice", "--price", "0.01"], "no price record \(bobID) of user \"alice\""),
            (["prices", "delete", "\(bobID)", "--user", "alice"], "no price record \(bobID) of user \"alice\""),
            (["prices", "delete", "99", "--user", "alice"], "no price record 99 of user \"alice\""),
            (["prices", "edit", "1", "--user", "alice"], "nothing to change"),
            (["prices", "edit", "1", "--user", "alice", "--price", "1.295"], "--price: "),
            (["prices", "edit", "1", "--user", "alice", "--quantity=-1"], "--quantity: \"-1\" is not above 0"),
            (["prices", "edit", "1", "--user", "alice", "--unit", "lb"], "--unit: "),
            (["prices", "edit", "1", "--user", "alice", "--store", "nowhere"], "--store \"nowhere\": no such store"),
            (["prices", "edit", "1", "--user", "alice", "--at", "March"], "--at: "),
        ] {
            let r = try geospend(args + ["--db", db])
            #expect(r.status == 2, "\(args): \(r.status) \(r.err)")
            #expect(r.err.contains(message), "\(args): \(r.err)")
        }
        #expect(try ok(["prices", "list", "--user", "alice", "--format", "json"], db) == before)
        #expect(try json(try ok(["prices", "list", "--user", "bob", "--format", "json"], db)).count == 1)
    }

    /// `products list|tag|untag|favourite|sale|edit|merge|delete`: alice's marks are hers, a
    /// product bob also recorded is not edited, the list is by name.
    @Test func productsAreTaggedMarkedAndMerged() throws {
        let db = try database()
        // bob records alice's milk too: the product is shared.
        let shared = dir.appendingPathComponent("shared.csv").path
        try "product,store_id,price,currency,recorded_at\nVollmilch 1.5%,288130404,1.39,EUR,2026-03-04\n".write(toFile: shared, atomically: true, encoding: .utf8)
        _ = try ok(["prices", "import", shared, "--user", "bob"], db)
        let u = ["--user", "alice"]
        let names = { (args: [String]) throws -> [String] in
            try self.json(try self.ok(["products", "list"] + u + args + ["--format", "json"], db)).map { $0["name"] as! String }
        }
        #expect(try names([]) == ["Äpfel", "Stabilo Boss Textmarker", "Vollmilch 1,5%"])
        #expect(try names(["--category", "dairy"]) == ["Vollmilch 1,5%"])
        _ = try ok(["products", "tag", "Vollmilch 1,5%", "--tag", "breakfast", "--color", "orange"] + u, db)
        _ = try ok(["products", "tag", "Äpfel", "--tag", "Breakfast"] + u, db)
        _ = try ok(["products", "favourite", "Äpfel"] + u, db)
        _ = try ok(["products", "sale", "4006381333931"] + u, db)
        #expect(try names(["--tag", "breakfast"]) == ["Äpfel", "Vollmilch 1,5%"])
        #expect(try names(["--favourites"]) == ["Äpfel"])
        #expect(try names(["--on-sale"]) == ["Stabilo Boss Textmarker"])
        let tags = try json(try ok(["products", "tags"] + u + ["--format", "json"], db))
        #expect(tags.map { "\($0["name"]!) \($0["color"]!) \($0["products"]!)" } == ["breakfast #FF9500 2"])
        let apples = try #require(try json(try ok(["products", "list"] + u + ["--format", "json"], db)).first)
        #expect(apples["favourite"] as? Bool == true && apples["tags"] as? [String] == ["breakfast"])
        #expect((apples["created_at"] as? String)?.hasSuffix("Z") == true)
        _ = try ok(["products", "unfavourite", "Äpfel"] + u, db)
        _ = try ok(["products", "sale", "4006381333931", "--off"] + u, db)
        #expect(try names(["--favourites"]).isEmpty && (try names(["--on-sale"])).isEmpty)
        // bob sees none of it, and alice's Äpfel is not his product.
        #expect(try json(try ok(["products", "tags", "--user", "bob", "--format", "json"], db)).isEmpty)
        let bobs = try geospend(["products", "favourite", "Äpfel", "--user", "bob", "--db", db])
        #expect(bobs.status == 2 && bobs.err.contains("no product \"Äpfel\""), "\(bobs.err)")

        let refused = try geospend(["products", "edit", "Vollmilch 1,5%", "--name", "Milk"] + u + ["--db", db])
        #expect(refused.status == 2 && refused.err.contains("also recorded by 1 other user"), "\(refused.err)")
        let edited = try geospend(["products", "edit", "Äpfel", "--name", "Äpfel Elstar", "--format", "json"] + u + ["--db", db])
        #expect(edited.status == 0 && edited.out.contains("\"name\": \"Äpfel Elstar\""), "\(edited.err)")
        // alice's milk records move to the marker (a silly merge, but hers to make); bob's stay.
        let merged = try geospend(["products", "merge", "Vollmilch 1,5%", "--into", "Stabilo Boss Textmarker"] + u + ["--db", db])
        #expect(merged.status == 0 && merged.err.contains("moved 3 price records to product"), "\(merged.err)")
        #expect(try names([]) == ["Äpfel Elstar", "Stabilo Boss Textmarker"])
        #expect(try json(try ok(["prices", "list", "--user", "bob", "--product", "Vollmilch 1.5%", "--format", "json"], db)).count == 1)
        let deleted = try geospend(["products", "delete", "Äpfel Elstar"] + u + ["--db", db])
        #expect(deleted.status == 0 && deleted.err.contains("deleted 2 price records of product"), "\(deleted.err)")
        #expect(try names([]) == ["Stabilo Boss Textmarker"])
    }
}
