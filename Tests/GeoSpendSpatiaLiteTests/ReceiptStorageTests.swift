import Foundation
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import Testing

/// `ReceiptStore` on a real SpatiaLite file: the expense and the price records in one
/// transaction. The failing entry is one the products table's own CHECK refuses (a name over
/// 4,096 characters), so the failure happens after the expense row is written.
@Suite struct ReceiptStorageTests {
    @Test func aReceiptIsStoredWhollyOrNotAtAll() async throws {
        let scratch = Scratch()
        let store = try await PriceStorageTests.stores(scratch)
        let eur = try Currency(code: "EUR")
        let at = try Timestamp(parsing: "2026-03-05T10:00:00+02:00")
        let expense = Expense(
            id: "receipt-1", userID: "ann", amount: try Money(parsing: "3.00", currency: eur), occurredAt: at,
            location: ExpenseLocation(coordinate: try Coordinate(latitude: 60.17, longitude: 24.94)), storeID: "s1")
        let good = try PriceStorageTests.entry("Milch", "1.00"), bad = try PriceStorageTests.entry(String(repeating: "x", count: 5000), "2.00")

        await #expect(throws: (any Error).self) { try await store.saveReceipt(expense, prices: [good, bad]) }
        let afterFailure = try await store.read { reader in try reader.spendingPoints(ExpenseFilter(userID: "ann")).count }
        #expect(afterFailure == 0)
        #expect(try await store.priceRecords(PriceQuery()).isEmpty)

        let outcomes = try await store.saveReceipt(expense, prices: [good])
        #expect(outcomes.count == 1)
        let stored = try await store.read { reader in try reader.spendingPoints(ExpenseFilter(userID: "ann")).map(\.storeID) }
        #expect(stored == ["s1"])
        #expect(try await store.priceRecords(PriceQuery()).map(\.product.name) == ["Milch"])
    }
}
