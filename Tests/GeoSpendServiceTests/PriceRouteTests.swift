import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/prices`, `/products`, `/basket` and `/trends` against `geospend prices import|
/// history|inflation`, `products search`, `basket` and `trends`: the service imports
/// Data/examples/prices.csv (hand-written, Data/README.md) for alice into the fixture, the CLI
/// imports the same file into a copy, and every answer is the CLI's `--format json` on the copy,
/// byte for byte: the import stored the same, and the queries read it alike.
@Suite(.serialized) struct PriceRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice

    init() throws { f = try ServiceFixture() }

    func cli(_ args: [String], db: String) throws -> String { try f.cli(args + ["--format", "json"], db: db) }

    static let pricesCSV = ServiceFixture.repo.appendingPathComponent("Data/examples/prices.csv")

    @Test func pricesAreTheCLIs() async throws {
        let copy = try f.copy()
        let csv = try String(contentsOf: Self.pricesCSV, encoding: .utf8)
        let imported = try await f.withClient { try await $0.call("/api/v1/prices/import?format=csv", token: f.tokens["aliceWrite"], method: .post, body: csv) }
        #expect(imported.status == .ok, "\(imported.body)")
        #expect(imported.body.contains("\"inserted\": 6"), "\(imported.body)")
        let r = try f.geospend(["prices", "import", Self.pricesCSV.path, "--user", alice, "--db", copy])
        try #require(r.status == 0, "\(r.err)")
        let asOf = "2026-03-31"
        for (uri, args, token) in [
            ("/api/v1/prices/history?product=Vollmilch%201%2C5%25", ["prices", "history", "--product", "Vollmilch 1,5%", "--user", alice], "alice"),
            ("/api/v1/prices/history?product=4006381333931&store=288130404", ["prices", "history", "--product", "4006381333931", "--store", "288130404", "--user", alice], "alice"),
            ("/api/v1/prices/history?product=Vollmilch%201%2C5%25&all-users=true", ["prices", "history", "--product", "Vollmilch 1,5%", "--all-users"], "admin"),
            ("/api/v1/products/search?text=milch", ["products", "search", "milch", "--user", alice], "alice"),
            ("/api/v1/products/search?text=&all-users=true", ["products", "search", ""], "admin"),
            ("/api/v1/prices/inflation?product=Vollmilch%201%2C5%25&as-of=\(asOf)", ["prices", "inflation", "--product", "Vollmilch 1,5%", "--as-of", asOf, "--user", alice], "alice"),
            ("/api/v1/prices/inflation?category=Dairy&as-of=\(asOf)&all-users=true", ["prices", "inflation", "--category", "Dairy", "--as-of", asOf], "admin"),
            // Issue 38: the overall rate (neither product nor category) and top products by spending.
            ("/api/v1/prices/inflation?as-of=\(asOf)", ["prices", "inflation", "--as-of", asOf, "--user", alice], "alice"),
            ("/api/v1/prices/top", ["prices", "top", "--user", alice], "alice"),
            ("/api/v1/prices/top?from=2026-03-01&to=2026-03-31&limit=2", ["prices", "top", "--user", alice, "--from", "2026-03-01", "--to", "2026-03-31", "--limit", "2"], "alice"),
            ("/api/v1/basket?item=Vollmilch%201%2C5%25=2&item=%C3%84pfel=1kg&as-of=\(asOf)&min-availability=0.5",
             ["basket", "--item", "Vollmilch 1,5%=2", "--item", "Äpfel=1kg", "--as-of", asOf, "--min-availability", "0.5", "--user", alice], "alice"),
            ("/api/v1/basket?item=Vollmilch%201%2C5%25=2&item=%C3%84pfel=1kg&as-of=\(asOf)&near=60.1699,24.9384&radius=5km&cost-per-km=0.30&all-users=true",
             ["basket", "--item", "Vollmilch 1,5%=2", "--item", "Äpfel=1kg", "--as-of", asOf, "--near", "60.1699,24.9384", "--radius", "5km", "--cost-per-km", "0.30", "--min-users", "3"], "admin"),
            ("/api/v1/trends", ["trends", "--user", alice], "alice"),
            ("/api/v1/trends?from=2025-01-01&to=2025-06-30&by=category", ["trends", "--user", alice, "--from", "2025-01-01", "--to", "2025-06-30", "--by", "category"], "alice"),
            ("/api/v1/trends?by=store", ["trends", "--user", alice, "--by", "store"], "alice"),
        ] {
            let a = try await f.withClient { try await $0.call(uri, token: f.tokens[token]) }
            #expect(a.status == .ok, "\(uri): \(a.body)")
            #expect(a.body == (try cli(args, db: copy)), "\(uri)")
        }
        // The comparisons compared figures: alice's basket prices something, her history has records.
        let basket = try await f.withClient { try await $0.call("/api/v1/basket?item=Vollmilch%201%2C5%25=2&as-of=\(asOf)", token: f.tokens["alice"]) }
        #expect(basket.body.contains("\"best_store\": \"4867546225\""), "\(basket.body)")
        let top = try await f.withClient { try await $0.call("/api/v1/prices/top", token: f.tokens["alice"]) }
        #expect(top.body.contains("\"currency\": \"EUR\"") && top.body.contains("\"records\": "), "\(top.body)")
        // bob recorded no prices: his basket is empty, and alice's products (what she bought) are
        // not his to find, not even as "did you mean".
        let bobs = try await f.withClient { client in
            [try await client.call("/api/v1/basket?item=Vollmilch%201%2C5%25=2&as-of=\(asOf)", token: f.tokens["bob"]),
             try await client.call("/api/v1/prices/history?product=Vollmilch", token: f.tokens["bob"]),
             try await client.call("/api/v1/products/search?text=milch", token: f.tokens["bob"])]
        }
        #expect(bobs[0].body.contains("\"best_store\": null"), "\(bobs[0].body)")
        #expect(bobs[1].status == .badRequest && !bobs[1].body.contains("did you mean"), "\(bobs[1].body)")
        #expect(bobs[2].body == "[]\n", "\(bobs[2].body)")
    }

    @Test func aBadRowImportsNothing() async throws {
        let csv = """
            product,store_id,price,currency,recorded_at,quantity,unit
            Milch,288130404,1.29,EUR,2026-03-02,1,l
            Butter,288130404,2.49,EUR,2026-03-02,1,pound

            """
        let a = try await f.withClient { try await $0.call("/api/v1/prices/import?format=csv", token: f.tokens["aliceWrite"], method: .post, body: csv) }
        expectProblem(a, status: 400, says: "is not a unit; write one of pcs, kg, g, l, ml")
        #expect(a.body.contains("\"line\": \"3\"") && a.body.contains("\"column\": \"unit\""), "\(a.body)")
        #expect(a.body.contains("nothing was imported (add skip-invalid=true") && !a.body.contains("; nothing was imported"), "\(a.body)")
        let products = try await f.withClient { try await $0.call("/api/v1/products/search?text=", token: f.tokens["alice"]) }
        #expect(products.body == "[]\n")
        // with skip-invalid the good row goes in and the bad one is listed
        let skipped = try await f.withClient {
            try await $0.call("/api/v1/prices/import?format=csv&skip-invalid=true", token: f.tokens["aliceWrite"], method: .post, body: csv)
        }
        #expect(skipped.status == .ok && skipped.body.contains("\"inserted\": 1") && skipped.body.contains("\"rejected\": 1"), "\(skipped.body)")
    }

    @Test(arguments: [
        ("alice", HTTPRequest.Method.post, "/api/v1/prices/import?format=csv", "product\n", 403, "needs a write token"),
        ("aliceWrite", .post, "/api/v1/prices/import?format=xls", "", 400, "is not csv or jsonl"),
        ("aliceWrite", .post, "/api/v1/prices/import?format=jsonl", "{\"product\": \"Milch\"\n", 400, "line"),
        ("alice", .get, "/api/v1/prices/history", nil, 400, "product is required"),
        ("alice", .get, "/api/v1/prices/history?product=Zzzz", nil, 400, "no product"),
        ("alice", .get, "/api/v1/prices/history?product=Milch&all-users=true", nil, 403, "needs an admin token"),
        ("alice", .get, "/api/v1/prices/inflation?as-of=2026-03-31&product=Milch&category=Dairy", nil, 400, "give --product NAME or --category NAME, not both"),
        ("alice", .get, "/api/v1/prices/inflation?category=Dairy&days=0", nil, 400, "days must be a whole number"),
        ("alice", .get, "/api/v1/basket", nil, 400, "give the list as item"),
        ("alice", .get, "/api/v1/basket?item=Milch&radius=2km", nil, 400, "--radius needs --near"),
        ("alice", .get, "/api/v1/basket?item=Milch&min-availability=2", nil, 400, "give a share from 0 to 1"),
        ("alice", .get, "/api/v1/basket?item=Milch&all-users=true", nil, 403, "needs an admin token"),
        ("alice", .get, "/api/v1/basket?item=Milch&as-of=2026-02-30", nil, 400, "--as-of"),
        ("alice", .get, "/api/v1/trends?by=week", nil, 400, "is not category or store"),
        ("alice", .get, "/api/v1/products/search", nil, 400, "text is required"),
    ] as [(String, HTTPRequest.Method, String, String?, Int, String)])
    func refusals(token: String, method: HTTPRequest.Method, uri: String, body: String?, status: Int, says: String) async throws {
        let a = try await f.withClient { try await $0.call(uri, token: f.tokens[token], method: method, body: body) }
        expectProblem(a, status: status, says: says)
    }
}
