import Foundation
import GRDB
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// A first import packs the R*Tree and builds the secondary indexes after the rows
/// (`RTreeBulkLoad`, `SpatiaLiteBulkWriter`); later imports update them row by row.
@Suite struct BulkLoadTests {
    /// `count` geotagged expenses spread over the whole globe, with the extreme coordinates,
    /// plus two without a location.
    static func expensesCSV(_ count: Int, idPrefix: String, seed: UInt64) -> String {
        var rng = SplitMix64(seed: seed)  // reproducible without Foundation's generators
        func next() -> Double { rng.unit() }
        var csv = ImportTests.header
        let corners = [(-90.0, -180.0), (90.0, 180.0), (0.0, 0.0), (-0.1, 179.9999999), (60.1710, 24.9414)]
        for i in 0..<count {
            let (lat, lon) = i < corners.count ? corners[i] : (next() * 180 - 90, next() * 360 - 180)
            csv += "\(idPrefix)\(i),user\(i % 7),expense,1.00,EUR,2025-03-01,,Food,,\(lat),\(lon),,,\n"
        }
        csv += "\(idPrefix)-n1,ann,expense,2.00,EUR,2025-03-01,,,,,,,,\n\(idPrefix)-n2,bob,income,3.00,EUR,2025-03-01,,,,,,,,\n"
        return csv
    }

