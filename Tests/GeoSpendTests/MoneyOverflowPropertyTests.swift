import Foundation
import PropertyBased
import Testing

@testable import GeoSpend

/// Issue 35 (hardening round 2), item 1 and its class: every parser and calculator that adds or
/// multiplies money or counts from input, fed the extremes (the largest amount, thousands of
/// lines, huge quantities, zero, negative, malformed): a value within the cap or a thrown error,
/// never a trap. A trap ends the whole test run, so each check here fails by crashing without
/// the fixes.
@Suite struct MoneyOverflowPropertyTests {
    static let eur = try! Currency(code: "EUR")
    static let cap = Money.maximumMinorUnits

    // MARK: receipts

    /// The attack as reported: 9,300 lines of 10^13 EUR (the cap) trapped in the items' sum.
    @Test func receiptOfThousandsOfLargestAmountsStaysAtTheCap() {
        let lines = (1...9_300).map { "Item\($0) 10000000000000,00" }
        let r = ReceiptText.parse("Big Store\n" + lines.joined(separator: "\n") + "\nSUMME 10000000000000,00\n", currency: Self.eur)
        #expect(r.items.count == 1)
        #expect(r.itemsSumMinor == Self.cap)
        #expect(r.unread.count == 9_299)
        #expect(r.unread.first?.reason?.contains("more than 10000000000000.00 EUR, the largest amount GeoSpend stores") == true)
        #expect(r.sumMatches)
        #expect(r.sumCheck.contains("10000000000000.00"))
    }

    /// Any receipt of extreme lines (the largest amount, zero, negative, huge counts, yen and
    /// fils): the items' sum is exact, at most the cap, and every line is an item, unread or the
    /// store; unit prices and the sum check compute.
    @Test func receiptsOfExtremeLinesNeverTrap() async {
        let amount = Gen<Int64>.frequency([
            (weight: 2, gen: Boundary.minorUnits.eraseToAny()),
            (weight: 1, gen: Boundary.pick([0, -1, -Self.cap, Int64.max / 1000] as [Int64])),
        ])
        let count = Boundary.pick([1, 2, 3, 99_999, 100_000, 999_999, 1_000_000, 9_999_999_999])
        let line = zip(count, amount)
        await propertyCheck(count: 300, input: Boundary.currency, line.array(of: 0...400)) { currency, lines in
            var text = "Store\n"
            for (n, minor) in lines {
                text += "\(n)x Item \(Money.decimalString(minor, digits: currency.minorDigits))\n"
            }
            let r = ReceiptText.parse(text + "TOTAL \(Money.decimalString(Self.cap, digits: currency.minorDigits))\n", currency: currency)
            #expect(r.itemsSumMinor == r.items.reduce(0) { $0 + $1.price.minorUnits })
            #expect(r.itemsSumMinor <= Self.cap)
            #expect(r.items.count + r.unread.count == lines.count)
            for item in r.items {
                #expect(item.price.minorUnits > 0 && item.unitPrice.minorUnits <= item.price.minorUnits)
            }
            #expect(!r.sumCheck.isEmpty)
        }
    }

    // MARK: basket

