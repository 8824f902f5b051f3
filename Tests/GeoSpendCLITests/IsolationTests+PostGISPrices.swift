import Foundation
import GeoSpendTestStores
import GeoSpendTestSupport
import Testing

/// The isolation method (alone / shared / merged, then `users delete bob`) over
/// `--db postgresql://…` for the price, shopping-list and receipt commands, with the fixture's
/// stores, expenses, lists, price records and receipts (bob's with his marker in a product name
/// only he names).
extension IsolationTests {
    /// Alice's price, product, list and receipt commands, and her export.
    static let alicePriceCommands: [[String]] =
        aliceCommands.filter { ["prices", "products", "lists", "receipts"].contains($0[0]) } + [["users", "export", "alice"]]

    /// A PostgreSQL database with the fixture's stores and the given rows; then per (owner,
    /// filed under) a shopping list, and the owner's price records and receipt (as on the file:
    /// right after the prices), alice's first.
    func serverDatabase(rows: [IsolationFixture.Row], owners: [(String, String)]) throws -> String {
        let db = PostGISTestServer.url(try PostGISTestServer.newDatabase())
        let stores = dir.appendingPathComponent("pg-stores.csv").path, expenses = dir.appendingPathComponent("pg-expenses-\(UUID()).csv").path
        try IsolationFixture.storesCSV.write(toFile: stores, atomically: true, encoding: .utf8)
        try IsolationFixture.csv(rows).write(toFile: expenses, atomically: true, encoding: .utf8)
        var steps = [["import", "stores", stores], ["import", "expenses", expenses]]
        for (owner, user) in owners {
            let bob = owner == "bob", marker = IsolationFixture.bobMarker
            steps.append([
                "lists", "add", "--user", user, "--name", bob ? "\(marker) list" : "List", "--budget", bob ? "12.00" : "30.00",
                "--currency", "EUR", "--item", bob ? "\(marker) milk=2" : "Milk=1",
            ])
        }
        // The receipt files' names are the same in every database (the expense's notes name them).
        let receipts = dir.appendingPathComponent("pg-receipts")
        try FileManager.default.createDirectory(at: receipts, withIntermediateDirectories: true)
        for (owner, user) in owners {
            let file = dir.appendingPathComponent("pg-prices-\(owner)-\(UUID()).csv").path
            try IsolationFixture.prices(of: owner).write(toFile: file, atomically: true, encoding: .utf8)
            // Each owner's own store first: the prices' last row names it (mine-1).
            steps.append([
                "stores", "add", "--user", user, "--name", owner == "bob" ? "\(IsolationFixture.bobMarker) shop" : "K-Market Kallio",
                "--lat", owner == "bob" ? "60.2013" : "60.1841", "--lon", owner == "bob" ? "24.9021" : "24.9500", "--kind", "supermarket",
            ])
            steps.append(["prices", "import", file, "--user", user])
            let receipt = receipts.appendingPathComponent("receipt-\(owner).txt").path
            try Self.receiptText(of: owner).write(toFile: receipt, atomically: true, encoding: .utf8)
            steps.append(["receipts", "import", receipt, "--user", user, "--store", "s-market"])
        }
        for (owner, user) in owners { steps += IsolationFixture.productMarks(of: owner, user: user) }
        for args in steps {
            let r = try geospend(args + ["--db", db])
            try #require(r.status == 0, "\(args): \(r.err)")
        }
        return db
    }

    func alicePriceOutputs(_ db: String) throws -> [String] {
        try Self.alicePriceCommands.map { args in
            let r = try geospend(args + ["--db", db])
            #expect(r.status == 0, "\(args): \(r.err)")
            return Self.normalised("\(r.status)\n\(r.out)\n--- stderr\n\(r.err)", db: db)
        }
    }

    @Test(.enabled(if: PostGISTestServer.address != nil, "needs $GEOSPEND_TEST_POSTGRES (make test starts a server)"))
    func pricesAndListsOnPostgreSQL() throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = try serverDatabase(rows: IsolationFixture.rows(for: ["alice"]), owners: [("alice", "alice")])
        let shared = try serverDatabase(rows: IsolationFixture.rows(for: ["alice", "bob"]), owners: [("alice", "alice"), ("bob", "bob")])
        let merged = try serverDatabase(
            rows: IsolationFixture.rows(for: ["alice", "bob"]).map { $0.filed(under: "alice") }, owners: [("alice", "alice"), ("bob", "alice")])
        let labels = Self.alicePriceCommands.map { $0.joined(separator: " ") }

        let reference = try alicePriceOutputs(alone)
        for (label, (a, m)) in zip(labels, zip(reference, try alicePriceOutputs(merged))) {
            #expect(a != m, "\(label): bob's rows filed under alice change nothing, so this comparison proves nothing")
        }
        for (label, (a, s)) in zip(labels, zip(reference, try alicePriceOutputs(shared))) { #expect(a == s, "bob present: \(label)") }

        func bobLeft() throws -> String {
            let marker = IsolationFixture.bobMarker
            let r = try runProgram("/usr/bin/psql", [shared, "-qAt", "-c", """
                SELECT (SELECT count(*) FROM price_records WHERE user_id = 'bob') || ' ' || (SELECT count(*) FROM shopping_lists WHERE user_id = 'bob')
                    || ' ' || (SELECT count(*) FROM shopping_list_items WHERE user_id = 'bob' OR name LIKE '%\(marker)%')
                    || ' ' || (SELECT count(*) FROM shopping_list_numbers WHERE user_id = 'bob')
                    || ' ' || (SELECT count(*) FROM products WHERE name LIKE '%\(marker)%')
                    || ' ' || (SELECT count(*) FROM receipts WHERE user_id = 'bob' OR text LIKE '%\(marker)%')
                """])
            return r.out.trimmingCharacters(in: .whitespacesAndNewlines) + r.err
        }
        #expect(try bobLeft() == "6 1 1 1 2 1", "the scan finds bob before the deletion")
        let deleted = try geospend(["users", "delete", "bob", "--yes", "--db", shared])
        #expect(deleted.status == 0, "\(deleted.err)")
        #expect(deleted.out.contains("positions 0, price_records 6, product_marks 1, product_tag_links 2, product_tags 1, receipts 1, recurring_numbers 0, recurring_rules 0, shopping_list_items 1, shopping_list_numbers 1, shopping_lists 1, store_favourites 0, user_settings 0, user_store_numbers 1, user_stores 1, visits 0, webhook_deliveries 0, webhooks 0, users 1, products 2)"), "\(deleted.out)")
        #expect(try bobLeft() == "0 0 0 0 0 0")
        for (label, (a, s)) in zip(labels, zip(reference, try alicePriceOutputs(shared))) { #expect(a == s, "after users delete bob: \(label)") }
    }
}
