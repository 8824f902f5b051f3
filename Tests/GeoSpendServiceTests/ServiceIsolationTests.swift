import Foundation
import GeoSpend
import GeoSpendService
import GeoSpendSpatiaLite
import Hummingbird
import HummingbirdTesting
import Testing

/// Isolation over HTTP (the HTTP part of Tests/GeoSpendCLITests/IsolationTests.swift's
/// guarantee): what alice's token gets from every endpoint is the same, byte for byte, from a
/// database holding only her expenses (`alone`) as from the sample database where every other
/// user spends at the same stores and places (`shared`). It cannot pass vacuously: filed under
/// alice (`merged`), bob's rows change every answer. Guessing another user's id gives 404.
/// Each test has a fixture of its own, so they run side by side: one after another, the suite
/// was the last to finish a `make test` run, its last 55 s with part of the CPU idle.
@Suite struct ServiceIsolationTests {
    let f: ServiceFixture

    init() throws { f = try ServiceFixture() }

    /// Every endpoint that answers with the token user's data.
    static let endpoints = [
        "/api/v1/near?lat=60.1699&lon=24.9384&radius=5km",
        "/api/v1/insights",
        "/api/v1/insights?by=store",
        "/api/v1/summary",
        "/api/v1/expenses?limit=1000",
        "/api/v1/export/points",
        "/api/v1/export/points?properties=amount,occurred_at,merchant,store_id,position_source",
        "/api/v1/export/grid",
        "/api/v1/export/density?cell=200m",
        "/api/v1/export/places",
        "/api/v1/users/me/export",
        "/ogc/collections/expenses/items?limit=10000",
        "/ogc/collections/places/items?limit=10000",
        "/ogc/collections/hex/items?limit=10000",
        "/ogc/collections/density/items?limit=10000",
        "/tiles/heat/0/0/0.mvt",
        "/tiles/points/0/0/0.mvt",
        "/tiles/places/0/0/0.mvt",
        "/tiles/points.json",
        "/api/v1/snap?tolerance=80m",
        "/api/v1/search/expenses?text=e&limit=1000",
        "/api/v1/trends?by=store",
        "/api/v1/prices/history?product=Vollmilch%201%2C5%25",
        "/api/v1/prices/inflation?category=Dairy&as-of=2026-03-31",
        "/api/v1/basket?item=Vollmilch%201%2C5%25=2&item=%C3%84pfel=1kg&as-of=2026-03-31&min-availability=0.5",
        "/api/v1/lists",
        "/api/v1/lists/1?as-of=2026-03-31",
        "/api/v1/positions?limit=100000",
        "/api/v1/positions/summary?timezone=Europe/Helsinki",
        "/api/v1/geotag?timezone=Europe/Helsinki",
        // Without timezone: the user's own zone (their settings), never another's.
        "/api/v1/positions/summary",
        "/api/v1/users/me/settings",
        "/api/v1/recurring",
        "/api/v1/pantry?all=true",
        "/api/v1/pantry/predictions?as-of=2026-04-30",
        "/api/v1/lists?status=all",
        // The feed is shared by design; a member's standing counts their own verified updates.
        "/api/v1/community/level",
        // Receipts (issue 42 §2); `answers` adds the show of alice's first.
        "/api/v1/receipts",
        "/api/v1/receipts?limit=1",
        // Issue 38: the user's records with their ids, products with their own tags and flags.
        "/api/v1/prices",
        "/api/v1/products",
        "/api/v1/products?favourites=true",
        "/api/v1/products/tags",
        // Issue 38: the user's default, favourite and added stores; their own mine-1.
        "/api/v1/stores",
        "/api/v1/stores/mine-1",
        // Issue 38: the shared stores near bob's added one, and the token user's own added ones.
        "/api/v1/nearest-stores?lat=60.2013&lon=24.9021&k=3",
    ]

