import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 38's "products, stores and corrections" over HTTP against the CLI on a copy of the
/// same database: `/api/v1/prices` (GET, PATCH and DELETE `/{id}`) answers as `prices
/// list|edit|delete --format json` does (times aside); another user's id is a 404.
@Suite(.serialized) struct ProductsStoresRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice

    init() throws { f = try ServiceFixture() }

    static func masked(_ text: String) -> String {
        text.replacingOccurrences(of: #""(created|updated)_at": ?"[^"]*""#, with: "\"time\"", options: .regularExpression)
    }

    @Test func priceRecordsAreCorrectedAsWithTheCLI() async throws {
        let write = try #require(f.tokens["aliceWrite"])
        let csv = try String(contentsOf: PriceRouteTests.pricesCSV, encoding: .utf8)
        let imported = try await f.withClient { try await $0.call("/api/v1/prices/import?format=csv", token: write, method: .post, body: csv) }
        try #require(imported.status == .ok, "\(imported.body)")
        let copy = try f.copy()
        let u = ["--user", alice]
        let steps: [(HTTPRequest.Method, String, String?, [String])] = [
            (.get, "/api/v1/prices", nil, ["prices", "list"] + u),
            (.get, "/api/v1/prices?product=Vollmilch%201%2C5%25", nil, ["prices", "list", "--product", "Vollmilch 1,5%"] + u),
            (.patch, "/api/v1/prices/3", #"{"price": 1.25, "quantity": "500", "unit": "ml"}"#,
             ["prices", "edit", "3", "--price", "1.25", "--quantity", "500", "--unit", "ml"] + u),
            (.delete, "/api/v1/prices/5", nil, ["prices", "delete", "5"] + u),
            (.get, "/api/v1/prices", nil, ["prices", "list"] + u),
        ]
        for (method, uri, body, args) in steps {
            let a = try await f.withClient { try await $0.call(uri, token: write, method: method, body: body) }
            #expect(a.status == .ok, "\(uri): \(a.body)")
            if method == .delete {
                _ = try f.cli(args, db: copy)
                #expect(a.body == "{\n  \"deleted\": 5\n}\n")
                continue
            }
            var expected = Self.masked(try f.cli(args + ["--format", "json"], db: copy))
            // PATCH answers with the record; the CLI writes a list of one.
            if method == .patch { expected = String(expected.dropFirst(4).dropLast(3)).replacingOccurrences(of: "\n  ", with: "\n") + "\n" }
            #expect(Self.masked(a.body) == expected, "\(uri)")
        }
        let listed = try await f.withClient { try await $0.call("/api/v1/prices", token: f.tokens["alice"]) }
        #expect(listed.body.contains("\"price\": \"1.25\"") && !listed.body.contains("\"id\": 5,"), "\(listed.body)")
    }

    @Test func anotherUsersRecordIsNotFound() async throws {
        let write = try #require(f.tokens["aliceWrite"])
        let csv = try String(contentsOf: PriceRouteTests.pricesCSV, encoding: .utf8)
        _ = try await f.withClient { try await $0.call("/api/v1/prices/import?format=csv", token: write, method: .post, body: csv) }
        let bobWrite = try f.token(user: ServiceFixture.bob, scope: "write")
        let answers = try await f.withClient { client in
            [try await client.call("/api/v1/prices/1", token: bobWrite, method: .patch, body: #"{"price": "0.01"}"#),
             try await client.call("/api/v1/prices/1", token: bobWrite, method: .delete),
             try await client.call("/api/v1/prices/x", token: write, method: .delete),
             try await client.call("/api/v1/prices/1", token: write, method: .patch, body: #"{"price": "-1"}"#),
             try await client.call("/api/v1/prices/1", token: write, method: .patch, body: #"{"colour": "red"}"#),
             try await client.call("/api/v1/prices/1", token: f.tokens["alice"], method: .delete),
             try await client.call("/api/v1/prices", token: bobWrite)]
        }
        #expect(answers.map { Int($0.status.code) } == [404, 404, 404, 400, 400, 403, 200], "\(answers.map(\.body))")
        #expect(answers[0].body.contains("no price record 1 of user"), "\(answers[0].body)")
        #expect(answers[3].body.contains("--price"), "\(answers[3].body)")
        #expect(answers[6].body == "[]\n")
        let mine = try await f.withClient { try await $0.call("/api/v1/prices", token: f.tokens["alice"]) }
        #expect(mine.body.components(separatedBy: "\"id\":").count - 1 == 6, "alice's six records are all there")
    }

    /// `/api/v1/products…` against `products list|tags|tag|edit|merge|delete --format json` on a
    /// copy: the same answers (times aside), and bob's token finds none of alice's products.
    @Test func productsAreMarkedAsWithTheCLI() async throws {
        let write = try #require(f.tokens["aliceWrite"])
        let csv = try String(contentsOf: PriceRouteTests.pricesCSV, encoding: .utf8)
        _ = try await f.withClient { try await $0.call("/api/v1/prices/import?format=csv", token: write, method: .post, body: csv) }
        let copy = try f.copy()
        let u = ["--user", alice]
        let calls: [(HTTPRequest.Method, String, String?, Int)] = [
            (.post, "/api/v1/products/1/tags", #"{"tag": "breakfast", "color": "orange"}"#, 200),
            (.patch, "/api/v1/products/2", #"{"favourite": true, "on_sale": true, "category": "Obst"}"#, 200),
            (.post, "/api/v1/products/2/tags", #"{"tag": "Breakfast"}"#, 200),
            (.delete, "/api/v1/products/2/tags/breakfast", nil, 200),
            (.post, "/api/v1/products/2/merge", #"{"into": "1"}"#, 200),
        ]
        for (method, uri, body, status) in calls {
            let a = try await f.withClient { try await $0.call(uri, token: write, method: method, body: body) }
            #expect(Int(a.status.code) == status, "\(uri): \(a.body)")
        }
        for args in [
            ["products", "tag", "1", "--tag", "breakfast", "--color", "orange"], ["products", "favourite", "2"], ["products", "sale", "2"],
            ["products", "edit", "2", "--category", "Obst"], ["products", "tag", "2", "--tag", "Breakfast"],
            ["products", "untag", "2", "--tag", "breakfast"], ["products", "merge", "2", "--into", "1"],
        ] { _ = try f.cli(args + u, db: copy) }
        for (uri, args) in [
            ("/api/v1/products", ["products", "list"] + u), ("/api/v1/products?tag=BREAKFAST", ["products", "list", "--tag", "BREAKFAST"] + u),
            ("/api/v1/products?favourites=true", ["products", "list", "--favourites"] + u), ("/api/v1/products/tags", ["products", "tags"] + u),
        ] {
            let a = try await f.withClient { try await $0.call(uri, token: f.tokens["alice"]) }
            #expect(a.status == .ok, "\(uri): \(a.body)")
            #expect(Self.masked(a.body) == Self.masked(try f.cli(args + ["--format", "json"], db: copy)), "\(uri)")
        }
        let listed = try await f.withClient { try await $0.call("/api/v1/products?favourites=true", token: f.tokens["alice"]) }
        #expect(listed.body.contains("\"name\": \"Vollmilch 1,5%\"") && listed.body.contains("\"on_sale\": true"), "merged: \(listed.body)")

        let bobWrite = try f.token(user: ServiceFixture.bob, scope: "write")
        let bobs = try await f.withClient { client in
            [try await client.call("/api/v1/products/1/tags", token: bobWrite, method: .post, body: #"{"tag": "mine"}"#),
             try await client.call("/api/v1/products/1", token: bobWrite, method: .patch, body: #"{"favourite": true}"#),
             try await client.call("/api/v1/products/1", token: bobWrite, method: .delete),
             try await client.call("/api/v1/products/1/merge", token: bobWrite, method: .post, body: #"{"into": "3"}"#),
             try await client.call("/api/v1/products", token: bobWrite),
             try await client.call("/api/v1/products/1", token: write, method: .patch, body: #"{"favourite": "yes"}"#)]
        }
        #expect(bobs.map { Int($0.status.code) } == [404, 404, 404, 404, 200, 400], "\(bobs.map(\.body))")
        #expect(bobs[4].body == "[]\n")
    }
}
