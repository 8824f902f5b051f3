import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GRDB

/// The query list every engine answers, derived from the data with a fixed seed: the same
/// centres, radii, k and users for GeoSpend, PostGIS and SpatiaLite's documented way.
struct Workload {
    /// Centres: 45 % near a store (jittered ±220 m), 45 % uniform over the expenses' bounding box,
    /// 10 % a degree south of it (open sea off Helsinki for the bench data: no hits).
    let centres: [Coordinate]
    /// Users in a seeded order; query i of a one-user workload asks for users[i % count].
    let users: [String]

    init(store: SpatiaLiteStore, count: Int, seed: UInt64 = 42) throws {
        let (stores, users, box) = try store.readDatabase { db in
            let stores = try Row.fetchAll(db, sql: "SELECT lat, lon FROM stores ORDER BY pk")
                .map { Coordinate(uncheckedLatitude: $0[0], longitude: $0[1]) }
            let users = try String.fetchAll(db, sql: "SELECT id FROM users ORDER BY id")
            let box = try Row.fetchOne(db, sql: "SELECT min(lat), max(lat), min(lon), max(lon) FROM expenses WHERE lat IS NOT NULL")!
            return (stores, users, (south: box[0] as Double, north: box[1] as Double, west: box[2] as Double, east: box[3] as Double))
        }
        var rng = SplitMix64(seed: seed)
        centres = (0..<count).map { i in
            switch i % 20 {
            case 18, 19:
                return Coordinate(uncheckedLatitude: box.south - 1 + rng.unit() * 0.1, longitude: box.west + rng.unit() * (box.east - box.west))
            case let k where k % 2 == 0:
                let s = stores[Int(rng.next() % UInt64(stores.count))]
                return Coordinate(uncheckedLatitude: s.latitude + (rng.unit() - 0.5) * 0.004, longitude: s.longitude + (rng.unit() - 0.5) * 0.008)
            default:
                return Coordinate(
                    uncheckedLatitude: box.south + rng.unit() * (box.north - box.south),
                    longitude: box.west + rng.unit() * (box.east - box.west))
            }
        }
        var shuffled = users
        shuffled.shuffle(using: &rng)
        self.users = shuffled
    }

    func user(_ i: Int) -> String { users[i % users.count] }
}

/// A row of a radius or nearest-store answer: the expense or store id and its distance.
struct Found: Sendable, Equatable {
    var id: String
    var meters: Double
}

/// One row of per-store insights: what the cross-check compares (count and exact total).
struct StoreTotal: Sendable, Hashable {
    var store: String
    var currency: String
    var count: Int
    var totalMinor: Int64
}

/// One heat-map cell in PostGIS's `ST_HexagonGrid` (i, j) numbering.
struct CellTotal: Sendable, Hashable {
    var i: Int
    var j: Int
    var count: Int
    var totalMinor: Int64
}

/// Minor units of a decimal amount as PostgreSQL prints `numeric` ("1234.5", "-0.25", "12").
func minorUnits(_ text: String, currency: String) throws -> Int64 {
    try Money(parsing: text, currency: try Currency(code: currency)).minorUnits
}