    /// The owner's receipt as text, at a store of the sample (bob's names him): `receipts import`
    /// makes each an `ok` receipt with its expense and price record, on the same day.
    static func receiptText(bob: Bool) -> String {
        bob ? "Kiosk\n16.03.2026 11:00\nBob's Kaffee 4,99\nSUMME 4,99\n" : "Kiosk\n16.03.2026 10:00\nRoggenbrot 2,49\nSUMME 2,49\n"
    }

    /// bob's prices: hand-written for this test, cheaper than alice's (Data/examples/prices.csv),
    /// at the same stores, so filed under alice they change her basket, history and inflation.
    static let bobsPrices = """
        product,brand,barcode,category,store_id,price,currency,recorded_at,quantity,unit
        "Vollmilch 1,5%",Valio,,Dairy,288130404,0.99,EUR,2026-03-05T09:10:00+02:00,1,l
        Äpfel,,,Fruit,4867546225,1.49,EUR,2026-03-05T09:10:00+02:00,1,kg
        Vollmilch 1.5%,Valio,,,4867546225,0.89,EUR,2026-03-06T12:00:00+02:00,1,l

        """

    /// A database from the sample stores and the sample expenses `keep` picks (renamed by `rename`).
    func database(_ name: String, keep: (String) -> Bool, rename: (String) -> String = { $0 }) throws -> String {
        let csv = try String(contentsOf: ServiceFixture.repo.appendingPathComponent("Data/sample-expenses.csv"), encoding: .utf8)
        var lines = csv.split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        let rows = lines.compactMap { line -> String? in
            var fields = line.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard keep(fields[1]) else { return nil }
            fields[1] = rename(fields[1])
            return fields.joined(separator: ",")
        }
        let file = f.dir.appendingPathComponent("\(name).csv")
        try ([header] + rows).joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
        let db = f.dir.appendingPathComponent("\(name).sqlite").path
        for args in [["import", "stores", "Data/helsinki-places.geojson"], ["import", "expenses", file.path]] {
            let r = try f.geospend(args + ["--db", db])
            try #require(r.status == 0, "\(r.err)")
        }
        // Each kept user joins the community (issue 38) before the prices, which so become their
        // entries, verified from their own expenses only; filed like the prices.
        for owner in [ServiceFixture.alice, ServiceFixture.bob] where keep(owner) {
            let r = try f.geospend(["community", "join", "--user", rename(owner), "--display-name", owner == ServiceFixture.bob ? "Bob B" : "Alice A", "--db", db])
            try #require(r.status == 0, "\(r.err)")
        }
        // Each kept user's prices and a shopping list, alice's first (her list is 1 either way).
        let bobsFile = f.dir.appendingPathComponent("bob-prices.csv")
        try Self.bobsPrices.write(to: bobsFile, atomically: true, encoding: .utf8)
        for (owner, prices) in [(ServiceFixture.alice, PriceRouteTests.pricesCSV), (ServiceFixture.bob, bobsFile)] where keep(owner) {
            for args in [["prices", "import", prices.path, "--user", rename(owner)],
                         ["lists", "add", "--user", rename(owner), "--name", "\(owner)'s", "--budget", "5", "--currency", "EUR", "--item", "Vollmilch 1,5%=2", "--item", "Äpfel=1kg",
                          "--over-budget"]] {
                let r = try f.geospend(args + ["--db", db])
                try #require(r.status == 0, "\(r.err)")
            }
            // A receipt each (issue 42 §2) right after the owner's prices: its price record is a
            // community entry, whose ids are the shared feed's, alice's first in every database.
            // The file's name is the same in every database (the expense's notes name it).
            let bob = owner == ServiceFixture.bob
            let folder = f.dir.appendingPathComponent("\(name)-receipts")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(bob ? "receipt-b.txt" : "receipt-a.txt").path
            try Self.receiptText(bob: bob).write(toFile: file, atomically: true, encoding: .utf8)
            let receipt = try f.geospend(["receipts", "import", file, "--user", rename(owner), "--store", "288130404", "--db", db])
            try #require(receipt.status == 0 && receipt.out.contains(": ok,"), "\(receipt.out) \(receipt.err)")
            // Tags and flags each (issue 38), filed like the prices.
            let marks = owner == ServiceFixture.bob
                ? [["products", "tag", "Äpfel", "--tag", "Bob's", "--color", "red"], ["products", "favourite", "Äpfel"]]
                : [["products", "tag", "Vollmilch 1,5%", "--tag", "breakfast", "--color", "orange"], ["products", "favourite", "Vollmilch 1,5%"]]
            for args in marks {
                let r = try f.geospend(args + ["--user", rename(owner), "--db", db])
                try #require(r.status == 0, "\(args): \(r.err)")
            }
        }
        // A location history each (issue 36), filed like the prices.
        for (owner, history) in [(ServiceFixture.alice, "Data/examples/positions/google-records.json"), (ServiceFixture.bob, "Data/examples/demo-person/Timeline.json")] where keep(owner) {
            let r = try f.geospend(["import", "positions", history, "--user", rename(owner), "--db", db])
            try #require(r.status == 0, "\(r.err)")
            // Settings each: a zone and a retention that keeps the whole history, filed alike.
            let bob = owner == ServiceFixture.bob
            let settings = try f.geospend([
                "users", "settings", "--user", rename(owner), "--timezone", bob ? "America/New_York" : "Europe/Helsinki",
                "--keep-positions", bob ? "36000" : "36500", "--db", db,
            ])
            try #require(settings.status == 0, "\(settings.err)")
            // A recurring rule each (issue 38), filed like the prices, with the same days.
            let rule = try f.geospend([
                "recurring", "add", "--user", rename(owner), "--every", "monthly", "--from", "2026-01-31", "--amount", bob ? "700" : "950",
                "--currency", "EUR", "--title", bob ? "Bob's rent" : "Rent", "--db", db,
            ])
            try #require(rule.status == 0, "\(rule.err)")
            // A pantry item each (issue 38), expiring on the same day.
            let pantry = try f.geospend([
                "pantry", "add", "--user", rename(owner), "--name", bob ? "Bob's yoghurt" : "Yoghurt", "--expires", "2026-03-20", "--db", db,
            ])
            try #require(pantry.status == 0, "\(pantry.err)")
            // A store each adds, a favourite and a default (issue 38), filed alike.
            for args in [
                ["stores", "add", "--user", rename(owner), "--name", bob ? "Bob's shop" : "K-Market Kallio", "--lat", bob ? "60.2013" : "60.1841",
                 "--lon", bob ? "24.9021" : "24.95", "--kind", "supermarket", "--region", "Uusimaa"],
                // bob's favourite is his own store: filed under alice it marks her mine-1.
                ["stores", "favourite", "--user", rename(owner), bob ? "mine-1" : "288130404"],
                ["stores", "default", "--user", rename(owner), "mine-1"],
            ] {
                let r = try f.geospend(args + ["--db", db])
                try #require(r.status == 0, "\(r.err)")
            }
        }
        return db
    }

