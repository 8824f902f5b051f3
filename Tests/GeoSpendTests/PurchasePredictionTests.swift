import Foundation
import GeoSpend
import Testing

/// `PurchasePrediction` against an independent computation over generated purchase histories:
/// days counted by Foundation's calendar from the records' written dates, the median by
/// counting (the smallest gap with at least half the gaps at or below it, and the largest with
/// at least half at or above), the predicted day by `Calendar.date(byAdding:)`.
@Suite struct PurchasePredictionTests {
    static let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    static func date(_ ymd: String) -> Date {
        let p = ymd.split(separator: "-").map { Int($0)! }
        return calendar.date(from: DateComponents(year: p[0], month: p[1], day: p[2]))!
    }

    static func ymd(_ d: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: d)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// The oracle: (interval, predicted) for one product's record texts, or nil under 3 days.
    static func oracle(_ texts: [String]) -> (Int, String)? {
        let days = Set(texts.map { String($0.prefix(10)) }).sorted()  // the day as written, at its offset
        guard days.count >= 3 else { return nil }
        let gaps = zip(days, days.dropFirst()).map { calendar.dateComponents([.day], from: date($0), to: date($1)).day! }
        let half = gaps.count
        let lower = gaps.filter { g in gaps.filter { $0 <= g }.count * 2 >= half }.min()!
        let upper = gaps.filter { g in gaps.filter { $0 >= g }.count * 2 >= half }.max()!
        let interval = half % 2 == 1 ? lower : Int((Double(lower + upper) / 2).rounded(.down))
        return (interval, ymd(calendar.date(byAdding: .day, value: interval, to: date(days.last!))!))
    }

    @Test func theDocumentedExample() throws {
        let records = try ["2025-03-01", "2025-03-08", "2025-03-14", "2025-03-22"].map { try Self.record(1, "Milch", $0) }
        let p = try #require(PurchasePrediction.predictions(records).first)
        #expect(p.intervalDays == 7 && p.predicted.description == "2025-03-29" && p.purchases == 4)
        #expect(PurchasePrediction.message("Milch") == "You usually buy Milch around this time")
        #expect(PurchasePrediction.predictions(Array(records.prefix(2))).isEmpty, "2 purchase days predict nothing")
    }

    static func record(_ product: Int64, _ name: String, _ text: String) throws -> PriceRecord {
        PriceRecord(
            product: Product(id: product, name: name), storeID: "s", price: Money(minorUnits: 100, currency: try Currency(code: "EUR")),
            recordedAt: try Timestamp(parsing: text), userID: "ann", source: .manual)
    }

    @Test(arguments: 0..<40)
    func generatedHistoriesMatchTheOracle(seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
        var records: [PriceRecord] = []
        var texts: [Int64: [String]] = [:]
        let offsets = ["Z", "+14:00", "-11:00", "+02:00"]
        for product in Int64(1)...4 {
            var day = Self.date("2024-12-\(10 + Int(rng.next() % 15))")
            for _ in 0..<Int(rng.next() % 9) {
                // Several records on one day count once; the hour near midnight tests the local day.
                for _ in 0..<Int(1 + rng.next() % 2) {
                    let text = "\(Self.ymd(day))T\(["00:30", "12:00", "23:45"][Int(rng.next() % 3)]):00\(offsets[Int(rng.next() % 4)])"
                    texts[product, default: []].append(text)
                    records.append(try Self.record(product, "P\(product)", text))
                }
                day = Self.calendar.date(byAdding: .day, value: Int(1 + rng.next() % 40), to: day)!
            }
        }
        records.shuffle(using: &rng)
        let got = Dictionary(uniqueKeysWithValues: PurchasePrediction.predictions(records).map { ($0.productID, $0) })
        for product in Int64(1)...4 {
            let want = Self.oracle(texts[product] ?? [])
            #expect(got[product].map { "\($0.intervalDays) \($0.predicted)" } == want.map { "\($0.0) \($0.1)" },
                "seed \(seed) product \(product): \(texts[product] ?? [])")
        }
    }

    @Test func theSeedsExpiryWording() throws {
        let item = PantryItem(
            id: 4, userID: "ann", name: "Joghurt", quantity: nil, expires: try LocalDay(parsing: "2025-06-10"), status: .open,
            createdAt: "2025-06-01T00:00:00Z", closedAt: nil)
        #expect(PantryExpiry.title == "Item Expiring Soon")
        #expect(PantryExpiry.body("Joghurt") == "Joghurt will expire in 2 days. Use it soon to avoid waste!")
        #expect(item.reminderDay?.description == "2025-06-08")
        let due = try ["2025-06-07", "2025-06-08", "2025-06-09", "2025-06-10"].map { PantryExpiry.isDue(item, on: try LocalDay(parsing: $0)) }
        #expect(due == [false, true, true, false])
        var used = item
        used.status = .used
        #expect(!PantryExpiry.isDue(used, on: try LocalDay(parsing: "2025-06-08")))
    }
}