    static let stores = [
        Store(id: "a", name: "A", coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)),
        Store(id: "b", name: "B", coordinate: Coordinate(uncheckedLatitude: -33.9, longitude: 151.2)),
        Store(id: "c", name: "C", coordinate: Coordinate(uncheckedLatitude: 89.9, longitude: -179.9)),
    ]

    static func observation(_ store: String, _ product: String, _ minor: Int64, _ pack: PackSize) -> PriceObservation {
        PriceObservation(
            productID: product, storeID: store, price: Money(minorUnits: minor, currency: eur), pack: pack, day: LocalDay(dayNumber: 20_000),
            instantMilliseconds: 0)
    }

    /// The attack as reported: a cost per km at the cap, a home 6,600 km from the store.
    @Test func costPerKmAtTheCapIsAnError() throws {
        var request = BasketRequest(items: [BasketItem(name: "Bread", productID: "p")], asOf: LocalDay(dayNumber: 20_001))
        request.near = Coordinate(uncheckedLatitude: 0, longitude: 0)
        request.costPerKmMinor = Self.cap
        let records = [Self.observation("a", "p", 200, .onePiece)]
        #expect(throws: ValueError.self) {
            try Basket.compute(request, observations: records, stores: ["a": Self.stores[0]])
        }
        request.costPerKmMinor = 30
        #expect(try Basket.compute(request, observations: records, stores: ["a": Self.stores[0]]).stores.count == 1)
    }

    /// Items at the cap, many of them or in huge quantities: the sum passes the cap, an error.
    @Test func basketTotalsAboveTheCapAreErrors() throws {
        let items = (0..<3).map { BasketItem(name: "P\($0)", productID: "p\($0)") }
        let records = (0..<3).map { Self.observation("a", "p\($0)", Self.cap, .onePiece) }
        #expect(throws: ValueError.self) {
            try Basket.compute(BasketRequest(items: items, asOf: LocalDay(dayNumber: 20_001)), observations: records, stores: ["a": Self.stores[0]])
        }
        let many = [BasketItem(name: "P0", productID: "p0", want: .packs(1_000_000))]
        #expect(throws: ValueError.self) {
            try Basket.compute(BasketRequest(items: many, asOf: LocalDay(dayNumber: 20_001)), observations: records, stores: ["a": Self.stores[0]])
        }
    }

    /// Any basket of extreme prices, packs, quantities, costs per km and homes: a result whose
    /// every total is within the cap, or a `ValueError`.
    @Test func basketsOfExtremesNeverTrap() async {
        let pack = Boundary.pick([
            PackSize.onePiece, PackSize(dimension: .count, thousandths: 1), PackSize(dimension: .count, thousandths: Int64(1) << 62),
            PackSize(dimension: .count, thousandths: 500), PackSize(dimension: .mass, thousandths: 1_000_000),
        ])
        let want = Boundary.pick([
            BasketItem.Want.packs(1), .packs(2), .packs(1_000_000), .amount(PackSize(dimension: .count, thousandths: 1)),
            .amount(PackSize(dimension: .count, thousandths: 1_000_000_000_000)), .amount(PackSize(dimension: .mass, thousandths: 1500)),
        ])
        let record = zip(Boundary.pick(["a", "b", "c"]), Boundary.pick(["p0", "p1", "p2"]), Boundary.minorUnits, pack)
            .map { t in Self.observation(t.0, t.1, t.2, t.3) }
        let cost = Gen<Int64?>.frequency([
            (weight: 1, gen: Boundary.pick([nil, 1, 30, Self.cap] as [Int64?])),
            (weight: 1, gen: Boundary.minorUnits.map { Optional($0) }.eraseToAny()),
        ])
        await propertyCheck(count: 400, input: record.array(of: 0...12), want.array(of: 3), cost, Boundary.coordinate) {
            records, wants, costPerKm, home in
            var request = BasketRequest(
                items: wants.enumerated().map { BasketItem(name: "P\($0)", productID: "p\($0)", want: $1) }, asOf: LocalDay(dayNumber: 20_001))
            request.costPerKmMinor = costPerKm
            request.near = costPerKm == nil ? nil : home
            request.minAvailability = 0.3
            do {
                let r = try Basket.compute(request, observations: records, stores: Dictionary(uniqueKeysWithValues: Self.stores.map { ($0.id, $0) }))
                for line in r.stores + [r.bestByEstimate].compactMap({ $0 }) {
                    #expect(line.totalMinor <= Self.cap && line.travelMinor <= Self.cap && line.estimatedTotalMinor <= Self.cap)
                    #expect(line.itemPrices.allSatisfy { $0.minor >= 0 && $0.minor <= Self.cap })
                }
                if let s = r.split { #expect(s.totalMinor <= Self.cap && s.travelMinor <= Self.cap) }
            } catch {
                #expect("\(error)".contains("more than 10000000000000.00 EUR"), "\(error)")
            }
        }
    }

    /// A missing item's estimate is the median of its prices at the other stores: 10,000 of them
    /// at the cap passed Int64 in `AmountStatistics`'s total; the median alone is computed the same.
    @Test func medianOfPricesNeedsNoTotal() async {
        #expect(AmountStatistics.medianMinor(Array(repeating: Self.cap, count: 10_000)) == Self.cap)
        #expect(AmountStatistics.medianMinor([Self.cap, Self.cap - 1]) == Self.cap)
        await propertyCheck(count: 500, input: Boundary.minorUnits.array(of: 1...40)) { amounts in
            #expect(AmountStatistics.medianMinor(amounts) == AmountStatistics(minorUnits: amounts, currency: Self.eur).median.minorUnits)
        }
    }

    /// Price records of absurd quantities (1e300 g) read as observations: clamped, not trapped.
    @Test func priceRecordQuantitiesBeyondInt64AreClamped() {
        #expect(PriceObservation.thousandths(1e300) == Int64(1) << 62)
        #expect(PriceObservation.thousandths(.infinity) == Int64(1) << 62)
        #expect(PriceObservation.thousandths(0.0001) == 1)
        #expect(PriceObservation.thousandths(1500) == 1500)
    }

    // MARK: shopping lists

    /// Adding an item again adds its quantity: checked, an error past Int64.
    @Test func listQuantitiesAddCheckedAtTheExtremes() async {
        let quantity = Boundary.pick([
            BasketItem.Want.packs(1), .packs(1_000_000), .packs(Int64.max), .packs(Int64.max - 1),
            .amount(PackSize(dimension: .mass, thousandths: Int64.max)), .amount(PackSize(dimension: .mass, thousandths: 1)),
        ])
        await propertyCheck(count: 200, input: quantity, quantity) { a, b in
            let list = ShoppingList(id: 1, userID: "u", name: "L", budget: Money(minorUnits: 1, currency: Self.eur), items: [ShoppingListItem(name: "Milch", want: a)])
            do {
                let added = try list.adding(ShoppingListItem(name: "milch", want: b))
                switch (a, b, added.items[0].want) {
                case (.packs(let x), .packs(let y), .packs(let z)): #expect(z == x + y)
                case (.amount(let x), .amount(let y), .amount(let z)): #expect(z.thousandths == x.thousandths + y.thousandths)
                default: Issue.record("\(a) + \(b) gave \(added.items[0].want)")
                }
            } catch {
                #expect("\(error)".contains("largest quantity") || "\(error)".contains("same kind of quantity"), "\(error)")
            }
        }
    }
}
