import Foundation
import Testing

@testable import GeoSpend

/// The cheapest basket (issue 18): hand examples for each rule, then 60 generated cases against a
/// brute force written separately in Python (Tests/validators/prices_oracle.py, its header says
/// how the fixture Tests/Fixtures/prices/basket.json was made).
@Suite struct BasketTests {
    static let eur = try! Currency(code: "EUR")
    static let home = Coordinate(uncheckedLatitude: 60.1699, longitude: 24.9384)

    static func store(_ id: String, _ lat: Double = 60.1699, _ lon: Double = 24.9384) -> Store {
        Store(id: id, name: "Store \(id)", kind: "shop:supermarket", coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon))
    }

    static func record(
        _ product: String, _ store: String, _ price: String, day: String = "2025-06-01", ms: Int64 = 0, pack: String = "1",
        user: String? = nil, currency: String = "EUR"
    ) -> PriceObservation {
        let d = try! LocalDay(parsing: day)
        return PriceObservation(
            productID: product, storeID: store, price: try! Money(parsing: price, currency: Currency(code: currency)),
            pack: try! PackSize(parsing: pack), day: d, instantMilliseconds: d.dayNumber * 86_400_000 + ms, userID: user)
    }

    /// A record of the Python fixtures (Tests/validators/prices_oracle.py).
    static func observation(_ r: [String: Any]) -> PriceObservation {
        PriceObservation(
            productID: r["product"] as! String, storeID: r["store"] as! String,
            price: try! Money(parsing: r["price"] as! String, currency: Currency(code: r["currency"] as! String)),
            pack: try! PackSize(parsing: r["pack"] as! String), day: try! LocalDay(parsing: r["date"] as! String),
            instantMilliseconds: (r["ms"] as! NSNumber).int64Value, userID: r["user"] as? String)
    }

    static func items(_ specs: String...) -> [BasketItem] {
        specs.map { spec in
            let (name, want) = try! BasketItem.parseSpec(spec)
            return BasketItem(name: name, productID: name.lowercased(), want: want)
        }
    }

    static func run(
        _ items: [BasketItem], _ records: [PriceObservation], _ stores: [Store], asOf: String = "2025-06-30",
        _ adjust: (inout BasketRequest) -> Void = { _ in }
    ) -> BasketResult {
        var request = BasketRequest(items: items, asOf: try! LocalDay(parsing: asOf))
        adjust(&request)
        return try! Basket.compute(request, observations: records, stores: Dictionary(uniqueKeysWithValues: stores.map { ($0.id, $0) }))
    }

    /// The seed's rule: latest record on or before the as-of day, 85 % availability, ties by id, top 3.
    @Test func seedRule() {
        let stores = ["a", "b", "c", "d", "e"].map { Self.store($0) }
        let records = [
            // a: milk twice; the later one (1.10) counts, the one after the as-of day does not.
            Self.record("milk", "a", "1.50", day: "2025-06-01"), Self.record("milk", "a", "1.10", day: "2025-06-20"),
            Self.record("milk", "a", "0.10", day: "2025-07-01"), Self.record("bread", "a", "2.00"),
            // b and c tie at 3.10: b first by id.
            Self.record("milk", "c", "1.10"), Self.record("bread", "c", "2.00"),
            Self.record("milk", "b", "1.60"), Self.record("bread", "b", "1.50"),
            // d has only milk: 50 % < 85 %, dropped although cheapest.
            Self.record("milk", "d", "0.50"),
            // e is the most expensive: fourth, cut by the top 3.
            Self.record("milk", "e", "3.00"), Self.record("bread", "e", "3.00"),
        ]
        let r = Self.run(Self.items("Milk", "Bread"), records, stores)
        #expect(r.stores.map(\.store.id) == ["a", "b", "c"])
        #expect(r.stores.map(\.totalMinor) == [310, 310, 310])
        #expect(r.candidates == 5)
        #expect(r.stores[0].itemPrices.map(\.minor) == [110, 200])
    }

    @Test func quantitiesMultiplyAndAmountsUseUnitPrices() {
        let stores = [Self.store("a"), Self.store("b"), Self.store("c")]
        let records = [
            Self.record("milk", "a", "1.00", pack: "1l"), Self.record("milk", "b", "0.60", pack: "0.5l"),
            Self.record("milk", "c", "1.10", pack: "1l"),
        ]
        // 2 packs: the packs differ (1 l at a and c, 0.5 l at b), so 2 × the most common pack
        // (1 l) = 2 l, priced per l: a 2.00, c 2.20, b 2.40 (not b's 1.20 for two small packs).
        let count = Self.run(Self.items("Milk=2"), records, stores)
        #expect(count.stores.map(\.store.id) == ["a", "c", "b"])
        #expect(count.stores.map(\.totalMinor) == [200, 220, 240])
        // 1.5 l: a 1.50, c 1.65, b 0.60 × 3 = 1.80.
        let amount = Self.run(Self.items("Milk=1.5l"), records, stores)
        #expect(amount.stores.map(\.store.id) == ["a", "c", "b"])
        #expect(amount.stores.map(\.totalMinor) == [150, 165, 180])
        // A kg amount of a product sold per l cannot be priced.
        #expect(Self.run(Self.items("Milk=1kg"), records, stores).stores.isEmpty)
    }

    @Test func radiusAndTravelCost() {
        // b is 0.01° of latitude north (≈ 1,113 m), c ≈ 5.6 km: outside a 3 km radius.
        let stores = [Self.store("a", 60.1699 + 0.02), Self.store("b", 60.1799), Self.store("c", 60.2199)]
        let records = [Self.record("milk", "a", "1.00"), Self.record("milk", "b", "1.20"), Self.record("milk", "c", "0.10")]
        let r = Self.run(Self.items("Milk"), records, stores) {
            $0.near = Self.home
            $0.radius = .meters(3000)
            $0.costPerKmMinor = 30
        }
        #expect(r.stores.map(\.store.id) == ["b", "a"])
        let db = Geodesic.distance(Self.home, stores[1].coordinate)
        #expect(r.stores[0].distanceMeters == db)
        #expect(r.stores[0].travelMinor == Int64((30 * 2 * db / 1000).rounded(.toNearestOrAwayFromZero)))
        // Without a cost per km the seed's order stands.
        #expect(Self.run(Self.items("Milk"), records, stores) { $0.near = Self.home; $0.radius = .meters(3000) }.stores.map(\.store.id) == ["a", "b"])
    }

    @Test func twoStoreSplitWhenItSavesMoreThanTheTrip() {
        let stores = [Self.store("a", 60.1709), Self.store("b", 60.1689)]
        let records = [
            Self.record("milk", "a", "1.00"), Self.record("bread", "a", "5.00"),
            Self.record("milk", "b", "4.00"), Self.record("bread", "b", "2.00"),
        ]
        let cheap = Self.run(Self.items("Milk", "Bread"), records, stores) { $0.near = Self.home; $0.costPerKmMinor = 10 }
        let split = try! #require(cheap.split)
        #expect([split.first.id, split.second.id] == ["a", "b"])
        #expect(split.totalMinor == 300)
        #expect(split.itemPrices.map(\.storeID) == ["a", "b"])
        let trip = Geodesic.distance(Self.home, stores[0].coordinate) + Geodesic.distance(stores[0].coordinate, stores[1].coordinate)
            + Geodesic.distance(stores[1].coordinate, Self.home)
        #expect(split.tripMeters == trip)
        #expect(split.savingMinor == cheap.stores[0].totalWithTravelMinor - split.totalWithTravelMinor)
        // At 100 € per km the split's longer trip (≈ 446 m against ≈ 222 m) costs more than the 3.00 saved.
        let dear = Self.run(Self.items("Milk", "Bread"), records, stores) { $0.near = Self.home; $0.costPerKmMinor = 10_000 }
        #expect(dear.split == nil)
    }

    @Test func missingItemsAtTheirMedianElsewhere() {
        let stores = ["a", "b", "c", "d"].map { Self.store($0) }
        var records: [PriceObservation] = []
        for (i, s) in ["a", "b", "c", "d"].enumerated() {
            for p in ["p1", "p2", "p3", "p4", "p5", "p6", "p7"] { records.append(Self.record(p, s, "1.00")) }
            if s != "a" { records.append(Self.record("p8", s, "\(2 + i).00")) }  // b 3.00, c 4.00, d 5.00
        }
        // a lacks p8 (7/8 = 87.5 % ≥ 85 %): the seed ranks it first at 7.00; priced at the median
        // of 3, 4 and 5 it is 11.00, more than b's 10.00.
        let r = Self.run(Self.items("P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"), records, stores)
        #expect(r.stores.map(\.store.id) == ["a", "b", "c"])
        #expect(r.stores[0].estimatedTotalMinor == 1100)
        #expect(r.stores[0].unavailable == ["P8"])
        #expect(r.bestByEstimate?.store.id == "b")
    }

    @Test func crowdRuleAndCurrency() {
        let stores = [Self.store("a"), Self.store("b")]
        let records = [
            Self.record("milk", "a", "1.00", user: "u1"), Self.record("milk", "a", "1.10", day: "2025-06-02", user: "u2"),
            Self.record("milk", "b", "0.90", user: "u1"), Self.record("milk", "b", "0.95", user: "u1"),
            Self.record("milk", "b", "9.00", user: "u3", currency: "SEK"),
        ]
        let crowd = Self.run(Self.items("Milk"), records, stores) { $0.minUsers = 2 }
        #expect(crowd.stores.map(\.store.id) == ["a"])  // b's price comes from one user only
        #expect(crowd.stores[0].totalMinor == 110)
        #expect(crowd.otherCurrencies.map(\.currency) == ["SEK"])
        let sek = Self.run(Self.items("Milk"), records, stores) { $0.currency = try! Currency(code: "SEK") }
        #expect(sek.stores.map(\.store.id) == ["b"])
        #expect(sek.currency?.code == "SEK")
    }

    @Test func itemSpecs() throws {
        #expect(try BasketItem.parseSpec("Milch").want == .packs(1))
        #expect(try BasketItem.parseSpec("Milch=3").want == .packs(3))
        #expect(try BasketItem.parseSpec("Milch 1,5%=2").name == "Milch 1,5%")
        #expect(try BasketItem.parseSpec("Äpfel=1.5kg").want == .amount(PackSize(dimension: .mass, thousandths: 1_500_000)))
        #expect(throws: ValueError.self) { try BasketItem.parseSpec("Milch=zwei") }
        #expect(throws: ValueError.self) { try BasketItem.parseSpec("=2") }
        #expect(throws: ValueError.self) { try BasketItem.parseSpec("Milch=0") }
    }

    /// 60 generated cases against the Python brute force.
    @Test func agreesWithBruteForce() throws {
        let fixture = try Fixtures.json("Tests/Fixtures/prices/basket.json")
        let cases = try #require(fixture["cases"] as? [[String: Any]])
        #expect(cases.count == 60)
        var compared = 0
        for c in cases {
            let name = c["name"] as! String
            let stores = (c["stores"] as! [[String: Any]]).map {
                Store(id: $0["id"] as! String, name: $0["name"] as? String, coordinate: Coordinate(uncheckedLatitude: $0["lat"] as! Double, longitude: $0["lon"] as! Double))
            }
            let records = (c["records"] as! [[String: Any]]).map(Self.observation)
            let items = (c["items"] as! [[String: Any]]).map { i in
                BasketItem(name: i["name"] as! String, productID: i["product"] as! String, want: try! BasketItem.parseSpec("x=" + (i["want"] as! String)).want)
            }
            var request = BasketRequest(items: items, asOf: try LocalDay(parsing: c["as_of"] as! String))
            if let near = c["near"] as? [Double] { request.near = Coordinate(uncheckedLatitude: near[0], longitude: near[1]) }
            if let r = c["radius_m"] as? Double { request.radius = .meters(r) }
            request.costPerKmMinor = (c["cost_per_km_minor"] as? NSNumber)?.int64Value
            request.minUsers = c["min_users"] as! Int
            request.minAvailability = c["min_availability"] as! Double
            request.currency = (c["currency"] as? String).map { try! Currency(code: $0) }
            let got = try Basket.compute(request, observations: records, stores: Dictionary(uniqueKeysWithValues: stores.map { ($0.id, $0) }))

            let expected = c["expected"] as! [String: Any]
            #expect(got.currency?.code == expected["currency"] as? String, "\(name)")
            let lines = expected["stores"] as! [[String: Any]]
            #expect(got.stores.map(\.store.id) == lines.map { $0["id"] as! String }, "\(name)")
            for (g, e) in zip(got.stores, lines) {
                #expect(g.totalMinor == (e["total_minor"] as! NSNumber).int64Value, "\(name) \(g.store.id)")
                #expect(g.travelMinor == (e["travel_minor"] as! NSNumber).int64Value, "\(name) \(g.store.id)")
                #expect(g.estimatedTotalMinor == (e["estimated_total_minor"] as! NSNumber).int64Value, "\(name) \(g.store.id)")
                #expect(g.unavailable == e["unavailable"] as! [String], "\(name) \(g.store.id)")
                let prices = e["item_prices"] as! [String: NSNumber]
                #expect(Dictionary(uniqueKeysWithValues: g.itemPrices.map { ($0.name, $0.minor) }) == prices.mapValues(\.int64Value), "\(name) \(g.store.id)")
                compared += 1
            }
            #expect(got.bestByEstimate?.store.id == expected["best_by_estimate"] as? String, "\(name)")
            let split = expected["split"] as? [String: Any]
            #expect(got.split?.first.id == split?["first"] as? String, "\(name)")
            #expect(got.split?.second.id == split?["second"] as? String, "\(name)")
            #expect(got.split?.totalMinor == (split?["total_minor"] as? NSNumber)?.int64Value, "\(name)")
            #expect(got.split?.travelMinor == (split?["travel_minor"] as? NSNumber)?.int64Value, "\(name)")
            #expect(got.split?.savingMinor == (split?["saving_minor"] as? NSNumber)?.int64Value, "\(name)")
        }
        #expect(compared > 50)
    }
}