    /// The R*Tree agrees with SQLite's own checker, SpatiaLite's, and the table.
    func expectConsistentIndex(_ store: SpatiaLiteStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try store.scalar("SELECT rtreecheck('idx_expenses_geom')", as: String.self) == "ok", sourceLocation: sourceLocation)
        #expect(try store.scalar("SELECT CheckSpatialIndex('expenses', 'geom')") == 1, sourceLocation: sourceLocation)
        let geotagged = try store.scalar("SELECT count(*) FROM expenses WHERE lat IS NOT NULL")
        #expect(try store.scalar("SELECT count(*) FROM idx_expenses_geom") == geotagged, sourceLocation: sourceLocation)
        // Each entry is the row's own point, its float box containing the exact coordinates.
        let covered = try store.scalar("""
            SELECT count(*) FROM expenses AS e JOIN idx_expenses_geom AS r ON r.pkid = e.pk
            WHERE r.xmin <= e.lon AND e.lon <= r.xmax AND r.ymin <= e.lat AND e.lat <= r.ymax
            """)
        #expect(covered == geotagged, sourceLocation: sourceLocation)
    }

    @Test func firstImportPacksAnRTreeSQLiteAndSpatiaLiteAccept() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        // 3,000 points need three levels of 51-cell nodes (51² = 2,601).
        let report = try await Importer.importExpenses(from: scratch.file("e.csv", Self.expensesCSV(3000, idPrefix: "a", seed: 1)), into: store)
        #expect(report.inserted == 3002)
        try expectConsistentIndex(store)
        #expect(try store.scalar("SELECT hex(substr(data, 1, 2)) FROM idx_expenses_geom_node WHERE nodeno = 1", as: String.self) == "0002")

        // The same float bounds as SQLite's R*Tree module writes for these points (its rounding).
        let queue = try DatabaseQueue(path: scratch.path("test.sqlite"))
        let sameBounds = try await queue.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE temp.reference USING rtree(id, xmin, xmax, ymin, ymax);
                INSERT INTO temp.reference SELECT pk, lon, lon, lat, lat FROM expenses WHERE lat IS NOT NULL;
                """)
            return try Int.fetchOne(db, sql: """
                SELECT count(*) FROM temp.reference AS a JOIN idx_expenses_geom AS b ON b.pkid = a.id
                WHERE a.xmin = b.xmin AND a.xmax = b.xmax AND a.ymin = b.ymin AND a.ymax = b.ymax
                """)
        }
        #expect(sameBounds == 3000)

        // Box searches through the tree find exactly what a scan of the table finds.
        for (south, west, north, east) in [(-10.0, -20.0, 30.0, 40.0), (59.0, 24.0, 61.0, 26.0), (-90.0, -180.0, -60.0, -100.0)] {
            let viaTree = try store.scalar("""
                SELECT count(*) FROM idx_expenses_geom
                WHERE xmin >= \(west) AND xmax <= \(east) AND ymin >= \(south) AND ymax <= \(north)
                """)
            let viaScan = try store.scalar("""
                SELECT count(*) FROM expenses WHERE lon >= \(west) AND lon <= \(east) AND lat >= \(south) AND lat <= \(north)
                """)
            #expect(viaTree == viaScan)
        }
    }

    @Test func laterImportsAndDeletesKeepTheRTreeConsistent() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importExpenses(from: scratch.file("a.csv", Self.expensesCSV(600, idPrefix: "a", seed: 2)), into: store)
        try expectConsistentIndex(store)
        // The tree is no longer empty: these go in one R*Tree insertion each, splitting packed nodes.
        let report = try await Importer.importExpenses(from: scratch.file("b.csv", Self.expensesCSV(900, idPrefix: "b", seed: 3)), into: store)
        #expect(report.inserted == 902)
        try expectConsistentIndex(store)
        #expect(try store.deleteUser("user3") != nil)
        try expectConsistentIndex(store)
    }

    @Test func indexesAndTriggersComeBackVerbatimAfterAnImportOrARollback() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let schema = "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master WHERE type IN ('index', 'trigger') ORDER BY name"
        let before = try store.column(schema)
        #expect(before.contains { $0.hasPrefix("index expenses_user_place: ") })
        #expect(before.contains { $0.hasPrefix("index stores_kind: ") })

        // A rejected first import rolls the dropped indexes back with the rows.
        let bad = scratch.file("bad.csv", Self.expensesCSV(100, idPrefix: "x", seed: 4) + "x-bad,ann,expense,1.00,EURO,2025-03-01,,,,,,,,\n")
        await #expect(throws: ImportError.self) { _ = try await Importer.importExpenses(from: bad, into: store) }
        #expect(try store.column(schema) == before)
        #expect(try store.readHere { try $0.counts() }.expenses == 0)

        _ = try await Importer.importStores(from: Repo.path("Data/helsinki-places.geojson"), into: store)
        _ = try await Importer.importExpenses(from: scratch.file("a.csv", Self.expensesCSV(300, idPrefix: "a", seed: 5)), into: store)
        #expect(try store.column(schema) == before)
        #expect(try store.scalar("PRAGMA integrity_check", as: String.self) == "ok")  // the rebuilt indexes match the rows
        #expect(try store.scalar("SELECT rtreecheck('idx_stores_geom')", as: String.self) == "ok")
        #expect(try store.scalar("SELECT CheckSpatialIndex('stores', 'geom')") == 1)
    }

    /// The indexes are rebuilt with a small page cache and sorter threads (`sortingInRuns`); the
    /// writer connection gets the bulk transaction's settings back after it: no sorter threads
    /// for later writes, the 1 GiB cache.
    @Test func theIndexRebuildLeavesTheWriterConnectionAsItWas() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        func settings() throws -> [Int] {
            try store.writeTransaction { db in [try Int.fetchOne(db, sql: "PRAGMA threads") ?? -1, try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0] }
        }
        _ = try await Importer.importExpenses(from: scratch.file("a.csv", Self.expensesCSV(300, idPrefix: "a", seed: 6)), into: store)
        #expect(try settings() == [0, -1_048_576])
        #expect(try store.scalar("PRAGMA integrity_check", as: String.self) == "ok")
    }

    /// Write scopes run with SQLite's foreign-key checks off (the writer checks its references
    /// itself); the connection gets them back after the scope, committed or rolled back, so
    /// the edits that write SQL of their own on it stay checked.
    @Test func foreignKeysAreEnforcedAgainAfterAWriteScope() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        func enforced() throws -> Int? { try store.writeTransaction { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") } }
        _ = try await Importer.importExpenses(from: scratch.file("a.csv", Self.expensesCSV(10, idPrefix: "a", seed: 1)), into: store)
        #expect(try enforced() == 1)
        let bad = scratch.file("bad.csv", Self.expensesCSV(10, idPrefix: "x", seed: 2) + "x-bad,ann,expense,1.00,EURO,2025-03-01,,,,,,,,\n")
        await #expect(throws: ImportError.self) { _ = try await Importer.importExpenses(from: bad, into: store) }
        #expect(try enforced() == 1)
        // Checked for real: an expense of a user who does not exist is refused.
        #expect(throws: (any Error).self) {
            try store.writeTransaction { db in
                try db.execute(sql: "INSERT INTO expenses (id, user_id, kind, amount_minor, currency, occurred_at, occurred_ms, local_date, content_hash) VALUES ('z', 'nobody', 'expense', 1, 'EUR', '2025-03-01', 0, '2025-03-01', 0)")
            }
        }
    }

    /// The writer binds a row's texts in place from a 4 KiB arena that grows mid-row when the
    /// texts do not fit (`BindArena`): every stored text must be the one read, byte for byte,
    /// whichever block it was copied into, and every NULL must stay NULL.
    @Test func textsBoundInPlaceAreStoredExactly() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        var rows: [[String]] = []
        for i in 0..<40 {
            // Lengths from 0 to ~4,000 bytes, multi-byte characters, quotes: some rows overflow
            // the arena once or twice, others leave it nearly empty for the next.
            let long = String(repeating: "é☕\"x", count: (i * 37) % 600)
            rows.append([
                "id\(i)", "user\(i % 3)", i % 2 == 0 ? "expense" : "income", "\(i + 1).00", "EUR", "2025-03-01T10:00:00+01:00",
                i % 5 == 0 ? "" : "title \(i) " + long, i % 2 == 0 ? "Food" : "Salary", i % 3 == 0 ? "" : "merchant\(i)",
                "60.1\(i)", "24.9\(i)", "", "", i % 4 == 0 ? "" : long + " notes \(i)",
            ])
        }
        func quoted(_ f: String) -> String { "\"" + f.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let csv = ImportTests.header + rows.map { $0.map(quoted).joined(separator: ",") + "\n" }.joined()
        let inserted = try await Importer.importExpenses(from: scratch.file("e.csv", csv), into: store).inserted
        #expect(inserted == 40)
        let stored = try store.readDatabase { db in
            try Row.fetchAll(db, sql: "SELECT id, user_id, kind, currency, occurred_at, local_date, title, merchant, notes FROM expenses ORDER BY pk")
        }
        #expect(stored.count == 40)
        for (row, fields) in zip(stored, rows) {
            #expect(row[0] as String == fields[0] && row[1] as String == fields[1] && row[2] as String == fields[2])
            #expect(row[3] as String == "EUR" && row[4] as String == fields[5] && row[5] as String == "2025-03-01")
            #expect(row[6] as String? == (fields[6].isEmpty ? nil : fields[6]), "title of \(fields[0])")
            #expect(row[7] as String? == (fields[8].isEmpty ? nil : fields[8]), "merchant of \(fields[0])")
            #expect(row[8] as String? == (fields[13].isEmpty ? nil : fields[13]), "notes of \(fields[0])")
        }
    }

    /// A new user's default categories are created marked as defaults, and an expense's
    /// category, whatever its ASCII case, is the user's one row of that name (`NOCASE`).
    @Test func defaultCategoriesAndCaseVariantsShareOneRow() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let csv = ImportTests.header + """
            c1,ann,expense,1.00,EUR,2025-03-01,,Food,,,,,,
            c2,ann,expense,1.00,EUR,2025-03-01,,food,,,,,,
            c3,ann,expense,1.00,EUR,2025-03-01,,FOOD,,,,,,
            c4,ann,expense,1.00,EUR,2025-03-01,,Café,,,,,,
            c5,ann,expense,1.00,EUR,2025-03-01,,CAFÉ,,,,,,
            c8,ann,expense,1.00,EUR,2025-03-01,,cAFé,,,,,,
            c6,ann,income,1.00,EUR,2025-03-01,,others,,,,,,
            c7,ann,expense,1.00,EUR,2025-03-01,,Others,,,,,,

            """
        #expect(try await Importer.importExpenses(from: scratch.file("c.csv", csv), into: store).inserted == 8)
        #expect(try store.scalar("SELECT count(*) FROM categories WHERE is_default = 1") == Category.defaults.count)
        #expect(try store.column("SELECT kind || ':' || name FROM categories WHERE is_default = 0 ORDER BY id") == ["expense:Café", "expense:CAFÉ"])
        let food = try store.scalar("SELECT id FROM categories WHERE kind = 'expense' AND name = 'Food'")
        #expect(try store.column("SELECT category_id FROM expenses WHERE id IN ('c1', 'c2', 'c3')", as: Int.self) == [food, food, food].compactMap { $0 })
        #expect(try store.scalar("SELECT count(DISTINCT category_id) FROM expenses WHERE id IN ('c4', 'c8')") == 1)
        #expect(try store.scalar("SELECT count(DISTINCT category_id) FROM expenses WHERE id IN ('c6', 'c7')") == 2)
        #expect(try store.scalar("SELECT count(*) FROM expenses AS e JOIN categories AS c ON c.id = e.category_id WHERE c.kind = 'income'") == 1)
    }

    /// Migration v3: the kind CHECK is comparisons, which SQLite evaluates without a temporary B-tree per row.
    @Test func kindCheckUsesComparisonsAndStillRejects() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let table = try #require(try store.scalar("SELECT sql FROM sqlite_master WHERE name = 'expenses'", as: String.self))
        #expect(table.contains("CHECK (kind = 'expense' OR kind = 'income' OR kind = 'transfer')"))
        let opcodes = try store.readDatabase { db in
            try Row.fetchAll(db, sql: """
                EXPLAIN INSERT INTO expenses (id, user_id, kind, amount_minor, currency, occurred_at, occurred_ms, local_date, content_hash)
                VALUES ('x', 'ann', 'expense', 1, 'EUR', '2025-01-01', 0, '2025-01-01', 0)
                """).map { $0["opcode"] as String }
        }
        #expect(opcodes.contains("Insert") && !opcodes.contains("OpenEphemeral"))
        try SQLiteShell.execute(scratch.path("test.sqlite"), "INSERT INTO users (id) VALUES ('ann')")
        #expect(throws: StoreError.self) {
            try SQLiteShell.execute(
                scratch.path("test.sqlite"),
                "INSERT INTO expenses (id, user_id, kind, amount_minor, currency, occurred_at, occurred_ms, local_date, content_hash) VALUES ('x', 'ann', 'refund', 1, 'EUR', '2025-01-01', 0, '2025-01-01', 0)")
        }
    }
}
