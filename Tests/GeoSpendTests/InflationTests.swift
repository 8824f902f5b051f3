import Foundation
import Testing

@testable import GeoSpend

/// Inflation (issue 18): the seed's formula by hand, k = 1 for 2 ≤ n < 4, the category's
/// weighting, the window and place filters; then 40 generated cases against the Python
/// computation in Tests/validators/prices_oracle.py (fixture Tests/Fixtures/prices/inflation.json).
@Suite struct InflationTests {
    static func record(_ product: String, _ day: String, _ price: String, store: String = "s", pack: String = "1", ms: Int64 = 0) -> PriceObservation {
        BasketTests.record(product, store, price, day: day, ms: ms, pack: pack)
    }

    static func rate(_ records: [PriceObservation], products: Set<String> = ["milk"], asOf: String = "2025-12-31", days: Int64 = 365,
        stores: Set<String>? = nil) -> InflationResult {
        var request = InflationRequest(products: products, asOf: try! LocalDay(parsing: asOf))
        request.days = days
        request.storeIDs = stores
        return Inflation.compute(request, observations: records)
    }

    @Test func seedFormula() {
        // 8 records: k = 2; first two 1.00 and 1.20 (mean 1.10), last two 1.30 and 1.45 (mean 1.375): +25 %.
        let prices = ["1.00", "1.20", "5.00", "5.00", "5.00", "5.00", "1.30", "1.45"]
        let records = prices.enumerated().map { Self.record("milk", "2025-0\($0.offset + 1)-10", $0.element) }
        let r = Self.rate(records.reversed())  // input order does not matter: sorted by date
        #expect(abs(r.ratePercent - 25) < 1e-9)
        #expect(r.records == 8)
        #expect(r.firstWindow?.records == 2)
        #expect(r.firstWindow?.from.description == "2025-01-10")
        #expect(r.lastWindow?.to.description == "2025-08-10")
    }

    @Test func fewRecords() {
        #expect(Self.rate([]).ratePercent == 0)
        #expect(Self.rate([Self.record("milk", "2025-03-01", "1.00")]).ratePercent == 0)
        // n = 2 and 3: k = 1, the first record against the last (the seed divides by zero).
        #expect(abs(Self.rate([Self.record("milk", "2025-03-01", "1.00"), Self.record("milk", "2025-04-01", "1.10")]).ratePercent - 10) < 1e-9)
        let three = [Self.record("milk", "2025-03-01", "2.00"), Self.record("milk", "2025-04-01", "9.00"), Self.record("milk", "2025-05-01", "1.00")]
        #expect(abs(Self.rate(three).ratePercent + 50) < 1e-9)
    }

    @Test func windowUnitPricesAndPlace() {
        let records = [
            Self.record("milk", "2024-12-30", "9.00"),  // before the 365-day window
            Self.record("milk", "2025-01-01", "1.00", pack: "1l"),
            Self.record("milk", "2025-06-01", "0.60", pack: "0.5l"),  // 1.20 per l
            Self.record("milk", "2025-07-01", "0.10", store: "elsewhere"),
            Self.record("milk", "2026-01-01", "9.00"),  // after the as-of day
        ]
        let r = Self.rate(records, stores: ["s"])
        #expect(r.records == 2)
        #expect(abs(r.ratePercent - 20) < 1e-9)
    }

    /// Butter (2.50 a pack, +10 %, 4 records) and cheese (20.00, 0 %, 2 records): the raw average
    /// across products would read the mix; the category weighs each product's own rate by its records.
    @Test func categoryWeightsProductRates() {
        let records = [
            Self.record("butter", "2025-01-01", "2.50"), Self.record("butter", "2025-02-01", "2.50"),
            Self.record("butter", "2025-03-01", "2.75"), Self.record("butter", "2025-04-01", "2.75"),
            Self.record("cheese", "2025-01-15", "20.00"), Self.record("cheese", "2025-03-15", "20.00"),
            Self.record("lonely", "2025-03-15", "1.00"),
        ]
        let r = Self.rate(records, products: ["butter", "cheese", "lonely"])
        #expect(abs(r.ratePercent - (4 * 10.0 + 2 * 0) / 6) < 1e-9)
        #expect(r.records == 7)
        #expect(r.products.map(\.productID) == ["butter", "cheese", "lonely"])
        // The seed's raw averaging: first k = 1 of 7 sorted is butter 2.50, last is butter 2.75
        // — by luck +10 %; move cheese last and it reads +700 %. Ours does not move:
        let moved = records.map { $0.productID == "cheese" && $0.day.description == "2025-03-15" ? Self.record("cheese", "2025-05-15", "20.00") : $0 }
        #expect(abs(Self.rate(moved, products: ["butter", "cheese", "lonely"]).ratePercent - r.ratePercent) < 1e-9)
    }

    @Test func agreesWithPython() throws {
        let fixture = try Fixtures.json("Tests/Fixtures/prices/inflation.json")
        let cases = try #require(fixture["cases"] as? [[String: Any]])
        #expect(cases.count == 40)
        for c in cases {
            let records = (c["records"] as! [[String: Any]]).map(BasketTests.observation)
            var request = InflationRequest(products: Set(c["products"] as! [String]), asOf: try LocalDay(parsing: c["as_of"] as! String))
            request.days = (c["days"] as! NSNumber).int64Value
            let got = Inflation.compute(request, observations: records)
            let expected = c["expected"] as! [String: Any]
            let name = c["name"] as! String
            #expect(abs(got.ratePercent - (expected["rate_percent"] as! Double)) < 1e-9, "\(name)")
            #expect(got.records == expected["records"] as! Int, "\(name)")
            let products = expected["products"] as! [String: [String: Any]]
            #expect(Set(got.products.map(\.productID)) == Set(products.keys), "\(name)")
            for p in got.products {
                #expect(abs(p.ratePercent - (products[p.productID]!["rate_percent"] as! Double)) < 1e-9, "\(name) \(p.productID)")
            }
        }
    }
}
