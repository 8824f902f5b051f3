import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

@Suite struct QueryTests {
    /// Circles at the antimeridian, both poles, mid-latitude and wider than a hemisphere, with the
    /// inside sets from a brute-force scan in Python geographiclib (scripts/fixtures/geodesic_fixtures.py).
    @Test func radiusMatchesGeographicLibBruteForce() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let fixture = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: Repo.path("Tests/Fixtures/geodesic-radius.json")))) as! [String: Any]
        let circles = fixture["circles"] as! [[String: Any]]
        var csv = "id,user,amount,currency,occurred_at,lat,lon\n"
        for circle in circles {
            for p in circle["points"] as! [[String: Any]] {
                csv += "\(p["id"]!),\(circle["name"]!),1.00,EUR,2025-01-01,\(p["lat"]!),\(p["lon"]!)\n"
            }
        }
        _ = try await Importer.importExpenses(from: scratch.file("points.csv", csv), into: store)
        for circle in circles {
            let name = circle["name"] as! String
            let c = circle["center"] as! [Double]
            let center = try Coordinate(latitude: c[0], longitude: c[1])
            let radius = Distance(meters: circle["radius_m"] as! Double)
            let inside = Set(circle["inside"] as! [String])
            let boundary = Set(circle["boundary"] as! [String])
            for user in [name, nil] as [String?] {  // the per-user index path and the R*Tree path
                let hits = try store.readHere { try $0.expenses(within: radius, of: center, filter: ExpenseFilter(userID: user)) }
                let found = Set(hits.map(\.expense.id).filter { $0.hasPrefix(name + "-") })
                #expect(found.subtracting(boundary) == inside, "\(name) user=\(user ?? "all")")
                #expect(hits.map(\.distanceMeters) == hits.map(\.distanceMeters).sorted())
                #expect(hits.allSatisfy { $0.distanceMeters <= radius.meters })
            }
        }
    }

    /// Synthetic Helsinki data: every filter combination equals a brute-force scan of all rows.
    @Test func radiusWithFiltersEqualsBruteForceScan() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let places = try Importer.readStores(from: Repo.path("Data/helsinki-places.geojson"))
        let data = SyntheticData(places: places, scale: .city)
        var all: [Expense] = []
        data.generateExpenses(users: 4, count: 3000, seed: 11) { all.append($0) }
        _ = try await Importer.importStores(from: Repo.path("Data/helsinki-places.geojson"), into: store)
        _ = try store.writeHere { w in for e in all { _ = try w.insert(e) } }
        var rng = SplitMix64(seed: 5)
        let filters: [ExpenseFilter] = [
            ExpenseFilter(userID: "user1"), ExpenseFilter(userID: nil),
            ExpenseFilter(userID: "user2", from: try Timestamp(parsing: "2025-03-01"), to: try Timestamp(parsing: "2025-06-30")),
            ExpenseFilter(userID: "user3", from: try Timestamp(parsing: "2025-05-01T12:00:00+03:00"), kinds: [.expense], categories: ["food"]),
        ]
        for _ in 0..<40 {
            let center = Coordinate(uncheckedLatitude: 60.164 + rng.unit() * 0.016, longitude: 24.933 + rng.unit() * 0.022)
            let radius = Distance(meters: [50, 150, 300, 800][Int(rng.next() % 4)])
            for filter in filters {
                let got = try store.readHere { try $0.expenses(within: radius, of: center, filter: filter) }
                let expected = all.compactMap { e -> ExpenseHit? in
                    guard let c = e.location?.coordinate, filter.matches(e) else { return nil }
                    let d = Geodesic.distance(center, c)
                    return d <= radius.meters ? ExpenseHit(expense: e, distanceMeters: d) : nil
                }.sorted(by: Ranking.byDistance)
                let gotIDs = got.map { $0.expense.id }, expectedIDs = expected.map { $0.expense.id }
                #expect(gotIDs == expectedIDs)
                let gotRows = got.map { $0.expense }, expectedRows = expected.map { $0.expense }
                #expect(gotRows == expectedRows)  // every field round-trips
            }
        }
    }

    @Test func nearestStoresEqualBruteForceIncludingAcrossTheAntimeridian() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        var rng = SplitMix64(seed: 9)
        var csv = "id,name,kind,lat,lon\n"
        var stores: [Store] = []
        for i in 0..<3000 {  // > 51² entries: an R*Tree three levels deep for the best-first walk
            // Half of them in a band around ±180°, the rest anywhere, a few near the poles.
            let lat = i % 50 == 0 ? 89.9 + rng.unit() * 0.1 : (rng.unit() * 2 - 1) * 70
            let lon = i % 2 == 0 ? (rng.unit() < 0.5 ? 179 + rng.unit() : -180 + rng.unit()) : rng.unit() * 360 - 180
            let kind = i % 3 == 0 ? "amenity:cafe" : "shop:supermarket"
            let s = Store(id: String(format: "s%04d", i), name: "S\(i)", kind: kind, coordinate: try Coordinate(latitude: lat, longitude: lon))
            stores.append(s)
            csv += "\(s.id),\(s.name!),\(kind),\(lat),\(lon)\n"
        }
        _ = try await Importer.importStores(from: scratch.file("s.csv", csv), into: store)
        let centres = [
            (10.0, 179.9999), (10.0, -179.9999), (-5.0, 180.0), (89.99, 0.0), (0.0, 0.0), (45.0, -179.5), (-60.0, 179.99),
            (-90.0, 0.0), (90.0, 180.0),
        ] + (0..<20).map { _ in ((rng.unit() * 2 - 1) * 90, rng.unit() * 360 - 180) }
        for (lat, lon) in centres {
            let center = try Coordinate(latitude: lat, longitude: lon)
            for (k, kind, max) in [(1, nil, nil), (5, nil, nil), (20, "amenity:cafe", nil), (5, nil, 50_000.0)] as [(Int, String?, Double?)] {
                let got = try store.readHere { try $0.nearestStores(to: center, limit: k, maxDistance: max.map(Distance.init(meters:)), kind: kind) }
                let expected = stores.filter { kind == nil || $0.kind == kind }
                    .map { StoreHit(store: $0, distanceMeters: Geodesic.distance(center, $0.coordinate)) }
                    .filter { max == nil || $0.distanceMeters <= max! }
                    .sorted(by: Ranking.byDistance).prefix(k)
                #expect(got.map(\.store.id) == expected.map(\.store.id), "\(lat),\(lon) k=\(k) kind=\(kind ?? "-")")
                #expect(zip(got, expected).allSatisfy { abs($0.distanceMeters - $1.distanceMeters) < 0.01 })
            }
        }
    }

    @Test func tiesAreBrokenById() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importStores(
            from: scratch.file("s.csv", "id,name,lat,lon\nb,B,60.0,25.0\na,A,60.0,25.0\nc,C,60.0,25.0\n"), into: store)
        let got = try store.readHere { try $0.nearestStores(to: try Coordinate(latitude: 60.001, longitude: 25), limit: 2, maxDistance: nil, kind: nil) }
        #expect(got.map(\.store.id) == ["a", "b"])
    }
}
