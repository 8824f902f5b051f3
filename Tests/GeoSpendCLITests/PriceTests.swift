import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GeoSpendTestSupport
import Testing

/// `geospend prices import|history` and `products search` through the built binary (README
/// "Prices"). Fixtures are written here by hand; the Open Prices rows follow the export's
/// columns as data.gouv.fr's "Open Prices" dataset page lists them
/// (https://www.data.gouv.fr/fr/datasets/open-prices: product_code, product_name,
/// category_tag, price, price_per, currency, location_osm_id, location_osm_type, date, …)
/// with OpenStreetMap ids of real shops in Data/helsinki-places.geojson.
@Suite(.serialized) struct PriceTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-prices-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    func ok(_ args: [String], _ db: String) throws -> (out: String, err: String) {
        let r = try geospend(args + ["--db", db])
        #expect(r.status == 0, "\(args): \(r.err)")
        return (r.out, r.err)
    }

    func file(_ name: String, _ text: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A database with the Helsinki places (OSM node ids, source ids `osm:node/…`) and one CSV store `s1`.
    func database() throws -> String {
        let db = dir.appendingPathComponent("prices.sqlite").path
        _ = try ok(["import", "stores", "Data/helsinki-places.geojson"], db)
        _ = try ok(["import", "stores", try file("s1.csv", "id,name,lat,lon\ns1,Kiosk One,60.17,24.94\n")], db)
        return db
    }

    static let header = "product,brand,barcode,category,store_id,price,currency,recorded_at,quantity,unit\n"

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test func badRowsAreNamedByFileLineAndColumnAndNothingIsWritten() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        let csv = try file("bad.csv", Self.header + """
            Milk,,,,s1,1.29,EUR,2026-03-02T09:00:00+02:00,1,l
            Pen,,4006381333932,,s1,1.49,EUR,2026-03-02,1,pcs
            Flour,,,,s1,0.00,EUR,2026-03-02,1,kg
            Sugar,,,,s1,1.10,EUR,2026-03-02T09:00:00,1,kg
            Salt,,,,s1,0.59,EUR,2026-03-02,1,pound
            ,,,,s1,0.59,EUR,2026-03-02,1,
            Rice,,,,s1,2.10,EUR,2026-03-02,0,kg

            """)
        let r = try geospend(["prices", "import", csv, "--user", "ann", "--db", db])
        #expect(r.status == 2)
        let lines = r.err.split(separator: "\n").map(String.init)
        #expect(lines == [
            "bad.csv:3: barcode: \"4006381333932\" has check digit 2 but its other digits call for 1: a digit is mistyped",
            "bad.csv:4: price: \"0.00\" is zero; amounts are positive",
            "bad.csv:5: recorded_at: \"2026-03-02T09:00:00\" has no UTC offset; write Z or ±hh:mm (e.g. 2026-03-05T08:15:00+02:00), or give a bare date",
            "bad.csv:6: unit: \"pound\" is not a unit; write one of pcs, kg, g, l, ml",
            "bad.csv:7: product: is empty and so is barcode; name the product or give its barcode",
            "bad.csv:8: quantity: \"0\" is not above 0; a quantity is how much the price is for",
            "import rejected: 6 bad rows, nothing was written (use --skip-invalid to import the good rows)",
        ])
        // An unknown store is found after parsing, in the same all-or-nothing way.
        let unknown = try file("unknown.csv", Self.header + "Milk,,,,s1,1.29,EUR,2026-03-02,1,l\nMilk,,,,s9,1.29,EUR,2026-03-02,1,l\n")
        let u = try geospend(["prices", "import", unknown, "--user", "ann", "--db", db])
        #expect(u.status == 2)
        #expect(u.err.hasPrefix("unknown.csv:3: store_id: no store with id \"s9\"; import the store first"), "\(u.err)")
        #expect(try await SpatiaLiteStore(path: db).products().isEmpty)
        #expect(try await SpatiaLiteStore(path: db).users().isEmpty, "nothing written, not even the user")
        // A header without a required column is refused before any row.
        let noPrice = try file("noprice.csv", "product,store_id,currency,recorded_at\nMilk,s1,EUR,2026-03-02\n")
        let h = try geospend(["prices", "import", noPrice, "--user", "ann", "--db", db])
        #expect(h.status == 2 && h.err == "noprice.csv:1: price: required column is missing from the header\n", "\(h.err)")
        // With --skip-invalid the good rows go in and the bad are listed.
        let s = try geospend(["prices", "import", csv, "--user", "ann", "--skip-invalid", "--db", db])
        #expect(s.status == 0 && s.err.hasSuffix("imported 1 price records (1 new products), 0 already present, 6 bad rows skipped (\(db))\n"), "\(s.err)")
    }

    @Test func aSecondImportIsANoOpAndNamesMatchTheCatalogue() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        let csv = try file("p.csv", Self.header + """
            "Vollmilch 1,5%",Valio,,Dairy,s1,1.29,EUR,2026-03-02T09:00:00+02:00,1,l
            vollmilch 1.5 % 1 l,Valio,,,288130404,1.35,EUR,2026-03-09T09:00:00+02:00,1,l
            Vollmilk 1.5%,,,,4867546225,1.19,EUR,2026-03-04,1,l
            Milch,,,,s1,1.09,EUR,2026-03-05,1,l

            """)
        let first = try ok(["prices", "import", csv, "--user", "ann"], db)
        #expect(first.err == "imported 4 price records (2 new products), 0 already present (\(db))\n")
        let again = try ok(["prices", "import", csv, "--user", "ann"], db)
        #expect(again.err == "imported 0 price records (0 new products), 4 already present (\(db))\n")
        let products = try await SpatiaLiteStore(path: db).products().map { "\($0.id) \($0.name) \($0.category)" }
        // "vollmilk 1.5%" is 1 edit from "vollmilch 1.5%" (14 characters: 0.93 > 0.85); "milch" is not.
        #expect(products == ["1 Vollmilch 1,5% Dairy", "2 Milch Other"])
    }

    /// Open Prices rows at OpenStreetMap nodes of Helsinki shops become records at those
    /// stores; a way no store came from is an error naming it; JSON Lines with JSON numbers
    /// and columns GeoSpend does not use reads the same.
    @Test func openPricesRowsFindTheirStoresByOpenStreetMapID() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        let csv = try file("open-prices.csv", """
            id,type,product_code,product_name,category_tag,labels_tags,price,price_is_discounted,price_per,currency,location_osm_id,location_osm_type,location_id,date,proof_id,owner
            101,PRODUCT,4006381333931,Textmarker,,,1.55,False,,EUR,288130404,NODE,77,2026-02-20,5,h1
            102,CATEGORY,,,en:apples,['en:organic'],2.49,False,KILOGRAM,EUR,4867546225,NODE,78,2026-02-21,6,h2
            103,PRODUCT,5010017088439,,,,3.10,False,,EUR,123456,WAY,79,2026-02-22,7,h3

            """)
        let r = try geospend(["prices", "import", csv, "--user", "ann", "--db", db])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("open-prices.csv:4: location_osm_id: no store is OpenStreetMap way 123456 (source id osm:way/123456)"), "\(r.err)")
        let skipped = try ok(["prices", "import", csv, "--user", "ann", "--skip-invalid"], db)
        #expect(skipped.err.hasSuffix("imported 2 price records (2 new products), 0 already present, 1 bad rows skipped from Open Prices columns (\(db))\n"), "\(skipped.err)")
        let jsonl = try file("open-prices.jsonl", """
            {"id":104,"product_code":"4006381333931","product_name":null,"price":1.59,"currency":"EUR","location_osm_id":288130404,"location_osm_type":"NODE","date":"2026-03-01","owner":"h4"}

            """)
        let j = try ok(["prices", "import", jsonl, "--user", "ann"], db)
        #expect(j.err.hasSuffix("imported 1 price records (0 new products), 0 already present from Open Prices columns (\(db))\n"), "\(j.err)")
        let history = try Self.json(try ok(["prices", "history", "--product", "4006381333931", "--user", "ann", "--format", "json"], db).out) as? [String: Any]
        let records = try #require(history?["records"] as? [[String: Any]])
        #expect(records.map { "\($0["recorded_at"]!) \($0["store_id"]!) \($0["store"]!) \($0["price"]!)" } == [
            "2026-02-20 288130404 S-Market Sokos Helsinki 1.55", "2026-03-01 288130404 S-Market Sokos Helsinki 1.59",
        ])
        let apples = try Self.json(try ok(["prices", "history", "--product", "apples", "--user", "ann", "--format", "json"], db).out) as? [String: Any]
        let apple = try #require((apples?["records"] as? [[String: Any]])?.first)
        #expect(apple["store"] as? String == "Lidl" && apple["unit"] as? String == "kg" && apple["per"] as? String == "kg")
    }

    /// Oldest first whatever the file's order (instants, across offsets), and the outliers are
    /// the ones an independent computation (Python's `statistics`, in the test venv) flags by
    /// the modified z-score rule on the unit prices.
    @Test func historyIsInTimeOrderWithOutliersByTheModifiedZScore() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        // (price, quantity, unit, recorded_at): a 500 g pack is 2 × its price per kg.
        let rows: [(String, String, String, String)] = [
            ("2.58", "1", "kg", "2026-03-09T09:00:00+02:00"), ("1.29", "500", "g", "2026-03-02T09:00:00+02:00"),
            ("2.49", "1", "kg", "2026-03-03T23:30:00-05:00"), ("25.80", "1", "kg", "2026-03-05T12:00:00+02:00"),
            ("2.69", "1", "kg", "2026-03-04T06:00:00Z"), ("0.99", "1", "kg", "2026-03-07T09:00:00+02:00"),
            ("2.55", "1", "kg", "2026-03-08T09:00:00+02:00"),
            // 4.5 MADs out: a modified z-score of 3.04, not an outlier; without the 0.6745 it would be.
            ("3.03", "1", "kg", "2026-03-10T09:00:00+02:00"),
        ]
        let csv = try file("h.csv", Self.header + rows.map { "Apples,,,,s1,\($0.0),EUR,\($0.3),\($0.1),\($0.2)\n" }.joined())
        _ = try ok(["prices", "import", csv, "--user", "ann"], db)
        let out = try Self.json(try ok(["prices", "history", "--product", "apples", "--user", "ann", "--format", "json"], db).out) as? [String: Any]
        let records = try #require(out?["records"] as? [[String: Any]])
        let when = records.map { $0["recorded_at"] as! String }
        let instants = try when.map { try Timestamp(parsing: $0).epochMilliseconds }
        #expect(instants == instants.sorted() && when.count == rows.count)
        #expect(when.first == "2026-03-02T09:00:00+02:00")
        let unitPrices = records.map { ($0["unit_price"] as! NSNumber).doubleValue }
        let flags = records.map { $0["outlier"] as! Bool }
        let oracle = try runProgram(CLITests.repo.appendingPathComponent(".venv/bin/python").path, ["-c", """
            import statistics, sys
            x = [float(v) for v in sys.argv[1:]]
            m = statistics.median(x)
            mad = statistics.median([abs(v - m) for v in x])
            print(",".join("1" if abs(0.6745 * (v - m) / mad) > 3.5 else "0" for v in x))
            """] + unitPrices.map { String($0) })
        #expect(oracle.status == 0, "\(oracle.err)")
        #expect(flags.map { $0 ? "1" : "0" }.joined(separator: ",") + "\n" == oracle.out)
        #expect(flags.filter { $0 }.count == 2, "25.80 (a slipped decimal point) and 0.99")
        let table = try ok(["prices", "history", "--product", "Apples", "--user", "ann"], db).out
        #expect(table.hasPrefix("Apples — 8 prices, 2 outliers\n"), "\(table)")
    }

    /// Phase 3's scoring, each part seen alone: exact +100, prefix +50, contains +25 (added up),
    /// brand +10, a typo within the 0.85 rule +20; empty text lists all by name.
    @Test func searchScoresAndOrders() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        let csv = try file("s.csv", Self.header + """
            Milk,Valio,,,s1,1.00,EUR,2026-03-01,1,pcs
            Milk chocolate,,,,s1,1.00,EUR,2026-03-01,1,pcs
            Oat milk,,,,s1,1.00,EUR,2026-03-01,1,pcs
            Chocolate bar,Milka,,,s1,1.00,EUR,2026-03-01,1,pcs
            Jogurt natur,,,,s1,1.00,EUR,2026-03-01,1,pcs
            Bread,,,,s1,1.00,EUR,2026-03-01,1,pcs

            """)
        _ = try ok(["prices", "import", csv, "--user", "ann"], db)
        func search(_ text: String) throws -> [String] {
            let hits = try Self.json(try ok(["products", "search", text, "--format", "json"], db).out) as? [[String: Any]]
            return (hits ?? []).map { "\($0["name"]!) \($0["score"]!)" }
        }
        #expect(try search("MILK") == ["Milk 175", "Milk chocolate 75", "Oat milk 25", "Chocolate bar 10"])
        #expect(try search("joghurt") == ["Jogurt natur 20"])  // 1 edit in 7: 0.857
        #expect(try search("bred") == [])  // 1 edit in 5: 0.8, not a match
        #expect(try search("") == ["Bread 0", "Chocolate bar 0", "Jogurt natur 0", "Milk 0", "Milk chocolate 0", "Oat milk 0"])
    }

    @Test(arguments: [["prices"], ["prices", "import"], ["prices", "history"], ["products"], ["products", "search"]])
    func helpHasExamples(_ command: [String]) throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try geospend(command + ["--help"])
        #expect(r.status == 0 && r.out.contains("Example"), "\(r.out)")
    }

    /// `users export` holds the user's price records with the import's keys: deleted and
    /// imported back, the history's records are the same (the product's catalogue id may not
    /// be: ids are the shared catalogue's, given in import order).
    @Test func exportedPriceRecordsImportBack() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try database()
        _ = try ok(["prices", "import", "Data/examples/prices.csv", "--user", "ann"], db)
        func history() throws -> String {
            let out = try Self.json(try ok(["prices", "history", "--product", "Vollmilch 1,5%", "--user", "ann", "--format", "json"], db).out)
            let records = try #require((out as? [String: Any])?["records"])
            return String(decoding: try JSONSerialization.data(withJSONObject: records, options: .sortedKeys), as: UTF8.self)
        }
        let before = try history()
        #expect(before.contains("\"price\":\"1.19\""))
        let export = try #require(try Self.json(try ok(["users", "export", "ann"], db).out) as? [String: Any])
        let records = try #require(export["price_records"] as? [[String: Any]])
        #expect(records.count == 6 && (export["counts"] as? [String: Any])?["price_records"] as? Int == 6)
        let keys: Set<String> = Set(records.flatMap { Array($0.keys) })
        #expect(keys == Set(PriceImport.columns))
        let lines = try records.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let jsonl = try file("ann.jsonl", lines.joined(separator: "\n") + "\n")
        _ = try ok(["users", "delete", "ann", "--yes"], db)
        #expect(try await SpatiaLiteStore(path: db).products().isEmpty)
        _ = try ok(["prices", "import", jsonl, "--user", "ann"], db)
        #expect(try history() == before)
    }
}
