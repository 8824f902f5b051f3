import Foundation
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

/// A full disk simulated with `PRAGMA max_page_count` on the store's own write connection: the
/// import fails with `StoreError.diskFull` naming the file, and every earlier row is still there.
@Suite struct FullDiskTests {
    @Test func importOntoAFullDiskFailsClearlyAndKeepsThePreviousData() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importStores(from: Repo.path("Data/helsinki-places.geojson"), into: store)
        _ = try await Importer.importExpenses(from: Repo.path("Data/sample-expenses.csv"), into: store)
        let before = try store.readHere { try $0.counts() }
        let totals = try store.column("SELECT currency || ' ' || sum(amount_minor) FROM expenses GROUP BY currency ORDER BY 1")

        // 20,000 more expenses need far more than 64 more pages (4 KiB each).
        var csv = "id,user,amount,currency,occurred_at,lat,lon\n"
        for i in 0..<20_000 { csv += "big\(i),user\(i % 7),\(i % 90 + 1).25,EUR,2025-05-01T12:00:00+03:00,60.1\(i % 1000),24.9\(i % 997)\n" }
        let big = scratch.file("big.csv", csv)
        try await store.pool.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count")!
            _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(pages + 64)")
        }
        await #expect(throws: StoreError.diskFull(path: store.path)) {
            _ = try await Importer.importExpenses(from: big, into: store)
        }
        #expect("\(StoreError.diskFull(path: store.path))".hasPrefix("\(store.path): disk full"))
        #expect(try store.readHere { try $0.counts() } == before)
        #expect(try store.column("SELECT currency || ' ' || sum(amount_minor) FROM expenses GROUP BY currency ORDER BY 1") == totals)
        let health = try store.checkHealth()  // integrity_check, CheckSpatialIndex, …
        #expect(health.isHealthy, "\(health.checks.filter { !$0.ok })")
        // With room again, the same import goes through.
        try await store.pool.writeWithoutTransaction { db in _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = 4294967294") }
        #expect(try await Importer.importExpenses(from: big, into: store).inserted == 20_000)
    }
}
