import Foundation
import GeoSpend
import Testing

/// The rules of the geotag decision, each on a small hand-made history.
@Suite struct GeotaggerTests {
    static let zone = TimeZone(identifier: "Europe/Helsinki")!
    static let stores = StoreMatcherTests.stores
    /// 2026-03-05T12:00:00+02:00.
    static let noon: Int64 = 1_772_704_800

    /// A person standing at `c` from `from` to `to` seconds after noon, a fix a minute.
    static func stay(at c: Coordinate, from: Int64, to: Int64, accuracy: Double = 10) -> [Position] {
        stride(from: from, through: to, by: 60).map {
            Position(epochMilliseconds: (noon + $0) * 1000, coordinate: c, accuracyMeters: accuracy, source: .googleTimeline)
        }
    }

    static func at(_ seconds: Int64) -> Timestamp { Timestamp(epochSeconds: noon + seconds, utcOffsetMinutes: 120) }

    static func tagger(_ positions: [Position]) -> Geotagger {
        Geotagger(history: LocationHistory(positions: positions), stores: stores, timeZone: zone)
    }

    static let kamppi = stores[0].coordinate, esplanadi = stores[1].coordinate

    @Test func aChainBranchIsDecidedByTheHistory() throws {
        let t = Self.tagger(Self.stay(at: Self.esplanadi, from: 0, to: 1200))
        guard case .placed(let p) = t.decide(GeotagExpense(id: "e", occurredAt: Self.at(600), merchantText: "K-MARKET HELSINKI")) else {
            Issue.record("not placed"); return
        }
        #expect(p.storeID == "k2")
        #expect(p.source == .historyAndMerchant)
        #expect(p.confidence >= 0.9)
    }

    @Test func aChainWithoutHistoryIsNeverGuessed() {
        let t = Self.tagger([])
        guard case .ambiguous(let a) = t.decide(GeotagExpense(id: "e", occurredAt: Self.at(600), merchantText: "K-MARKET")) else {
            Issue.record("not ambiguous"); return
        }
        #expect(Set(a.candidates.map(\.storeID)) == ["k1", "k2", "k3"])
    }

    @Test func aSingleStoreWithoutHistoryIsPlacedByTheMerchantBelowHighConfidence() {
        guard case .placed(let p) = Self.tagger([]).decide(GeotagExpense(id: "e", occurredAt: Self.at(0), merchantText: "LIDL HELSINKI FI")) else {
            Issue.record("not placed"); return
        }
        #expect(p.storeID == "l1" && p.source == .merchant && p.confidence < 0.9)
    }

    @Test func incomesTransfersAndOnlineAreNeverPlaced() {
        let t = Self.tagger(Self.stay(at: Self.stores[4].coordinate, from: 0, to: 1200))
        let expenses = [
            GeotagExpense(id: "i", kind: .income, occurredAt: Self.at(600), merchantText: "LIDL"),
            GeotagExpense(id: "t", kind: .transfer, occurredAt: Self.at(600), merchantText: "LIDL"),
            GeotagExpense(id: "s", occurredAt: Self.at(600), merchantText: "PALKKA ACME OY"),
            GeotagExpense(id: "o", occurredAt: Self.at(600), merchantText: "NETFLIX.COM"),
            GeotagExpense(id: "w", occurredAt: Self.at(600), merchantText: "WOLT HELSINKI"),
            GeotagExpense(id: "r", occurredAt: Self.at(600), merchantText: "LIDL", isRecurring: true),
        ]
        let report = t.geotag(expenses)
        #expect(report.placed.isEmpty)
        #expect(report.unplaced.map(\.reason) == [.notAnExpense, .notAnExpense, .notAnExpense, .online, .online, .online])
    }

