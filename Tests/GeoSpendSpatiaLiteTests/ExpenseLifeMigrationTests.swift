import Foundation
import GeoSpendTestSupport
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

/// Migration v5 (an expense's life) on a file the previous schema (v4) wrote: rows stay,
/// existing expenses get no times (unknown, not the migration's time) and no reminder, the
/// default categories are marked default, every category stays active, and GDAL reads the new
/// 64-bit column as Integer64 (the v4 rule).
@Suite struct ExpenseLifeMigrationTests {
    @Test func aVersion4FileIsMigrated() throws {
        let scratch = Scratch()
        let path = scratch.path("v4.sqlite")
        try OlderFile.make(at: path, before: "v5") { db in
            // What a v4 import left: a user with the defaults and one own category, an expense.
            try db.execute(sql: "INSERT INTO users (id) VALUES ('ann')")
            for c in GeoSpend.Category.defaults + [GeoSpend.Category(name: "Coffee", kind: .expense)] {
                try db.execute(sql: "INSERT INTO categories (user_id, kind, name) VALUES ('ann', ?, ?)", arguments: [c.kind.rawValue, c.name])
            }
            try db.execute(sql: """
                INSERT INTO expenses (id, user_id, kind, amount_minor, currency, occurred_at, occurred_ms, utc_offset_min,
                    local_date, category_id, content_hash)
                VALUES ('e1', 'ann', 'expense', 450, 'EUR', '2025-03-01T10:00:00+01:00', 1740819600000, 60, '2025-03-01',
                    (SELECT id FROM categories WHERE name = 'Coffee'), 7)
                """)
        }
        let store = try SpatiaLiteStore(path: path)
        #expect(try store.scalar("SELECT count(*) FROM expenses WHERE id = 'e1' AND created_at IS NULL AND updated_at IS NULL AND remind_at IS NULL AND remind_ms IS NULL") == 1)
        #expect(try store.column("SELECT name FROM categories WHERE is_default ORDER BY id") == GeoSpend.Category.defaults.map(\.name))
        #expect(try store.scalar("SELECT count(*) FROM categories WHERE is_active = 1") == 14)
        #expect(try store.scalar("SELECT is_default FROM categories WHERE name = 'Coffee'") == 0)
        let health = try store.checkHealth()
        #expect(health.isHealthy, "\(health.checks.filter { !$0.ok })")
        // GDAL (ogrinfo, an outside reader) sees the reminder's instant as 64-bit.
        let info = try runProgram("/usr/bin/ogrinfo", ["-so", path, "expenses"])
        #expect(info.out.contains("remind_ms: Integer64"), "\(info.out)")
    }

    /// A user created after v5 gets the defaults marked default (by import and by `categories add`).
    @Test func newUsersDefaultsAreMarked() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importExpenses(
            from: scratch.file("e.csv", "user,amount,currency,occurred_at,category\nann,1.00,EUR,2025-01-01,Coffee\n"), into: store)
        _ = try await store.addCategory(GeoSpend.Category(name: "Rent", kind: .expense), userID: "bob", icon: nil, color: nil)
        for user in ["ann", "bob"] {
            #expect(try store.column("SELECT name FROM categories WHERE user_id = '\(user)' AND is_default ORDER BY id") == GeoSpend.Category.defaults.map(\.name))
        }
        #expect(try store.scalar("SELECT count(*) FROM categories WHERE is_default = 0") == 2)  // Coffee, Rent
    }
}
