import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// Overall inflation (seed 003 L1056: neither product nor category) and top products by
/// spending (issue 38), on the file, the memory store and PostgreSQL. The expected rate is computed here,
/// independently of `Inflation`: the seed's per-product rate written out again, weighted by
/// each product's number of records; the spending totals are written by hand.
@Suite struct OverallInflationContractTests {
    typealias Kind = PriceStoreContractTests.Kind

    /// Three products of ann's over a year, one of bob's; one record in USD.
    static func make(_ kind: Kind, _ scratch: Scratch) async throws -> any PriceStoreContractTests.PriceDatabase {
        let store = try await PriceStoreContractTests.make(kind, scratch)
        let milk = ["1.00", "1.10", "1.20", "1.30", "1.40", "1.50", "1.60", "1.70"]  // n 8, k 2
        let bread = ["2.00", "2.00", "2.60"]  // n 3, k 1
        var entries = try milk.enumerated().map { n, p in
            try PriceStorageTests.entry("Milk", p, at: "2025-\(String(format: "%02d", n + 1))-10", unit: .l)
        }
        entries += try bread.enumerated().map { n, p in try PriceStorageTests.entry("Bread", p, at: "2025-0\(n + 2)-15") }
        entries.append(try PriceStorageTests.entry("Tea", "3.00", at: "2025-05-01"))  // n 1: no rate, no weight
        var usd = try PriceStorageTests.entry("Milk", "9.99", at: "2025-06-11", unit: .l)
        usd.price = Money(minorUnits: 999, currency: try Currency(code: "USD"))
        entries.append(usd)
        _ = try await store.savePrices(entries, userID: "ann")
        _ = try await store.savePrices([try PriceStorageTests.entry("Milk", "5.00", at: "2025-03-01", unit: .l)], userID: "bob")
        return store
    }

    /// The seed's rate, written out independently: sort by day, k = n / 4 (at least 1 here),
    /// (mean of the last k − mean of the first k) / mean of the first k × 100.
    static func seedRate(_ prices: [Double]) -> Double {
        let k = max(1, prices.count / 4)
        let first = prices.prefix(k).reduce(0, +) / Double(k), last = prices.suffix(k).reduce(0, +) / Double(k)
        return (last - first) / first * 100
    }

    @Test(arguments: Kind.allCases)
    func overallRateWeightsEachProductsRateByItsRecords(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        var query = InflationQuery()
        (query.userID, query.asOf, query.days) = ("ann", "2025-12-31", 365)
        let (result, names) = try await query.compute(in: store)
        let milk = Self.seedRate([1.00, 1.10, 1.20, 1.30, 1.40, 1.50, 1.60, 1.70]), bread = Self.seedRate([2.00, 2.00, 2.60])
        #expect(abs(milk - (1.65 - 1.05) / 1.05 * 100) < 1e-9)
        #expect(abs(bread - 30) < 1e-9)
        let expected = (8 * milk + 3 * bread) / 11
        #expect(abs(result.ratePercent - expected) < 1e-9, "\(result.ratePercent) vs \(expected)")
        #expect(result.currency?.code == "EUR" && result.records == 12, "EUR, the most common; USD left out; bob's not counted")
        #expect(result.products.map { names[Int64($0.productID)!] ?? "?" } == ["Milk", "Bread", "Tea"])
        // Every user's: bob's 5.00 milk in March joins the milk's records.
        query.userID = nil
        let all = try await query.compute(in: store).result
        let milkAll = Self.seedRate([1.00, 1.10, 5.00, 1.20, 1.30, 1.40, 1.50, 1.60, 1.70])
        #expect(abs(all.ratePercent - (9 * milkAll + 3 * bread) / 12) < 1e-9)
        // Both given is still refused.
        query.product = "Milk"
        query.category = "Other"
        #expect(throws: UsageError.self) { try query.validate() }
    }

    @Test(arguments: Kind.allCases)
    func topProductsBySpending(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.make(kind, scratch)
        let rows = try await PriceSpending.top(userID: "ann", from: nil, to: nil, limit: 10, store: store)
        // EUR (12 records) before USD (1): milk 10.80, bread 6.60, tea 3.00; then milk 9.99 USD.
        #expect(rows.map { "\($0.product.name) \($0.total.decimalString) \($0.total.currency.code) \($0.records)" } == [
            "Milk 10.80 EUR 8", "Bread 6.60 EUR 3", "Tea 3.00 EUR 1", "Milk 9.99 USD 1",
        ])
        let march = try await PriceSpending.top(
            userID: "ann", from: try LocalDay(parsing: "2025-03-01"), to: try LocalDay(parsing: "2025-03-31"), limit: 1, store: store)
        #expect(march.map { "\($0.product.name) \($0.total.decimalString)" } == ["Bread 2.00"], "March: milk 1.20, bread 2.00; limit 1")
        #expect(try await PriceSpending.top(userID: "bob", from: nil, to: nil, limit: 10, store: store).map(\.total.decimalString) == ["5.00"])
    }

    /// Sums are exact and checked: past Int64 is refused, not wrapped.
    @Test func aSumPastInt64IsRefused() throws {
        let eur = try Currency(code: "EUR")
        let p = Product(id: 1, name: "Gold")
        let big = PriceRecord(
            id: 1, product: p, storeID: "s", price: Money(minorUnits: Int64.max - 1, currency: eur), recordedAt: try Timestamp(parsing: "2025-01-01"),
            userID: "ann", source: .manual)
        var second = big
        second.price = Money(minorUnits: 2, currency: eur)
        #expect(throws: UsageError.self) { _ = try PriceSpending.rank([big, second], limit: 10) }
        #expect(try PriceSpending.rank([big], limit: 10).first?.total.minorUnits == Int64.max - 1)
    }
}