    @Test func aShopMissingFromTheRegistryIsPlacedWhereThePhoneWas() {
        let shop = Coordinate(uncheckedLatitude: 60.1720, longitude: 24.9500)
        guard case .placed(let p) = Self.tagger(Self.stay(at: shop, from: 0, to: 1200)).decide(
            GeotagExpense(id: "e", occurredAt: Self.at(600), merchantText: "SUMUP *KAHVILA SUOMI"))
        else { Issue.record("not placed"); return }
        #expect(p.storeID == nil && p.source == .history)
        #expect(Geodesic.distance(p.coordinate, shop) < 5)
    }

    @Test func positionsAreInterpolatedBetweenFixes() throws {
        let a = Coordinate(uncheckedLatitude: 60.1700, longitude: 24.9400)
        let b = Coordinate(uncheckedLatitude: 60.1710, longitude: 24.9400)
        let history = LocationHistory(positions: [
            Position(epochMilliseconds: 0, coordinate: a, accuracyMeters: 10, source: .csv),
            Position(epochMilliseconds: 600_000, coordinate: b, accuracyMeters: 20, source: .csv),
        ])
        let e = try #require(PositionEstimate.estimate(in: history, at: 150_000))
        #expect(abs(e.coordinate.latitude - 60.17025) < 1e-9)
        // 0.75·10 + 0.25·20 + 0.25·111 m walked
        #expect(abs(e.accuracyMeters - (12.5 + 0.25 * Geodesic.distance(a, b))) < 1e-6)
        #expect(PositionEstimate.estimate(in: history, at: 3_600_000) == nil)
    }

    @Test func aDateOnlyBookingUsesThatDayAndTheDayBefore() {
        // Paid at the Esplanadi branch on the 5th; the bank booked it on the 6th.
        let t = Self.tagger(Self.stay(at: Self.esplanadi, from: 0, to: 900) + Self.stay(at: Self.kamppi, from: 7 * 86_400, to: 7 * 86_400 + 900))
        guard case .placed(let p) = t.decide(GeotagExpense(id: "e", occurredAt: try! Timestamp(parsing: "2026-03-06"), merchantText: "K-MARKET")) else {
            Issue.record("not placed"); return
        }
        #expect(p.storeID == "k2")
        // Two days later nothing is near: a chain stays ambiguous.
        guard case .ambiguous = t.decide(GeotagExpense(id: "f", occurredAt: try! Timestamp(parsing: "2026-03-08"), merchantText: "K-MARKET")) else {
            Issue.record("not ambiguous"); return
        }
    }

    @Test func lowConfidencePlacementsCanBeHeldBack() {
        let report = Self.tagger([]).geotag([GeotagExpense(id: "e", occurredAt: Self.at(0), merchantText: "LIDL")])
        #expect(report.placed.count == 1)
        let held = report.filtered(minimumConfidence: 0.9)
        #expect(held.placed.isEmpty && held.ambiguous.map(\.id) == ["e"])
    }
}

extension GeotaggerTests {
    @Test func prepareLeavesPositionedExpensesAloneAndMarksSubscriptions() throws {
        let eur = try Currency(code: "EUR")
        func expense(_ id: String, _ date: String, _ merchant: String, _ minor: Int64, located: Bool = false) throws -> Expense {
            Expense(
                id: id, userID: "u", amount: Money(minorUnits: minor, currency: eur), occurredAt: try Timestamp(parsing: date), merchant: merchant,
                location: located ? ExpenseLocation(coordinate: Self.kamppi) : nil)
        }
        let expenses = [
            try expense("g1", "2026-01-04", "GYM CLUB HELSINKI", 3900), try expense("g2", "2026-02-04", "GYM CLUB HELSINKI", 3900),
            try expense("g3", "2026-03-04", "GYM CLUB HELSINKI", 3900), try expense("l1", "2026-03-05", "LIDL", 1234),
            try expense("p1", "2026-03-05", "LIDL", 999, located: true),
        ]
        let prepared = GeotagExpense.prepare(expenses)
        #expect(prepared.map(\.id) == ["g1", "g2", "g3", "l1"])
        #expect(prepared.map(\.isRecurring) == [true, true, true, false])
    }
}
