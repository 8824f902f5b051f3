import Foundation
import GeoSpendTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Pantry items from purchases over HTTP (issue 38): `POST /api/v1/lists/{id}/check` with
/// `expires` and `POST /api/v1/receipts/{id}/confirm?expires=LINE=DAY` against `geospend lists
/// check --expires` and `receipts confirm --expires` on a copy: the same pantry, the same
/// refusals; bob's token sees none of it.
@Suite(.serialized) struct PantryPurchaseRouteTests {
    let f: ServiceFixture
    let alice = ServiceFixture.alice
    let copy: String

    init() throws {
        f = try ServiceFixture()
        copy = try f.copy()
    }

    func cli(_ args: [String], json: Bool = true) throws -> String { try f.cli(args + (json ? ["--format", "json"] : []), db: copy) }

    static func blankTimes(_ s: String) throws -> String { s.replacing(try Regex(#""(created_at|closed_at)": "[^"]*""#), with: "T") }

    func samePantry() async throws {
        let a = try await f.call("/api/v1/pantry?all=true")
        #expect(a.status == .ok, "\(a.body)")
        #expect(try Self.blankTimes(a.body) == Self.blankTimes(try cli(["pantry", "list", "--user", alice, "--all"])))
    }

    @Test func aCheckWithExpiresFillsThePantryAndItsUncheckEmptiesIt() async throws {
        let created = try await f.call(
            "/api/v1/lists", "aliceWrite", method: .post, body: #"{"name": "Week", "budget": "50", "currency": "EUR", "items": ["Milch=2", "Äpfel=1.5kg"]}"#)
        #expect(created.status == .created, "\(created.body)")
        _ = try cli(["lists", "add", "--user", alice, "--name", "Week", "--budget", "50", "--currency", "EUR", "--item", "Milch=2", "--item", "Äpfel=1.5kg"], json: false)
        let at = "2026-03-20T10:00:00+02:00"
        for (item, price, expires) in [("Milch", "1.29", "2026-03-27"), ("Äpfel", "2.99", "2026-04-03")] {
            let a = try await f.call(
                "/api/v1/lists/1/check", "aliceWrite", method: .post,
                body: #"{"item": "\#(item)", "price": "\#(price)", "at": "\#(at)", "expires": "\#(expires)"}"#)
            #expect(a.status == .ok, "\(a.body)")
            _ = try cli(["lists", "check", "1", item, "--price", price, "--at", at, "--expires", expires, "--user", alice], json: false)
        }
        let pantry = try await f.call("/api/v1/pantry")
        #expect(pantry.body.contains(#""source": "list""#) && pantry.body.contains(#""purchase": "list-\#(alice)-1-check-1""#), "\(pantry.body)")
        #expect(pantry.body.contains(#""quantity": "1.5 kg""#) && pantry.body.contains(#""expires": "2026-04-03""#), "\(pantry.body)")
        try await samePantry()
        let table = try cli(["pantry", "list", "--user", alice], json: false)
        #expect(table.contains("from") && table.contains("list"), "\(table)")

        // Unchecked over HTTP: Milch's pantry item goes. A day that is not one is refused with
        // the option's name; bob has no list 1 and no pantry of alice's.
        let undone = try await f.call("/api/v1/lists/1/uncheck", "aliceWrite", method: .post, body: #"{"item": "Milch"}"#)
        #expect(undone.status == .ok, "\(undone.body)")
        expectProblem(
            try await f.call("/api/v1/lists/1/check", "aliceWrite", method: .post, body: #"{"item": "Milch", "price": "1.29", "expires": "soon"}"#),
            status: 400, says: "--expires soon")
        let bob = try f.token(user: ServiceFixture.bob, scope: "write")
        let bobs = try await f.withClient { client in
            [try await client.call("/api/v1/lists/1/check", token: bob, method: .post, body: #"{"item": "Milch", "price": "1", "expires": "2026-03-27"}"#),
             try await client.call("/api/v1/pantry", token: bob)]
        }
        expectProblem(bobs[0], status: 404, says: "has no such list")
        #expect(bobs[1].body == "[]\n")

        // The CLI's uncheck does the same on the copy.
        _ = try cli(["lists", "uncheck", "1", "Milch", "--user", alice], json: false)
        let after = try await f.call("/api/v1/pantry?all=true")
        #expect(!after.body.contains("Milch") && after.body.contains("Äpfel"), "\(after.body)")
        try await samePantry()
    }

    @Test func aConfirmWithExpiresFillsThePantry() async throws {
        // No store and a total its lines do not make: the receipt waits for review, and still
        // after its store is given; lines 3 (Kaffee) and 4 (Brot).
        let text = "Nowhere Kiosk\n16.03.2026 11:00\nKaffee 4,99\nBrot 2,49\nSUMME 9,99\n"
        let file = f.dir.appendingPathComponent("r.txt")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let posted = try await f.call("/api/v1/receipts", "aliceWrite", method: .post, body: text)
        #expect(posted.status == .created, "\(posted.body)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(posted.body.utf8)) as? [String: Any])?["receipt_id"] as? String)
        let cliImported = try cli(["receipts", "import", file.path, "--user", alice])
        let cliID = try #require((try JSONSerialization.jsonObject(with: Data(cliImported.utf8)) as? [String: Any])?["receipt_id"] as? String)
        #expect((try await f.call("/api/v1/receipts/\(id)/correct?store=288130404", "aliceWrite", method: .post)).status == .ok)
        _ = try cli(["receipts", "correct", cliID, "--store", "288130404", "--user", alice])
        expectProblem(
            try await f.call("/api/v1/receipts/\(id)/confirm?expires=9=2026-03-20", "aliceWrite", method: .post), status: 400, says: "no item on line 9")
        expectProblem(
            try await f.call("/api/v1/receipts/\(id)/confirm?expires=2026-03-20", "aliceWrite", method: .post), status: 400, says: "--expires 2026-03-20")
        #expect((try await f.call("/api/v1/pantry")).body == "[]\n", "a refused confirm stores nothing")
        let confirmed = try await f.call("/api/v1/receipts/\(id)/confirm?expires=4=2026-03-20&expires=3=2026-09-01", "aliceWrite", method: .post)
        #expect(confirmed.status == .ok && confirmed.body.contains(#""status": "ok""#), "\(confirmed.body)")
        _ = try cli(["receipts", "confirm", cliID, "--user", alice, "--expires", "4=2026-03-20", "--expires", "3=2026-09-01"])
        let pantry = try await f.call("/api/v1/pantry")
        #expect(pantry.body.firstMatch(of: /"name": "(\w+)"/).map { String($0.1) } == "Brot", "soonest expiry first")
        #expect(pantry.body.contains(#""source": "receipt""#) && pantry.body.contains(#""purchase": "\#(id)""#), "\(pantry.body)")
        // An import that is ok at once takes them too (`?expires=`, as `receipts import --expires`).
        let ok = try await f.call(
            "/api/v1/receipts?store=288130404&at=2026-03-21&expires=2=2026-03-30", "aliceWrite", method: .post, body: "REWE Markt\nJoghurt 0,99\nSUMME 0,99\n")
        #expect(ok.status == .created, "\(ok.body)")
        #expect((try await f.call("/api/v1/pantry")).body.contains(#""name": "Joghurt""#))
        _ = try await f.call("/api/v1/pantry/3/use", "aliceWrite", method: .post)
        let cliPantry = try cli(["pantry", "list", "--user", alice])
        #expect(
            try Self.blankTimes(pantry.body).replacing(id, with: "R") == Self.blankTimes(cliPantry).replacing(cliID, with: "R"))
    }
}
