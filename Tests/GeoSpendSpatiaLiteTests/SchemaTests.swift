import Foundation
import GeoSpendTestSupport
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

@Suite struct SchemaTests {
    @Test func fileIsAStandardSpatiaLiteDatabase() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let columns = try store.readDatabase { db in
            try Row.fetchAll(db, sql: "SELECT f_table_name, geometry_type, srid, spatial_index_enabled FROM geometry_columns ORDER BY 1")
        }
        #expect(columns.map { $0[0] as String } == ["expenses", "stores"])
        #expect(columns.allSatisfy { ($0[1] as Int) == 1 && ($0[2] as Int) == 4326 && ($0[3] as Int) == 1 })
        #expect(try store.scalar("PRAGMA journal_mode", as: String.self) == "wal")
        #expect(try store.scalar("PRAGMA foreign_keys") == 1)
        #expect(try store.scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('idx_expenses_geom', 'idx_stores_geom')") == 2)
    }

    /// New files are set up with SpatiaLite's stderr noise silenced, and a descriptor is the
    /// whole process's: callers at once must leave it where it was. (With a save and restore per
    /// caller, one saved another's /dev/null and restored it last: a parallel test run lost its
    /// report.) A descriptor of its own, so other tests' first opens cannot interfere.
    @Test func concurrentSilencingLeavesTheDescriptorWhereItWas() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let fd = fcntl(ends[1], F_DUPFD, 100)
        defer { close(fd); close(ends[0]); close(ends[1]) }
        func identity() -> (UInt, UInt) {
            var s = stat()
            fstat(fd, &s)
            return (UInt(s.st_dev), UInt(s.st_ino))
        }
        let before = identity()
        let silencer = DescriptorSilencer(descriptor: fd)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 {
                silencer.enter()
                usleep(10)
                silencer.leave()
            }
        }
        #expect(identity() == before)
    }

    /// GDAL, an outside reader, sees both point layers (ogrinfo from Debian's gdal-bin).
    @Test func ogrinfoListsExpensesAndStoresAsPointLayers() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let csv = scratch.file("e.csv", "user,amount,currency,occurred_at,lat,lon\nann,1.00,EUR,2025-01-01,60.17,24.94\n")
        _ = try await Importer.importExpenses(from: csv, into: store)
        let (status, out, err) = try runProgram("/usr/bin/ogrinfo", ["-ro", "-q", scratch.path("test.sqlite")])
        #expect(status == 0, "\(err)")
        #expect(out.contains("stores (Point)"))
        #expect(out.contains("expenses (Point)"))
        let layer = try runProgram("/usr/bin/ogrinfo", ["-ro", "-al", "-so", scratch.path("test.sqlite"), "expenses"])
        #expect(layer.out.contains("Feature Count: 1"))
        #expect(layer.out.contains("EPSG") || layer.out.contains("4326"))
    }

    @Test func deleteRulesCascadeUsersAndNullifyStoresAndCategories() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importStores(
            from: scratch.file("s.csv", "id,name,lat,lon\nshop1,Shop,60.17,24.94\n"), into: store)
        _ = try await Importer.importExpenses(
            from: scratch.file(
                "e.csv",
                "id,user,amount,currency,occurred_at,lat,lon,store_id,category\n"
                    + "a1,ann,1.00,EUR,2025-01-01,60.17,24.94,shop1,Food\nb1,bob,2.00,EUR,2025-01-01,60.17,24.94,shop1,Food\n"),
            into: store)
        #expect(try store.deleteStore("shop1"))
        #expect(try store.scalar("SELECT count(*) FROM expenses WHERE store_id IS NULL") == 2)
        try store.writeHere { _ in }  // an empty bulk write puts SpatiaLite's triggers back
        #expect(try store.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'gii_expenses_geom'") == 1)
        #expect(try store.deleteUser("ann") != nil)
        #expect(try store.column("SELECT id FROM expenses") == ["b1"])
        #expect(try store.scalar("SELECT count(*) FROM categories WHERE user_id = 'ann'") == 0)
        #expect(try store.scalar("SELECT count(*) FROM idx_expenses_geom") == 1)  // the R*Tree followed the cascade
        #expect(try store.scalar("SELECT CheckSpatialIndex('expenses', 'geom')") == 1)
        // Deleting a category (from an outside writer) keeps the expense and clears the link.
        #expect(try store.scalar("SELECT category_id FROM expenses WHERE id = 'b1'") != nil)
        try SQLiteShell.execute(scratch.path("test.sqlite"), "DELETE FROM categories WHERE user_id = 'bob' AND name = 'Food'")
        #expect(try store.scalar("SELECT count(*) FROM expenses WHERE id = 'b1' AND category_id IS NULL") == 1)
    }

    @Test func newUsersGetTheDefaultCategories() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importExpenses(
            from: scratch.file("e.csv", "user,amount,currency,occurred_at,category\nann,1.00,EUR,2025-01-01,Coffee\n"), into: store)
        let names = try store.column("SELECT kind || ':' || name FROM categories WHERE user_id = 'ann' ORDER BY id")
        #expect(names.count == 14)
        #expect(names.contains("expense:Food") && names.contains("income:Salary") && names.contains("expense:Coffee"))
    }
}

/// The `sqlite3` shell with SpatiaLite loaded: an outside writer (foreign keys on, as the store's own rules).
enum SQLiteShell {
    static func execute(_ database: String, _ sql: String) throws {
        let r = try runProgram("/usr/bin/sqlite3", ["-cmd", ".load mod_spatialite", "-cmd", "PRAGMA foreign_keys = ON", database, sql])
        guard r.status == 0 else { throw StoreError.cannotOpen(path: database, reason: r.err) }
    }
}
