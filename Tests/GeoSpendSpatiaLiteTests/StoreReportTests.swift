import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

@Suite struct StoreReportTests {
    static let s = Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)
    static func at(_ metres: Double) -> Coordinate { Geodesic.destination(from: s, azimuth: 45, distance: metres) }

    func fixture(_ scratch: Scratch) throws -> SpatiaLiteStore {
        let store = try scratch.store()
        let stores: [(String, String, Coordinate)] = [
            ("S", "amenity:cafe", Self.s), ("P1", "amenity:cafe", Self.at(400)), ("P2", "amenity:cafe", Self.at(900)),
            ("P3", "amenity:cafe", Self.at(2000)), ("P4", "shop:bakery", Self.at(100)), ("P5", "amenity:cafe", Self.at(300)),
        ]
        _ = try Importer.importStores(
            from: scratch.file("s.csv", "id,name,kind,lat,lon\n" + stores.map { "\($0.0),\($0.0) name,\($0.1),\($0.2.latitude),\($0.2.longitude)" }.joined(separator: "\n") + "\n"),
            into: store)
        var rows = ["user,amount,currency,occurred_at,category,store_id"]
        // S: four users, total 20.00 over 4 expenses (avg 5.00); Monday 2025-03-03 08:xx local for three users.
        rows += [
            "u1,4.00,EUR,2025-03-03T08:10:00+02:00,Food,S", "u2,6.00,EUR,2025-03-03T08:20:00+02:00,Food,S",
            "u3,5.00,EUR,2025-03-03T08:30:00+02:00,Food,S", "u4,5.00,EUR,2025-05-10T12:00:00+03:00,Shopping,S",
            "u1,300,JPY,2025-03-04T09:00:00+09:00,Food,S",  // one user in JPY: the whole section is suppressed
        ]
        for (store, amount) in [("P1", "10.00"), ("P2", "2.00"), ("P3", "50.00"), ("P4", "50.00")] {
            rows += ["u1", "u2", "u3"].map { "\($0),\(amount),EUR,2025-03-05,Food,\(store)" }
        }
        rows += ["u1,99.00,EUR,2025-03-05,Food,P5", "u2,99.00,EUR,2025-03-05,Food,P5"]  // two users: not a peer
        _ = try Importer.importExpenses(from: scratch.file("e.csv", rows.joined(separator: "\n") + "\n"), into: store)
        return store
    }

    @Test func figuresSuppressionAndPeers() throws {
        let scratch = Scratch()
        let r = try StoreReport.compute(StoreReportRequest(storeID: "S"), store: try fixture(scratch))
        #expect(r.sections.map(\.currency.code) == ["EUR", "JPY"])
        let eur = r.sections[0]
        let f = try #require(eur.figures)
        #expect(f.visitors == 4 && f.count == 4 && f.total.decimalString == "20.00" && f.average.decimalString == "5.00")
        #expect(f.median.decimalString == "5.00")
        #expect(f.firstExpense.text == "2025-03-03T08:10:00+02:00" && f.lastExpense.text == "2025-05-10T12:00:00+03:00")
        // Categories: Food has 3 users (published), Shopping 1 (suppressed).
        #expect(eur.byCategory.map(\.key) == ["Food", "Shopping"])
        #expect(eur.byCategory[0].total?.decimalString == "15.00" && eur.byCategory[1].isSuppressed)
        // Monday 08:00 local holds the three users; Saturday 12:00 one user.
        #expect(eur.weekdayHour[0][8].count == 3 && eur.weekdayHour[0][8].total?.decimalString == "15.00")
        #expect(eur.weekdayHour[5][12].isSuppressed)
        #expect(eur.weekdayHour.flatMap { $0 }.filter { !$0.isSuppressed }.count == 1)
        // Months from March to May, April empty (suppressed like any cell under 3 users).
        #expect(eur.monthly.map(\.key) == ["2025-03", "2025-04", "2025-05"])
        #expect(eur.monthly[0].count == 3 && eur.monthly[1].isSuppressed && eur.monthly[2].isSuppressed)
        // Peers: P1 (avg 10.00) and P2 (avg 2.00); P3 is too far, P4 another kind, P5 has two users.
        let c = try #require(eur.comparison)
        #expect(c.peers == 2 && c.rank == 2)
        #expect(abs(c.ratio! - 500.0 / 600.0) < 1e-12)
        #expect(c.peersAverage?.decimalString == "6.00")
        #expect(r.sections[1].figures == nil && r.sections[1].comparison == nil)
    }

    @Test func outputsNeverLeakSuppressedFigures() throws {
        let scratch = Scratch()
        let r = try StoreReport.compute(StoreReportRequest(storeID: "S"), store: try fixture(scratch))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(StoreReportOutput.json(r).serialized().utf8)) as? [String: Any])
        let yen = try #require((json["currencies"] as? [[String: Any]])?.last)
        #expect(yen["suppressed"] as? Bool == true && yen["total"] is NSNull && yen["count"] is NSNull)
        #expect((yen["by_category"] as? [[String: Any]])?.allSatisfy { $0["total"] is NSNull } == true)
        let md = StoreReportOutput.markdown(r), html = StoreReportOutput.html(r)
        #expect(!md.contains("| 300 |") && !md.contains("| Shopping | 1 |") && md.contains("| Shopping | suppressed | suppressed |"))
        #expect(!html.contains(">300<") && !html.contains("300 JPY"))
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("<svg"))
        #expect(!html.contains("<script") && !html.contains("src=") && !html.contains("href="))  // self-contained
        let other = Scratch()
        let list = try StoreListReport.compute(near: Self.s, radius: .kilometers(1), kind: "amenity:cafe", store: try fixture(other))
        #expect(list.rows.map(\.store.id) == ["P1", "S", "P2", "P5", "S"])  // EUR by total (30, 20, 6), suppressed last; then JPY
        #expect(list.rows.filter { $0.figures == nil }.map(\.store.id) == ["P5", "S"])  // P5: 2 users; S in JPY: 1
    }

    @Test func unknownStoreIsAnError() throws {
        let scratch = Scratch()
        #expect(throws: StoreReportError.unknownStore("nope")) {
            try StoreReport.compute(StoreReportRequest(storeID: "nope"), store: try scratch.store())
        }
    }
}
