import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// `/api/v1/lists` and `/api/v1/receipts` against `geospend lists add|show|complete` and
/// `receipts parse|import`: the service changes the fixture, the CLI a copy the same way, and
/// the answers are the CLI's `--format json` on the copy. Both hold alice's prices of
/// Data/examples/prices.csv (hand-written, Data/README.md). bob's token finds none of her lists.
@Suite(.serialized) struct ListRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice
    let copy: String

    init() throws {
        f = try ServiceFixture()
        let r = try f.geospend(["prices", "import", PriceRouteTests.pricesCSV.path, "--user", ServiceFixture.alice, "--db", f.db])
        try #require(r.status == 0, "\(r.err)")
        copy = try f.copy()
    }

    func cli(_ args: [String], json: Bool = true) throws -> String { try f.cli(args + (json ? ["--format", "json"] : []), db: copy) }

    @Test func listsAreTheCLIs() async throws {
        let created = try await f.call(
            "/api/v1/lists", "aliceWrite", method: .post, body: #"{"name": "Weekend", "budget": "5", "currency": "EUR", "items": ["Vollmilch 1,5%=2", "Äpfel=1kg"], "over_budget": true}"#)
        #expect(created.status == .created, "\(created.body)")
        _ = try cli(["lists", "add", "--user", alice, "--name", "Weekend", "--budget", "5", "--currency", "EUR", "--item", "Vollmilch 1,5%=2", "--item", "Äpfel=1kg", "--over-budget"], json: false)
        let added = try await f.call("/api/v1/lists/1/items", "aliceWrite", method: .post, body: #"{"items": ["vollmilch 1,5%=1"], "over_budget": true}"#)
        #expect(added.status == .ok, "\(added.body)")
        #expect(added.body.contains("\"quantity\": \"3\""), "\(added.body)")
        _ = try cli(["lists", "add", "--user", alice, "--id", "1", "--item", "vollmilch 1,5%=1", "--over-budget"], json: false)
        let show = ["lists", "show", "--user", alice, "--id", "1", "--as-of", "2026-03-31", "--own-prices"]
        for (uri, args) in [
            ("/api/v1/lists", ["lists", "show", "--user", alice]),
            ("/api/v1/lists/1?as-of=2026-03-31", show),
            ("/api/v1/lists/1?as-of=2026-03-31&near=60.1699,24.9384&radius=5km&cost-per-km=0.30", show + ["--near", "60.1699,24.9384", "--radius", "5km", "--cost-per-km", "0.30"]),
        ] {
            let a = try await f.call(uri)
            #expect(a.status == .ok, "\(uri): \(a.body)")
            #expect(a.body == (try cli(args)), "\(uri)")
        }
        // the estimate was compared, not two nulls: 3 l of milk and 1 kg of apples exceed 5 EUR
        #expect((try await f.call("/api/v1/lists/1?as-of=2026-03-31")).body.contains("\"budget_exceeded\": true"))
        // bob: no list 1, whatever he tries
        let bob = try f.token(user: ServiceFixture.bob, scope: "write")
        let bobs = try await f.withClient { client in
            [try await client.call("/api/v1/lists", token: bob),
             try await client.call("/api/v1/lists/1", token: bob),
             try await client.call("/api/v1/lists/1/items", token: bob, method: .post, body: #"{"items": ["Brot"]}"#),
             try await client.call("/api/v1/lists/1/complete", token: bob, method: .post, body: #"{"store": "288130404", "at": "2026-03-20", "prices": ["Vollmilch=1"]}"#)]
        }
        #expect(bobs[0].body == "[]\n")
        for a in bobs.dropFirst() { expectProblem(a, status: 404, says: "has no such list") }
        // complete: the expense and the price records, as the CLI stores them
        let at = "2026-03-20T10:00:00+02:00"
        let done = try await f.call(
            "/api/v1/lists/1/complete", "aliceWrite", method: .post, body: #"{"store": "288130404", "at": "\#(at)", "prices": ["Vollmilch 1,5%=3.87", "Äpfel=3.99"]}"#)
        #expect(done.status == .ok, "\(done.body)")
        #expect(done.body.contains("\"completed_expense_id\": \"list-\(alice)-1\"") && done.body.contains("\"total\": \"7.86\""), "\(done.body)")
        _ = try cli(["lists", "complete", "--user", alice, "--id", "1", "--store", "288130404", "--at", at, "--price", "Vollmilch 1,5%=3.87", "--price", "Äpfel=3.99"], json: false)
        for (uri, args) in [
            ("/api/v1/lists", ["lists", "show", "--user", alice]),
            ("/api/v1/prices/history?product=Vollmilch%201%2C5%25", ["prices", "history", "--product", "Vollmilch 1,5%", "--user", alice]),
            ("/api/v1/expenses/list-\(alice)-1", ["expenses", "show", "list-\(alice)-1", "--user", alice]),
        ] {
            let a = try await f.call(uri)
            #expect(a.status == .ok, "\(uri): \(a.body)")
            #expect(a.body == (try cli(args)), "\(uri)")
        }
        let again = try await f.call("/api/v1/lists/1/complete", "aliceWrite", method: .post, body: #"{"store": "288130404", "at": "\#(at)", "prices": ["Vollmilch=1"]}"#)
        expectProblem(again, status: 400, says: "already completed")
    }

    /// Issue 38: the budget rule, items checked one at a time, uncheck, remove, edit, delete and
    /// `lists list`, over HTTP as on the copy by the CLI.
    @Test func aListsWholeLifeIsTheCLIs() async throws {
        let body = #"{"name": "Weekend", "budget": "5", "currency": "EUR", "items": ["Vollmilch 1,5%=2", "Äpfel=1kg"]}"#
        expectProblem(try await f.call("/api/v1/lists", "aliceWrite", method: .post, body: body), status: 400, says: "budget exceeded")
        let refused = try f.geospend(["lists", "add", "--user", alice, "--name", "Weekend", "--budget", "5", "--currency", "EUR", "--item", "Vollmilch 1,5%=2", "--item", "Äpfel=1kg", "--db", copy])
        #expect(refused.status == 2 && refused.err.contains("budget exceeded") && refused.err.contains("--over-budget"), "\(refused.err)")
        #expect(try cli(["lists", "list", "--user", alice, "--all"]) == "[]\n", "nothing stored when refused")
        // Within the budget; then two lists, the newest first.
        for (name, items) in [("Week", #"["Vollmilch 1,5%=2", "Äpfel=0.5kg"]"#), ("Later", #"["Brot"]"#)] {
            let made = try await f.call("/api/v1/lists", "aliceWrite", method: .post, body: #"{"name": "\#(name)", "budget": "40", "currency": "EUR", "items": \#(items)}"#)
            #expect(made.status == .created, "\(made.body)")
        }
        _ = try cli(["lists", "add", "--user", alice, "--name", "Week", "--budget", "40", "--currency", "EUR", "--item", "Vollmilch 1,5%=2", "--item", "Äpfel=0.5kg"], json: false)
        _ = try cli(["lists", "add", "--user", alice, "--name", "Later", "--budget", "40", "--currency", "EUR", "--item", "Brot"], json: false)
        let at = "2026-03-20T10:00:00+02:00"
        // 0.5 kg at 2.99 per kg: 1.495 → 1.50 (half to even); 2 × 1.29 = 2.58.
        let apples = try await f.call("/api/v1/lists/1/check", "aliceWrite", method: .post, body: #"{"item": "äpfel", "price": "2.99", "store": "288130404", "at": "\#(at)"}"#)
        #expect(apples.status == .ok && apples.body.contains("\"total\": \"1.50\""), "\(apples.body)")
        let milk = try await f.call("/api/v1/lists/1/check", "aliceWrite", method: .post, body: #"{"item": "Vollmilch 1,5%", "price": "1.29", "at": "\#(at)"}"#)
        #expect(milk.status == .ok && milk.body.contains("\"total\": \"2.58\"") && milk.body.contains("\"completed\": true"), "\(milk.body)")
        _ = try cli(["lists", "check", "1", "äpfel", "--user", alice, "--price", "2.99", "--store", "288130404", "--at", at], json: false)
        _ = try cli(["lists", "check", "1", "Vollmilch 1,5%", "--user", alice, "--price", "1.29", "--at", at], json: false)
        for (uri, args) in [
            ("/api/v1/lists?status=open", ["lists", "list", "--user", alice]),
            ("/api/v1/lists?status=all", ["lists", "list", "--user", alice, "--all"]),
            ("/api/v1/expenses/list-\(alice)-1-check-1", ["expenses", "show", "list-\(alice)-1-check-1", "--user", alice]),
            ("/api/v1/prices/history?product=%C3%84pfel", ["prices", "history", "--product", "Äpfel", "--user", alice]),
        ] {
            let a = try await f.call(uri)
            #expect(a.status == .ok, "\(uri): \(a.body)")
            #expect(a.body == (try cli(args)), "\(uri)")
        }
        #expect(try cli(["lists", "list", "--user", alice]).contains("\"name\": \"Later\"") && !(try cli(["lists", "list", "--user", alice])).contains("\"Week\""))
        let twice = try await f.call("/api/v1/lists/1/check", "aliceWrite", method: .post, body: #"{"item": "Äpfel", "price": "1"}"#)
        expectProblem(twice, status: 400, says: "checked off already")
        expectProblem(try await f.call("/api/v1/lists/1/remove", "aliceWrite", method: .post, body: #"{"item": "Äpfel"}"#), status: 400, says: "uncheck")
        // Uncheck: the purchase and its price record go.
        let before = try cli(["prices", "history", "--product", "Äpfel", "--user", alice])
        let undone = try await f.call("/api/v1/lists/1/uncheck", "aliceWrite", method: .post, body: #"{"item": "Äpfel"}"#)
        #expect(undone.status == .ok && undone.body.contains("\"completed\": false"), "\(undone.body)")
        _ = try cli(["lists", "uncheck", "1", "Äpfel", "--user", alice], json: false)
        #expect((try await f.call("/api/v1/expenses/list-\(alice)-1-check-1")).status == .notFound)
        #expect(try cli(["prices", "history", "--product", "Äpfel", "--user", alice]) != before)
        // Remove, edit, delete.
        for (method, uri, body, args) in [
            (HTTPRequest.Method.post, "/api/v1/lists/1/remove", #"{"item": "Äpfel"}"#, ["lists", "remove", "1", "Äpfel"]),
            (.patch, "/api/v1/lists/1", #"{"name": "Big shop", "budget": "60"}"#, ["lists", "edit", "1", "--name", "Big shop", "--budget", "60"]),
            (.delete, "/api/v1/lists/2", nil, ["lists", "delete", "2"]),
        ] {
            let a = try await f.call(uri, "aliceWrite", method: method, body: body)
            #expect(a.status == (method == .delete ? .noContent : .ok), "\(uri): \(a.body)")
            _ = try cli(args + ["--user", alice], json: false)
        }
        let all = try await f.call("/api/v1/lists?status=all")
        #expect(all.body == (try cli(["lists", "list", "--user", alice, "--all"])))
        #expect(all.body.contains("\"name\": \"Big shop\"") && all.body.contains("\"budget\": \"60.00\"") && !all.body.contains("Later"), "\(all.body)")
    }

    /// `/api/v1/pantry` against `geospend pantry`.
    @Test func pantryIsTheCLIs() async throws {
        for (name, expires) in [("Joghurt", "2026-03-25"), ("Reis", nil), ("Milch", "2026-03-22")] {
            let body = expires.map { #"{"name": "\#(name)", "quantity": "2", "expires": "\#($0)"}"# } ?? #"{"name": "\#(name)"}"#
            let a = try await f.call("/api/v1/pantry", "aliceWrite", method: .post, body: body)
            #expect(a.status == .created, "\(a.body)")
            _ = try cli(["pantry", "add", "--user", alice, "--name", name] + (expires.map { ["--quantity", "2", "--expires", $0] } ?? []), json: false)
        }
        #expect((try await f.call("/api/v1/pantry/1/use", "aliceWrite", method: .post)).status == .ok)
        _ = try cli(["pantry", "use", "1", "--user", alice], json: false)
        expectProblem(try await f.call("/api/v1/pantry/1/discard", "aliceWrite", method: .post), status: 400, says: "already used")
        expectProblem(try await f.call("/api/v1/pantry/9/use", "aliceWrite", method: .post), status: 404, says: "no such pantry item")
        expectProblem(try await f.call("/api/v1/pantry", "aliceWrite", method: .post, body: #"{"name": "X", "expires": "soon"}"#), status: 400, says: "--expires")
        let times = try Regex(#""(created_at|closed_at)": "[^"]*""#)
        for (uri, args) in [
            ("/api/v1/pantry", ["pantry", "list", "--user", alice]),
            ("/api/v1/pantry?all=true", ["pantry", "list", "--user", alice, "--all"]),
            ("/api/v1/pantry/predictions?as-of=2026-04-30", ["pantry", "predict", "--user", alice, "--as-of", "2026-04-30"]),
        ] {
            let a = try await f.call(uri)
            #expect(a.status == .ok, "\(uri): \(a.body)")
            #expect(a.body.replacing(times, with: "T") == (try cli(args)).replacing(times, with: "T"), "\(uri)")
        }
        #expect((try await f.call("/api/v1/pantry")).body.firstMatch(of: /"name": "(\w+)"/).map { String($0.1) } == "Milch", "soonest expiry first")
    }

    static let receipt = "REWE Markt\nMilch 1,5% 1,29\nBrot Vollkorn 2,49\nÄpfel 1kg 3,99\nSUMME 7,77\n"

    @Test func receiptsAreTheCLIs() async throws {
        let file = f.dir.appendingPathComponent("r.txt")
        try Self.receipt.write(to: file, atomically: true, encoding: .utf8)
        let parsed = try await f.call("/api/v1/receipts/parse", "aliceWrite", method: .post, body: Self.receipt)
        #expect(parsed.status == .ok)
        #expect(parsed.body == (try f.geospend(["receipts", "parse", file.path, "--format", "json"])).out)
        let at = "2026-03-21T10:15:00+02:00"
        let stored = try await f.call("/api/v1/receipts/import?store=288130404&at=\(at.replacingOccurrences(of: "+", with: "%2B"))&name=r.txt", "aliceWrite", method: .post, body: Self.receipt)
        #expect(stored.status == .created, "\(stored.body)")
        #expect(stored.body == (try cli(["receipts", "import", file.path, "--user", alice, "--store", "288130404", "--at", at])))
        #expect(stored.body.contains("\"matched\": [\n    {"), "\(stored.body)")  // Milch 1,5% matched alice's Vollmilch
        let id = try #require(stored.body.firstMatch(of: /"expense_id": "([^"]+)"/).map { String($0.1) })
        let expense = try await f.call("/api/v1/expenses/\(id)")
        #expect(expense.body == (try cli(["expenses", "show", id, "--user", alice])))
        let again = try await f.call("/api/v1/receipts/import?store=288130404&at=\(at.replacingOccurrences(of: "+", with: "%2B"))&name=r.txt", "aliceWrite", method: .post, body: Self.receipt)
        expectProblem(again, status: 400, says: "was stored before")
    }

    @Test(arguments: [
        ("alice", HTTPRequest.Method.post, "/api/v1/lists", #"{"name": "X", "budget": "5", "currency": "EUR"}"#, 403, "needs a write token"),
        ("aliceWrite", .post, "/api/v1/lists", #"{"name": "X"}"#, 400, "name, budget and currency are required"),
        ("aliceWrite", .post, "/api/v1/lists", #"{"name": "X", "budget": "-5", "currency": "EUR"}"#, 400, "--budget"),
        ("aliceWrite", .post, "/api/v1/lists", #"{"name": "X", "budget": "5", "currency": "EUR", "items": ["=2"]}"#, 400, "--item"),
        ("aliceWrite", .post, "/api/v1/lists", "[1]", 400, "the body must be a JSON object"),
        ("aliceWrite", .post, "/api/v1/lists/1/items", #"{"items": []}"#, 400, "give the items to add"),
        ("alice", .get, "/api/v1/lists/9", nil, 404, "has no such list"),
        ("alice", .get, "/api/v1/lists/x", nil, 404, "list ids are whole numbers"),
        ("aliceWrite", .post, "/api/v1/receipts/import?store=288130404&at=2026-03-21", "SUMME 1,00\n", 400, "no item lines"),
        ("aliceWrite", .post, "/api/v1/receipts/import?store=288130404&at=2026-03-21", "Milch 1,29\nSUMME 9,99\n", 400, "allow-mismatch"),
        ("aliceWrite", .post, "/api/v1/receipts/import?store=nope&at=2026-03-21", "Milch 1,29\nSUMME 1,29\n", 400, "no such store"),
        ("aliceWrite", .post, "/api/v1/receipts/import?store=288130404", "Milch 1,29\nSUMME 1,29\n", 400, "at is required"),
        ("aliceWrite", .post, "/api/v1/receipts/parse?currency=eur", "Milch 1,29\n", 400, "eur"),
        // Issue 35: a text longer than any receipt (70 KB) costs its parse no core time.
        ("aliceWrite", .post, "/api/v1/receipts/parse", String(repeating: "Item 10000000000000,00\n", count: 3000), 413, "at most 64 KiB"),
    ] as [(String, HTTPRequest.Method, String, String?, Int, String)])
    func refusals(token: String, method: HTTPRequest.Method, uri: String, body: String?, status: Int, says: String) async throws {
        let a = try await f.call(uri, token, method: method, body: body)
        expectProblem(a, status: status, says: says)
    }
}