    /// alice's answers from `db`, with the instants that differ between runs (generation and
    /// creation times) blanked.
    func answers(_ db: String) async throws -> [String] {
        let store = try SpatiaLiteStore(path: db)
        let made = TokenAuth.newToken()
        _ = try await store.addToken(userID: ServiceFixture.alice, scope: .read, lookup: made.lookup, sha256: made.sha256, expiresAt: nil)
        let token = made.text
        let app = Application(router: buildRouter(store: store, timeLimit: ServiceFixture.patient), logger: ServiceFixture.quiet)
        let bodies = try await app.test(.router) { client in
            var out: [String] = []
            for uri in Self.endpoints {
                let a = try await client.call(uri, token: token)
                out.append("\(a.status.code) " + a.body)
            }
            // Alice's first receipt, shown (its id is the same in every database).
            let listed = try await client.call("/api/v1/receipts?limit=1", token: token)
            let id = ((try? JSONSerialization.jsonObject(with: Data(listed.body.utf8)) as? [String: Any])?["receipts"] as? [[String: Any]])?
                .first?["id"] as? String ?? "none"
            let shown = try await client.call("/api/v1/receipts/\(id)", token: token)
            out.append("\(shown.status.code) " + shown.body)
            return out
        }
        let times = try Regex(#""(generated_at|created_at|updated_at|joined_at|timeStamp)": ?"[^"]*""#)
        return bodies.map { $0.replacing(times, with: "\"time\"") }
    }

    @Test func aliceGetsTheSameAnswersWhateverOtherUsersHold() async throws {
        let alone = try await answers(try database("alone", keep: { $0 == ServiceFixture.alice }))
        let shared = try await answers(try database("shared", keep: { _ in true }))
        let merged = try await answers(try database("merged", keep: { [ServiceFixture.alice, ServiceFixture.bob].contains($0) }, rename: { _ in ServiceFixture.alice }))
        for (n, uri) in Self.endpoints.enumerated() {
            #expect(alone[n].hasPrefix("200 "), "\(uri): \(alone[n].prefix(300))")
            #expect(shared[n] == alone[n], "\(uri)")
            #expect(merged[n] != alone[n], "\(uri): bob's rows under alice's name change nothing, so the comparison proves nothing")
        }
        // The show of alice's receipt: the same whoever else keeps receipts (bob's under her
        // name are another receipt, so `merged` shows the same one).
        let show = Self.endpoints.count
        #expect(alone[show].hasPrefix("200 ") && alone[show].contains("Roggenbrot"), "\(alone[show].prefix(300))")
        #expect(shared[show] == alone[show])
    }

    /// Every receipts endpoint given bob's receipt id with alice's write token: 404, as a
    /// receipt that never was, and bob's receipt is as it was; alice posting bob's very text
    /// makes a receipt of her own.
    @Test func guessedReceiptIdsOfOtherUsersAre404() async throws {
        let file = f.dir.appendingPathComponent("bob-receipt.txt")
        // No store given and none named: bob's receipt waits for review, so a confirm would change it.
        let text = "Nowhere Kiosk\n16.03.2026 11:00\nBob's Kaffee 4,99\nSUMME 4,99\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let imported = try f.cli(["receipts", "import", file.path, "--user", ServiceFixture.bob, "--format", "json"], db: f.db)
        let id = try #require((try JSONSerialization.jsonObject(with: Data(imported.utf8)) as? [String: Any])?["receipt_id"] as? String)
        let show = ["receipts", "show", id, "--user", ServiceFixture.bob, "--format", "json"]
        let before = try f.cli(show, db: f.db)
        #expect(before.contains("\"status\": \"needs_review\""), "\(before)")
        let (answers, posted) = try await f.withClient { client in
            let answers = [
                try await client.call("/api/v1/receipts/\(id)", token: f.tokens["alice"]),
                try await client.call("/api/v1/receipts/\(id)/image", token: f.tokens["alice"]),
                try await client.call("/api/v1/receipts/\(id)", token: f.tokens["aliceWrite"], method: .delete),
                try await client.call("/api/v1/receipts/\(id)/correct?store=288130404", token: f.tokens["aliceWrite"], method: .post),
                try await client.call("/api/v1/receipts/\(id)/correct?line=3&price=1.00", token: f.tokens["aliceWrite"], method: .post),
                try await client.call("/api/v1/receipts/\(id)/confirm", token: f.tokens["aliceWrite"], method: .post),
            ]
            let posted = try await client.call("/api/v1/receipts", token: f.tokens["aliceWrite"], method: .post, body: text)
            return (answers, posted)
        }
        for a in answers { expectProblem(a, status: 404, says: "no receipt") }
        #expect(posted.status == .created, "\(posted.body)")
        let hers = (try JSONSerialization.jsonObject(with: Data(posted.body.utf8)) as? [String: Any])?["receipt_id"] as? String
        #expect(hers != nil && hers != id, "alice's receipt of the same text is her own")
        #expect(try f.cli(show, db: f.db) == before)
        #expect(try f.cli(["receipts", "list", "--user", ServiceFixture.bob, "--format", "json"], db: f.db).contains(id))
    }

    /// The web app's own routes (issue 41) answer no user's data: the page, its files, its
    /// config and the basemap are the same bytes from a database of alice's alone and of
    /// alice's and bob's rows under her name, with alice's token, bob's or none. The data the
    /// app shows comes from the endpoints above, with the token.
    @Test func webAppRoutesCarryNoUserData() async throws {
        let paths = ["/", "/app/app.js", "/app/app.css", "/app/config.json", "/app/basemap.geojson"]
        var settings = ServiceSettings()
        settings.basemap = .offline(file: ServiceFixture.repo.appendingPathComponent("Data/helsinki-basemap.geojson").path)
        func bodies(_ db: String, token: String?) async throws -> [String] {
            let app = Application(router: buildRouter(store: try SpatiaLiteStore(path: db), timeLimit: ServiceFixture.patient, settings: settings), logger: ServiceFixture.quiet)
            return try await app.test(.router) { client in
                var out: [String] = []
                for path in paths { let a = try await client.call(path, token: token); out.append("\(a.status.code) \(a.body)") }
                return out
            }
        }
        let alone = try await bodies(try database("alone", keep: { $0 == ServiceFixture.alice }), token: f.tokens["alice"])
        let merged = try database("merged", keep: { [ServiceFixture.alice, ServiceFixture.bob].contains($0) }, rename: { _ in ServiceFixture.alice })
        for token in [f.tokens["alice"], f.tokens["bob"], nil] {
            #expect(try await bodies(merged, token: token) == alone)
        }
        for (n, path) in paths.enumerated() { #expect(alone[n].hasPrefix("200 ") && alone[n].count > 100, "\(path): \(alone[n].prefix(200))") }
    }

    @Test func guessedIdsOfOtherUsersAre404() async throws {
        let bobs = try f.geospend(["expenses", "list", "--user", ServiceFixture.bob, "--limit", "1000", "--format", "json", "--db", f.db])
        let ids = bobs.out.split(separator: "\n").filter { $0.hasPrefix("      \"id\": ") }.map { String($0.split(separator: "\"")[3]) }
        #expect(ids.count > 100)
        let statuses = try await f.withClient { client in
            var s: Set<UInt16> = []
            for id in ids { s.insert(UInt16(try await client.call("/api/v1/expenses/\(id)", token: f.tokens["alice"]).status.code)) }
            return s
        }
        #expect(statuses == [404])
    }

    /// Lists and budgets are numbered per user: bob's list 1 and budget 1 are not alice's to read,
    /// change or complete, though she has none of her own.
    @Test func guessedListAndBudgetIdsOfOtherUsersAre404() async throws {
        for args in [["prices", "import", PriceRouteTests.pricesCSV.path, "--user", ServiceFixture.bob],
                     ["lists", "add", "--user", ServiceFixture.bob, "--name", "Bob's", "--budget", "5", "--currency", "EUR", "--item", "Vollmilch=2", "--over-budget"],
                     ["pantry", "add", "--user", ServiceFixture.bob, "--name", "Bob's yoghurt", "--expires", "2026-03-20"],
                     ["stores", "add", "--user", ServiceFixture.bob, "--name", "Bob's shop", "--lat", "60.2", "--lon", "24.9", "--kind", "kiosk"],
                     ["budgets", "add", "--user", ServiceFixture.bob, "--name", "B", "--amount", "5", "--currency", "EUR", "--from", "2025-03-01", "--to", "2025-03-31"],
                     ["recurring", "add", "--user", ServiceFixture.bob, "--every", "weekly", "--from", "2025-03-01", "--amount", "5", "--currency", "EUR"]] {
            let r = try f.geospend(args + ["--db", f.db])
            try #require(r.status == 0, "\(r.err)")
        }
        let answers = try await f.withClient { client in
            [try await client.call("/api/v1/lists/1", token: f.tokens["alice"]),
             try await client.call("/api/v1/lists/1/items", token: f.tokens["aliceWrite"], method: .post, body: #"{"items": ["Brot"]}"#),
             try await client.call("/api/v1/lists/1/complete", token: f.tokens["aliceWrite"], method: .post, body: #"{"store": "288130404", "at": "2026-03-20", "prices": ["Vollmilch=1"]}"#),
             try await client.call("/api/v1/budgets/1", token: f.tokens["aliceWrite"], method: .patch, body: #"{"amount": "1"}"#),
             try await client.call("/api/v1/budgets/1/summary?as-of=2025-03-15", token: f.tokens["alice"]),
             try await client.call("/api/v1/recurring/1", token: f.tokens["aliceWrite"], method: .patch, body: #"{"amount": "1"}"#),
             try await client.call("/api/v1/recurring/1", token: f.tokens["aliceWrite"], method: .delete),
             try await client.call("/api/v1/lists/1", token: f.tokens["aliceWrite"], method: .patch, body: #"{"name": "Mine"}"#),
             try await client.call("/api/v1/lists/1/check", token: f.tokens["aliceWrite"], method: .post, body: #"{"item": "Vollmilch", "price": "1"}"#),
             try await client.call("/api/v1/lists/1/uncheck", token: f.tokens["aliceWrite"], method: .post, body: #"{"item": "Vollmilch"}"#),
             try await client.call("/api/v1/lists/1/remove", token: f.tokens["aliceWrite"], method: .post, body: #"{"item": "Vollmilch"}"#),
             try await client.call("/api/v1/lists/1", token: f.tokens["aliceWrite"], method: .delete),
             try await client.call("/api/v1/pantry/1/use", token: f.tokens["aliceWrite"], method: .post),
             try await client.call("/api/v1/pantry/1/discard", token: f.tokens["aliceWrite"], method: .post),
             // Issue 38: bob's price record 1 and his products are not alice's.
             try await client.call("/api/v1/prices/1", token: f.tokens["aliceWrite"], method: .patch, body: #"{"price": "0.01"}"#),
             try await client.call("/api/v1/prices/1", token: f.tokens["aliceWrite"], method: .delete),
             try await client.call("/api/v1/products/1", token: f.tokens["aliceWrite"], method: .patch, body: #"{"favourite": true}"#),
             try await client.call("/api/v1/products/1/tags", token: f.tokens["aliceWrite"], method: .post, body: #"{"tag": "mine"}"#),
             try await client.call("/api/v1/products/1/merge", token: f.tokens["aliceWrite"], method: .post, body: #"{"into": "2"}"#),
             try await client.call("/api/v1/products/1", token: f.tokens["aliceWrite"], method: .delete),
             // Issue 38: bob's added store mine-1 is no store to alice.
             try await client.call("/api/v1/stores/mine-1", token: f.tokens["alice"]),
             try await client.call("/api/v1/stores/mine-1/favourite", token: f.tokens["aliceWrite"], method: .put),
             try await client.call("/api/v1/stores/mine-1/favourite", token: f.tokens["aliceWrite"], method: .delete),
             try await client.call("/api/v1/users/me/default-store", token: f.tokens["aliceWrite"], method: .put, body: #"{"store": "mine-1"}"#)]
        }
        for a in answers { #expect(a.status == .notFound, "\(a.body)") }
        #expect(try f.cli(["prices", "list", "--user", ServiceFixture.bob, "--format", "json"], db: f.db).contains("\"price\": \"1.29\""))
        #expect(try f.cli(["lists", "show", "--user", ServiceFixture.bob, "--format", "json"], db: f.db).contains("\"completed_expense_id\": null"))
        #expect(try f.cli(["recurring", "list", "--user", ServiceFixture.bob, "--format", "json"], db: f.db).contains("\"amount\": \"5.00\""))
        #expect(try f.cli(["pantry", "list", "--user", ServiceFixture.bob, "--format", "json"], db: f.db).contains("\"status\": \"open\""))
        #expect(try f.cli(["lists", "list", "--user", ServiceFixture.bob, "--format", "json"], db: f.db).contains("\"name\": \"Bob's\""))
        #expect(try f.cli(["stores", "list", "--user", ServiceFixture.bob, "--format", "json"], db: f.db).contains("\"name\": \"Bob's shop\""))
        #expect(try f.cli(["stores", "list", "--user", ServiceFixture.alice, "--format", "json"], db: f.db) == "[]\n")
    }
}
