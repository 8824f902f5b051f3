import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

@Suite struct StoreReportTests {
    static let s = Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)
    static func at(_ metres: Double) -> Coordinate { Geodesic.destination(from: s, azimuth: 45, distance: metres) }

    func fixture(_ scratch: Scratch) async throws -> SpatiaLiteStore {
        let store = try scratch.store()
        let stores: [(String, String, Coordinate)] = [
            ("S", "amenity:cafe", Self.s), ("P1", "amenity:cafe", Self.at(400)), ("P2", "amenity:cafe", Self.at(900)),
            ("P3", "amenity:cafe", Self.at(2000)), ("P4", "shop:bakery", Self.at(100)), ("P5", "amenity:cafe", Self.at(300)),
        ]
        _ = try await Importer.importStores(
            from: scratch.file("s.csv", "id,name,kind,lat,lon\n" + stores.map { "\($0.0),\($0.0) name,\($0.1),\($0.2.latitude),\($0.2.longitude)" }.joined(separator: "\n") + "\n"),
            into: store)
        var rows = ["user,amount,currency,occurred_at,category,store_id"]
        // S: five users, total 25.00 over 5 expenses (avg 5.00); Monday 2025-03-03 08:xx local for three users.
        rows += [
            "u1,4.00,EUR,2025-03-03T08:10:00+02:00,Food,S", "u2,6.00,EUR,2025-03-03T08:20:00+02:00,Food,S",
            "u3,5.00,EUR,2025-03-03T08:30:00+02:00,Food,S", "u4,5.00,EUR,2025-05-10T12:00:00+03:00,Shopping,S",
            "u5,5.00,EUR,2025-04-15T17:00:00+03:00,Wartime Clinic,S",  // one user: category, month and hour unnamed
            // Shopping, May and Saturday 12:00 have two users: withheld, but with the clinic's
            // user the withheld cells of each breakdown come from three users, enough.
            "u6,5.00,EUR,2025-05-10T12:30:00+03:00,Shopping,S",
            "u1,300,JPY,2025-03-04T09:00:00+09:00,Food,S",  // one user in JPY: the currency is not named
        ]
        for (store, amount) in [("P1", "10.00"), ("P2", "2.00"), ("P3", "50.00"), ("P4", "50.00")] {
            rows += ["u1", "u2", "u3"].map { "\($0),\(amount),EUR,2025-03-05,Food,\(store)" }
        }
        rows += ["u1,99.00,EUR,2025-03-05,Food,P5", "u2,99.00,EUR,2025-03-05,Food,P5"]  // two users: not a peer, not listed
        // P3 (2 km away, no peer): exactly one small category and month, so the smallest
        // published one of each is suppressed too.
        rows += ["u4", "u5", "u6"].map { "\($0),1.10,EUR,2025-04-05,Drinks,P3" } + ["u7,7.00,EUR,2025-06-05,Clinic,P3"]
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", rows.joined(separator: "\n") + "\n"), into: store)
        return store
    }

    @Test func figuresSuppressionAndPeers() async throws {
        let scratch = Scratch()
        let r = try await StoreReport.compute(StoreReportRequest(storeID: "S"), store: try fixture(scratch))
        #expect(r.sections.map(\.currency.code) == ["EUR"])  // JPY: one user, not named
        let eur = r.sections[0]
        let f = eur.figures
        #expect(f.visitors == 6 && f.count == 6 && f.total.decimalString == "30.00" && f.average.decimalString == "5.00")
        #expect(f.median.decimalString == "5.00")
        // Categories: Food has 3 users (listed); Shopping two and the clinic one, not listed.
        #expect(eur.byCategory.map(\.key) == ["Food"] && eur.byCategory[0].total?.decimalString == "15.00")
        // Monday 08:00 local holds the three users; Saturday 12:00 two, Tuesday 17:00 one.
        #expect(eur.weekdayHour.flatMap { $0 }.count == 7 * 24)
        #expect(eur.weekdayHour[0][8].count == 3 && eur.weekdayHour[0][8].total?.decimalString == "15.00")
        #expect(eur.weekdayHour[5][12].isSuppressed && eur.weekdayHour[1][17].isSuppressed)
        #expect(eur.weekdayHour.flatMap { $0 }.filter { !$0.isSuppressed }.count == 1)
        // Months: only March meets the threshold; April (one user) and May (two) are not named.
        #expect(eur.monthly.map(\.key) == ["2025-03"] && eur.monthly[0].count == 3)
        // Peers: P1 (avg 10.00) and P2 (avg 2.00); P3 is too far, P4 another kind, P5 has two users.
        let c = eur.comparison
        #expect(c.peers == 2 && c.rank == 2)
        #expect(abs(c.ratio! - 500.0 / 600.0) < 1e-12)
        #expect(c.peersAverage?.decimalString == "6.00")
    }

    /// A newcomer's review found the "exactly one small group" rule too weak: one user's two
    /// categories (or one user's bare-date expense, which has no hour) are two hidden cells or
    /// one unlisted remainder, and the section total minus the published cells was that user's
    /// spending (1029.00 − 30.00 = 999.00). Now the withheld cells of a breakdown must come from
    /// `--min-users` users together, bare-date expenses counting as a withheld hour cell.
    @Test func oneUsersSmallGroupsAreNeverTheRemainder() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importStores(from: scratch.file("s.csv", "id,name,kind,lat,lon\nS,S,clinic,60.17,24.94\n"), into: store)
        var rows = ["user,amount,currency,occurred_at,category,store_id"]
        rows += ["a", "b", "c"].map { "\($0),10.00,EUR,2025-03-03T08:10:00+02:00,Food,S" }
        rows += ["d,777.00,EUR,2025-03-04,Clinic,S", "d,222.00,EUR,2025-03-05,Pharmacy,S"]
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", rows.joined(separator: "\n") + "\n"), into: store)
        let eur = try #require(try await StoreReport.compute(StoreReportRequest(storeID: "S"), store: store).sections.first)
        #expect(eur.figures.count == 5 && eur.figures.total.decimalString == "1029.00")
        // What the published cells leave of the section is all of it (a, b, c and d: four users)
        // or nothing; never d's 2 expenses and 999.00.
        let breakdowns: [(String, [ReportCell], Int)] = [
            ("category", eur.byCategory, 0), ("hour", eur.weekdayHour.flatMap { $0 }, 0), ("month", eur.monthly, 5),
        ]
        for (name, cells, expected) in breakdowns {
            let published = cells.filter { !$0.isSuppressed }
            let count = published.reduce(0) { $0 + $1.count! }, total = published.reduce(Int64(0)) { $0 + $1.total!.minorUnits }
            #expect(count == expected, "\(name): 5 − \(count) expenses, 1029.00 − \(Double(total) / 100) left")
        }
        // With two more users in the clinic it is published; the pharmacy (d alone) then takes
        // the smallest published category with it (Food: 3 expenses, 30.00), so what is left
        // (252.00) comes from a, b, c and d.
        _ = try await Importer.importExpenses(from: scratch.file("e2.csv", "user,amount,currency,occurred_at,category,store_id\ne,5.00,EUR,2025-03-06,Clinic,S\nf,5.00,EUR,2025-03-07,Clinic,S\n"), into: store)
        let more = try #require(try await StoreReport.compute(StoreReportRequest(storeID: "S"), store: store).sections.first)
        #expect(more.byCategory.map(\.key) == ["Clinic"] && more.byCategory[0].total?.decimalString == "787.00")
    }

    @Test func exactlyOneSmallGroupTakesTheSmallestPublishedOneWithIt() async throws {
        let scratch = Scratch()
        let r = try await StoreReport.compute(StoreReportRequest(storeID: "P3"), store: try fixture(scratch))
        let eur = try #require(r.sections.first)
        #expect(eur.figures.total.decimalString == "160.30")
        // Food 150.00 and Drinks 3.30 pass, Clinic (one user) fails: with Drinks published,
        // 160.30 − 150.00 − 3.30 would be the clinic visit. Drinks, the smaller, goes too.
        #expect(eur.byCategory.map(\.key) == ["Food"])
        // Months the same way: March 150.00, April 3.30, June one user → April suppressed, and
        // the range ends at the last published month, so June is not named.
        #expect(eur.monthly.map(\.key) == ["2025-03"])
        let all = [StoreReportOutput.markdown(r), StoreReportOutput.html(r), StoreReportOutput.json(r).serialized()]
        for out in all {
            #expect(!out.contains("Drinks") && !out.contains("Clinic") && !out.contains("2025-06"))
            #expect(!out.contains("3.30"))  // Drinks' total
        }
    }

    /// The attacker's report: a one-user category, month and currency were named with null figures.
    @Test func smallLabelsAppearInNoFormat() async throws {
        let scratch = Scratch()
        let r = try await StoreReport.compute(StoreReportRequest(storeID: "S"), store: try fixture(scratch))
        let outputs = [
            "markdown": StoreReportOutput.markdown(r), "html": StoreReportOutput.html(r),
            "json": StoreReportOutput.json(r).serialized(),
        ]
        for (format, out) in outputs {
            for label in ["Wartime Clinic", "Shopping", "2025-04", "2025-05", "JPY"] {
                #expect(!out.contains(label), "\(format) names \(label)")
            }
        }
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(StoreReportOutput.json(r).serialized().utf8)) as? [String: Any])
        let eur = try #require((json["currencies"] as? [[String: Any]])?.first)
        #expect((eur["weekday_hour"] as? [[Any]])?.map(\.count) == Array(repeating: 24, count: 7))  // fixed labels
        #expect(StoreReportOutput.html(r).hasPrefix("<!DOCTYPE html>") && StoreReportOutput.html(r).contains("<svg"))
        let html = StoreReportOutput.html(r)
        #expect(!html.contains("<script") && !html.contains("src=") && !html.contains("href="))  // self-contained
    }

    /// A store one user visited and a store nobody visited give the same report, byte for byte
    /// apart from the store's own id and name, in every format.
    @Test func oneUserStoreLooksLikeAnUnvisitedOne() async throws {
        let scratch = Scratch()
        let store = try await fixture(scratch)
        _ = try await Importer.importStores(
            from: scratch.file("more.csv", "id,name,kind,lat,lon\nV,V name,amenity:cafe,61.0001,25.0001\nE,E name,amenity:cafe,61.0002,25.0002\n"),
            into: store)
        _ = try await Importer.importExpenses(
            from: scratch.file("v.csv", "user,amount,currency,occurred_at,category,store_id\nu9,12.34,SEK,2025-03-07T10:00:00+02:00,Clinic,V\n"),
            into: store)
        func outputs(_ id: String) async throws -> [String] {
            let r = try await StoreReport.compute(StoreReportRequest(storeID: id), store: store)
            let s = r.store
            return [StoreReportOutput.markdown(r), StoreReportOutput.html(r), StoreReportOutput.json(r).serialized()].map {
                $0.replacingOccurrences(of: "\(s.name!)", with: "NAME").replacingOccurrences(of: "\"\(s.id)\"", with: "\"ID\"")
                    .replacingOccurrences(of: "id \(s.id)", with: "id ID")
                    .replacingOccurrences(of: "\(s.coordinate.latitude)", with: "LAT").replacingOccurrences(of: "\(s.coordinate.longitude)", with: "LON")
            }
        }
        let visited = try await outputs("V"), empty = try await outputs("E")
        for (v, e) in zip(visited, empty) { #expect(v == e) }
        // The list: neither store is there, whatever the format.
        let list = try await StoreListReport.compute(near: Coordinate(uncheckedLatitude: 61, longitude: 25), radius: .meters(50), kind: nil, store: store)
        #expect(list.rows.isEmpty)
        let listOut = [
            StoreReportOutput.table(list), StoreReportOutput.markdown(list), StoreReportOutput.csv(list), StoreReportOutput.html(list),
            StoreReportOutput.json(list).serialized(),
        ]
        for out in listOut { #expect(!out.contains("V name") && !out.contains("E name") && !out.contains("SEK")) }
    }

    @Test func storeListsOnlyStoresWithEnoughUsers() async throws {
        let scratch = Scratch()
        let list = try await StoreListReport.compute(near: Self.s, radius: .kilometers(1), kind: "amenity:cafe", store: try fixture(scratch))
        #expect(list.rows.map(\.store.id) == ["P1", "S", "P2"])  // EUR by total (30, 25, 6); P5 (2 users) and S in JPY not listed
        for out in [StoreReportOutput.table(list), StoreReportOutput.markdown(list), StoreReportOutput.csv(list), StoreReportOutput.html(list),
                    StoreReportOutput.json(list).serialized()] {
            #expect(!out.contains("P5") && !out.contains("JPY") && !out.contains("suppressed\""))
        }
    }

    @Test func unknownStoreIsAnError() async throws {
        let scratch = Scratch()
        await #expect(throws: StoreReportError.unknownStore("nope")) {
            try await StoreReport.compute(StoreReportRequest(storeID: "nope"), store: try scratch.store())
        }
    }
}
