import Foundation
import GRDB
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// `users export` and `users delete` at the library level; the end-to-end isolation suite is
/// `IsolationTests` (CLI tests).
@Suite struct UserDataTests {
    static let stores = "id,name,kind,lat,lon\nshop1,Shop One,shop:kiosk,60.17,24.94\nshop2,Shop Two,amenity:cafe,60.171,24.941\n"
    /// Hand-written: every column filled somewhere, a JPY and a KWD amount (0 and 3 minor digits),
    /// a coordinate below 1e-4 (Swift writes it with an exponent), a custom category, a row
    /// without a position, quotes and a newline in text.
    static let expenses = """
        id,user,kind,amount,currency,occurred_at,title,category,merchant,lat,lon,accuracy_m,store_id,notes
        a1,ann,expense,4.50,EUR,2025-03-01T08:15:00+02:00,Coffee,Food,Shop One,60.1700123,24.9400456,12.5,shop1,"said ""hi""\nto the clerk"
        a2,ann,income,2500,EUR,2025-03-25,Salary,Salary,,,,,,
        a3,ann,expense,1200,JPY,2025-04-02T12:00:00+09:00,Ramen,Noodles,Ichiran,35.6812,139.7671,,,
        a4,ann,transfer,1.250,KWD,2025-04-03T09:00:00Z,,,,0.00001,-0.00002,3,,
        a5,ann,expense,3.20,EUR,2025-04-04T10:00:00+03:00,Tea,Food,Shop Two,60.171,24.941,,shop2,
        b1,bob,expense,9999.99,EUR,2025-03-02T10:00:00+02:00,Coffee,Food,Shop One,60.1700123,24.9400456,12.5,shop1,bob's
        b2,bob,expense,5.00,EUR,2025-03-03T10:00:00+02:00,Lunch,Food,Home,60.2412345,25.0187654,5,,bob's home

        """

    func fixture(_ scratch: Scratch) async throws -> SpatiaLiteStore {
        let store = try scratch.store()
        _ = try await Importer.importStores(from: scratch.file("s.csv", Self.stores), into: store)
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", Self.expenses), into: store)
        return store
    }

    func export(_ store: SpatiaLiteStore, _ user: String) throws -> (text: String, counts: UserExport.Counts)? {
        let sink = ByteSink()
        let written = try store.readHere { try $0.userData(user).map { try UserExport.write($0, generatedAt: "2026-01-01T00:00:00Z", to: sink) } }
        guard let counts = written else {
            return nil
        }
        return (String(decoding: sink.bytes, as: UTF8.self), counts)
    }

    @Test func exportHoldsEveryColumnOfTheUserAndNothingElse() async throws {
        let scratch = Scratch()
        let store = try await fixture(scratch)
        let (text, counts) = try #require(try export(store, "ann"))
        #expect(counts == UserExport.Counts(expenses: 5, categories: 14, stores: 2))
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(doc["format"] as? String == "geospend-user-export")
        #expect((doc["user"] as? [String: Any])?["id"] as? String == "ann")
        let expenses = try #require(doc["expenses"] as? [[String: Any]])
        #expect(expenses.map { $0["id"] as? String } == ["a1", "a2", "a3", "a4", "a5"])
        #expect(expenses.map { $0["amount"] as? String } == ["4.50", "2500.00", "1200", "1.250", "3.20"])
        #expect(expenses[0]["notes"] as? String == "said \"hi\"\nto the clerk")
        #expect(expenses[3]["lat"] as? Double == 0.00001 && expenses[3]["lon"] as? Double == -0.00002)
        #expect(expenses[0]["lat"] as? Double == 60.1700123 && expenses[0]["accuracy_m"] as? Double == 12.5)
        #expect(expenses[1]["lat"] is NSNull)
        #expect((doc["stores"] as? [[String: Any]])?.map { $0["id"] as? String } == ["shop1", "shop2"])
        #expect((doc["categories"] as? [[String: Any]])?.contains { $0["name"] as? String == "Noodles" } == true)
        #expect(!text.contains("bob") && !text.contains("b1") && !text.contains("25.0187654"))
        // Key order on every line is the import format's.
        for line in text.split(separator: "\n") where line.hasPrefix("{\"id\"") && line.contains("\"occurred_at\"") {
            let keys = line.matches(of: /"([a-z_]+)":/).map { String($0.1) }
            #expect(keys == UserExport.expenseKeys)
        }
        await #expect(try store.withUserData("nobody") { _ in 1 } == nil)
    }

    /// Every column of `expenses` is either written or derived on import: a column added later
    /// without deciding where it goes fails here.
    @Test func everyExpenseColumnIsExportedOrDerived() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let columns = Set(try store.column("SELECT name FROM pragma_table_info('expenses')"))
        let written: [String: String] = [
            "user": "user_id", "amount": "amount_minor", "category": "category_id",
        ]
        let exported = Set(UserExport.expenseKeys.map { written[$0] ?? $0 } + UserExport.expenseTimesKeys)
        #expect(columns.subtracting(exported).subtracting(UserExport.expenseColumnsWrittenElsewhere) == UserExport.derivedExpenseColumns)
        #expect(exported.isSubset(of: columns.union(["currency"])))
        // And every table keyed by user is one the export reads.
        let keyed = Set(try store.column("""
            SELECT m.name FROM sqlite_master AS m JOIN pragma_foreign_key_list(m.name) AS f
            WHERE m.type = 'table' AND f."table" = 'users'
            UNION
            SELECT m.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p
            WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%' AND p.name = 'user_id'
            """))
        // period_numbers and budget_numbers hold only the last id issued: bookkeeping, not the
        // user's data (users delete removes them).
        #expect(keyed == [
            "expenses", "categories", "periods", "period_numbers", "budgets", "budget_numbers", "budget_category_limits", "price_records",
            "shopping_lists", "shopping_list_items", "shopping_list_numbers", "api_tokens", "api_token_numbers",
            "map_rollups",  // derived from the expenses (docs/ROLLUPS.md): deleted, not exported
            "positions", "visits",
            "user_settings",  // the export's `settings`
            "webhooks",  // the export's `webhooks`, without secrets
            "notification_settings",  // the export's `notification_settings`
            "notification_events", "webhook_deliveries",  // the outbox and its deliveries: deleted, not exported
            "recurring_rules", "recurring_numbers",  // the export's `recurring`; the last id issued
            "receipts",  // the export's `receipts`, kept photos as base64
            "pantry_items", "pantry_numbers",  // the export's `pantry`; the last id issued
            "community_members", "community_posts", "community_comments",  // the export's `community`
            "product_tags", "product_tag_links", "product_marks",  // the export's `product_tags` and `product_marks`
            "user_stores", "user_store_numbers", "store_favourites", "default_stores",  // the export's `user_stores`; the last id issued
        ])
    }

    /// The export's expense lines are a JSON Lines file the importer takes back: delete the
    /// user, import the lines, export again — the same expenses, categories and stores.
    @Test func exportRoundTripsThroughTheImporter() async throws {
        let scratch = Scratch()
        let store = try await fixture(scratch)
        let before = try #require(try export(store, "ann")).text
        let lines = before.split(separator: "\n").filter { $0.hasPrefix("{\"id\"") && $0.contains("\"occurred_at\"") }.map { $0.hasSuffix(",") ? $0.dropLast() : $0 }
        let jsonl = scratch.file("ann.jsonl", lines.joined(separator: "\n") + "\n")
        #expect(try store.deleteUser("ann")?.rowsByTable.map(\.rows) == [5, 0, 0, 0, 0, 0, 14, 0, 0, 0, 0, 24, 1] + Array(repeating: 0, count: 23) + [1, 0])
        _ = try await Importer.importExpenses(from: jsonl, into: store)
        let after = try #require(try export(store, "ann")).text
        // The times the store stamps (issue 38) are the new rows' own.
        func body(_ s: String) -> String {
            String(s[s.range(of: "\"categories\"")!.lowerBound...])
                .replacingOccurrences(of: #""(created|updated)_at":"[^"]*""#, with: "\"time\"", options: .regularExpression)
        }
        #expect(body(after) == body(before))
    }

    @Test func deletionCountsRowsAndKeepsOthersAndStores() async throws {
        let scratch = Scratch()
        let store = try await fixture(scratch)
        await #expect(try store.users().map { "\($0.id) \($0.expenses) \($0.geotaggedExpenses) \($0.categories)" } == ["ann 5 4 14", "bob 2 2 13"])
        let bobBefore = try #require(try export(store, "bob")).text
        let deletion = try #require(try store.deleteUser("ann"))
        let expected: [UserDeletion.TableRows] = [
            .init(table: "expenses", rows: 5), .init(table: "api_token_numbers", rows: 0), .init(table: "api_tokens", rows: 0),
            .init(table: "budget_category_limits", rows: 0), .init(table: "budget_numbers", rows: 0),
            .init(table: "budgets", rows: 0),
            .init(table: "categories", rows: 14), .init(table: "community_comments", rows: 0), .init(table: "community_members", rows: 0),
            .init(table: "community_posts", rows: 0), .init(table: "default_stores", rows: 0), .init(table: "map_rollups", rows: 24), .init(table: "notification_events", rows: 1),  // the import's import.finished
           
            .init(table: "notification_settings", rows: 0), .init(table: "pantry_items", rows: 0), .init(table: "pantry_numbers", rows: 0),
            .init(table: "period_numbers", rows: 0),
            .init(table: "periods", rows: 0), .init(table: "positions", rows: 0),
            .init(table: "price_records", rows: 0), .init(table: "product_marks", rows: 0), .init(table: "product_tag_links", rows: 0),
            .init(table: "product_tags", rows: 0), .init(table: "receipts", rows: 0),
            .init(table: "recurring_numbers", rows: 0), .init(table: "recurring_rules", rows: 0), .init(table: "shopping_list_items", rows: 0),
            .init(table: "shopping_list_numbers", rows: 0), .init(table: "shopping_lists", rows: 0), .init(table: "store_favourites", rows: 0),
            .init(table: "user_settings", rows: 0), .init(table: "user_store_numbers", rows: 0), .init(table: "user_stores", rows: 0),
            .init(table: "visits", rows: 0), .init(table: "webhook_deliveries", rows: 0), .init(table: "webhooks", rows: 0),
            .init(table: "users", rows: 1), .init(table: "products", rows: 0),
        ]
        #expect(deletion.rowsByTable == expected)
        #expect(deletion.totalRows == 45 && deletion.leftovers.isEmpty)
        #expect(try store.deleteUser("ann") == nil)
        #expect(try export(store, "bob")?.text == bobBefore)
        #expect(try store.readHere { try $0.counts() } == StoreCounts(users: 1, expenses: 2, geotaggedExpenses: 2, stores: 2))
        #expect(try store.scalar("SELECT CheckSpatialIndex('expenses', 'geom')") == 1)
        #expect(try store.scalar("PRAGMA integrity_check", as: String.self) == "ok")
    }

    /// The trap `RTreeScrub` exists for, shown on SQLite's own R*Tree with no SpatiaLite and no
    /// GeoSpend code: a deleted entry's bytes stay in its node, even with `secure_delete` on.
    @Test func sqliteRTreeKeepsDeletedEntriesInItsNodes() throws {
        let db = try DatabaseQueue()
        let node = try db.write { db in
            try db.execute(sql: """
                PRAGMA secure_delete = ON;
                CREATE VIRTUAL TABLE t USING rtree(id, x0, x1, y0, y1);
                INSERT INTO t VALUES (1, 24.5, 24.5, 60.1, 60.1), (2, 25.0187654, 25.0187654, 60.2412345, 60.2412345);
                DELETE FROM t WHERE id = 2;
                """)
            return try [UInt8](Data.fetchOne(db, sql: "SELECT data FROM t_node WHERE nodeno = 1")!)
        }
        #expect(node.withUnsafeBytes(RTreeNode.count) == 1)  // one cell left
        #expect(Self.contains(node, Float(25.0187654)), "if SQLite now clears deleted cells, RTreeScrub can go")
    }

    /// Through the store: bob's entries leave no bytes in the spatial index's nodes.
    @Test func deletingAUserLeavesNothingInTheSpatialIndexNodes() async throws {
        let scratch = Scratch()
        let store = try await fixture(scratch)
        let nodes = { try store.readDatabase { db in try Data.fetchAll(db, sql: "SELECT data FROM idx_expenses_geom_node").map { [UInt8]($0) } } }
        #expect(try nodes().contains { Self.contains($0, Float(25.0187654)) })  // the check below can fail
        _ = try store.deleteUser("bob")
        for node in try nodes() {
            #expect(node[node.withUnsafeBytes(RTreeNode.usedSize)...].allSatisfy { $0 == 0 })
            #expect(!Self.contains(node, Float(25.0187654)) && !Self.contains(node, Float(60.2412345)))
        }
        #expect(try store.scalar("SELECT rtreecheck('idx_expenses_geom')", as: String.self) == "ok")
        #expect(try store.scalar("SELECT CheckSpatialIndex('expenses', 'geom')") == 1)
    }

    /// Statistics SpatiaLite keeps when asked (QGIS, `spatialite`) hold extremes: recomputed.
    @Test func deletionRecomputesKeptLayerStatistics() async throws {
        let scratch = Scratch()
        let store = try await fixture(scratch)
        try SQLiteShell.execute(scratch.path("test.sqlite"), "SELECT UpdateLayerStatistics('expenses', 'geom')")
        let north = "SELECT extent_max_y FROM geometry_columns_statistics WHERE f_table_name = 'expenses'"
        let largest = "SELECT integer_max FROM geometry_columns_field_infos WHERE f_table_name = 'expenses' AND column_name = 'amount_minor'"
        #expect(try store.scalar(north, as: Double.self) == 60.2412345)
        #expect(try store.scalar(largest) == 999_999)
        _ = try store.deleteUser("bob")
        #expect(try store.scalar(north, as: Double.self) == 60.171)
        #expect(try store.scalar(largest) == 250_000)
    }

    /// Deleting many rows makes SQLite merge index pages, copying rows not yet deleted to
    /// neighbouring pages and leaving the old copies in unused space that `secure_delete` never
    /// zeroes. Measured here: 30k synthetic expenses (the `geospend generate --users 30
    /// --expenses 30000 --seed 3` data), one user deleted without rewriting the file — some of
    /// their positions are still in the file; after a deletion that rewrites it, none.
    @Test func rewritingTheFileClearsWhatSecureDeleteMisses() throws {
        let scratch = Scratch()
        let data = SyntheticData(places: try Importer.readStores(from: Repo.path("Data/helsinki-places.geojson")), scale: .city)
        var expenses: [Expense] = []
        data.generateExpenses(users: 30, count: 30_000, seed: 3) { expenses.append($0) }
        let store = try scratch.store()
        try store.writeHere { w in
            for s in data.stores { _ = try w.insert(s) }
            for e in expenses { _ = try w.insert(e) }
        }
        /// How many of the user's latitudes (those no other user and no store has) are in the
        /// file as SQLite stores a REAL: 8 bytes, big-endian.
        func traces(of user: String) throws -> Int {
            let shared = Set(expenses.filter { $0.userID != user }.compactMap { $0.location?.coordinate.latitude })
                .union(data.stores.map(\.coordinate.latitude))
            let own = Set(expenses.filter { $0.userID == user }.compactMap { $0.location?.coordinate.latitude.bitPattern })
                .subtracting(shared.map(\.bitPattern))
            // Every latitude here is in [32, 64): the same first two bytes (0x40 0x4x) — checked
            // before the set lookup, so one pass over the file stays quick in a debug build.
            let prefix = try #require(own.first) >> 52
            try #require(own.allSatisfy { $0 >> 52 == prefix })
            let file = try Data(contentsOf: URL(fileURLWithPath: scratch.path("test.sqlite")))
            return file.withUnsafeBytes { raw in
                var found = Set<UInt64>()
                for i in 0..<(raw.count - 7) where UInt64(raw[i]) << 4 | UInt64(raw[i + 1] >> 4) == prefix {
                    let v = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    if own.contains(v) { found.insert(v) }
                }
                return found.count
            }
        }
        #expect(try traces(of: "user1") > 100)  // the scan finds live rows
        _ = try store.deleteUser("user1", rewriteFile: false)
        let left = try traces(of: "user1")
        #expect(left > 0, "SQLite no longer leaves copies behind: rewriting the file may be unnecessary")
        let deletion = try #require(try store.deleteUser("user2"))
        #expect(deletion.leftovers.isEmpty)
        #expect(try traces(of: "user1") == 0 && traces(of: "user2") == 0, "\(left) of user1's positions were left before the rewrite")
        #expect(try store.scalar("PRAGMA integrity_check", as: String.self) == "ok")
        #expect(try store.scalar("SELECT CheckSpatialIndex('expenses', 'geom')") == 1)
    }

    /// Whether `bytes` holds `value` as a big-endian 32-bit float (the R*Tree's bound format).
    static func contains(_ bytes: [UInt8], _ value: Float) -> Bool {
        let pattern = withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init)
        return bytes.indices.dropLast(3).contains { Array(bytes[$0..<$0 + 4]) == pattern }
    }
}
