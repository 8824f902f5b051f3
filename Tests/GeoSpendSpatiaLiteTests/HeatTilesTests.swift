import Foundation
import GeoSpendSpatiaLite
import Testing

@testable import GeoSpend

/// The heat layer of vector tiles hides a cell at every zoom (docs/TILES.md): a fixture of four
/// finest cells (zoom 4 tiles, cells of level 10) where one is hidden by `--min-users 3` and its
/// published sibling shares its parent at every coarser zoom. Written by hand for this test.
@Suite struct HeatTilesTests {
    static let eur = try! Currency(code: "EUR")

    /// A: 3 users in Helsinki (10 + 20 + 30 EUR); B: 1 user one cell east of A, same parent
    /// (`hidden` EUR); C: 4 users in Paris (4 × 100); D: 3 users in Madrid (3 × 1 EUR), the
    /// smallest published cell, hidden as the complement of B.
    static func store(_ scratch: Scratch, hidden: Int64) async throws -> SpatiaLiteStore {
        let store = try scratch.store()
        let rows: [(String, Double, Double, Int64)] = [
            ("u1", 60.10, 24.90, 1000), ("u2", 60.11, 24.91, 2000), ("u3", 60.12, 24.92, 3000),
            ("u4", 60.10, 25.10, hidden),
            ("u1", 48.85, 2.35, 10_000), ("u2", 48.85, 2.35, 10_000), ("u3", 48.86, 2.36, 10_000), ("u4", 48.86, 2.34, 10_000),
            ("u5", 40.40, -3.70, 100), ("u6", 40.41, -3.70, 100), ("u7", 40.40, -3.71, 100),
        ]
        try store.writeHere { w in
            for (n, (user, lat, lon, minor)) in rows.enumerated() {
                _ = try w.insert(Expense(
                    id: "e\(n)", userID: user, amount: Money(minorUnits: minor, currency: eur),
                    occurredAt: try Timestamp(parsing: "2025-03-01T08:15:00+02:00"), title: "t", category: "Food",
                    location: ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon))))
            }
        }
        return store
    }

    static func request() -> VectorTileRequest {
        VectorTileRequest(
            layer: .heat, minZoom: 0, maxZoom: 4,
            map: MapExportRequest(filter: ExpenseFilter(userID: nil, kinds: [.expense]), minUsers: 3, generatedAt: "2025-01-01T00:00:00Z"))
    }

    /// Every tile's bytes.
    static func tiles(_ store: SpatiaLiteStore) async throws -> [TileID: [UInt8]] {
        let set = try await VectorTileSet.prepare(request(), store: store)
        var out: [TileID: [UInt8]] = [:]
        try set.forEachTile { out[$0] = $1 }
        return out
    }

    @Test func aHiddenCellAddsNothingAtAnyZoom() async throws {
        let scratch = Scratch()
        let store = try await Self.store(scratch, hidden: 777)
        let r = Self.request()
        // Cells per zoom as [x, y, count, total] (returned out of the scope and checked here).
        let zooms = try await store.read { reader in
            try HeatPyramid(r.map, minZoom: r.minZoom, maxZoom: r.maxZoom, reader: reader, progress: nil).zooms
                .map { $0.map { [$0.x, $0.y, $0.count, Int($0.total)] } }
        }
        // A and C only: 60 + 400 EUR at every zoom, 3 + 4 expenses; B's 7.77 and D's 3 nowhere.
        for (z, cells) in zooms.enumerated() {
            #expect(cells.reduce(0) { $0 + $1[3] } == 46_000, "zoom \(z): \(cells)")
            #expect(cells.reduce(0) { $0 + $1[2] } == 7, "zoom \(z): \(cells)")
            #expect(cells.allSatisfy { [3, 4, 7].contains($0[2]) }, "zoom \(z): only A, C or both: \(cells)")
        }
        // Parent − its published children = 0 at every zoom.
        for z in 0..<(zooms.count - 1) {
            for p in zooms[z] {
                let kids = zooms[z + 1].filter { $0[0] >> 1 == p[0] && $0[1] >> 1 == p[1] }
                #expect(kids.reduce(0) { $0 + $1[2] } == p[2] && kids.reduce(0) { $0 + $1[3] } == p[3], "zoom \(z): \(p) vs \(kids)")
            }
        }
        // A and B share their parent from zoom 3 (level 9) down: A's cell there holds A alone.
        #expect(zooms[3].contains { $0[2] == 3 && $0[3] == 6_000 })
    }

    /// No combination of published numbers reveals B: the tiles are byte for byte the same
    /// whatever B spent.
    @Test func theTilesDoNotDependOnTheHiddenCell() async throws {
        let (s1, s2) = (Scratch(), Scratch())
        let small = try await Self.tiles(try await Self.store(s1, hidden: 5))
        let large = try await Self.tiles(try await Self.store(s2, hidden: 50_000))
        #expect(!small.isEmpty && small == large)
        // The service's entry point gives each tile's bytes, and nothing for an empty tile.
        let store = try await Self.store(s1, hidden: 5)
        for (id, bytes) in small { #expect(try await VectorTileSet.tile(id, of: Self.request(), store: store) == bytes, "\(id)") }
        #expect(try await VectorTileSet.tile(TileID(z: 4, x: 0, y: 0), of: Self.request(), store: store) == nil)
        #expect(try await VectorTileSet.tile(TileID(z: 5, x: 0, y: 0), of: Self.request(), store: store) == nil)
        // The tiles do depend on a published cell's amount (the comparison can fail).
        let s3 = Scratch()
        let other = try await Self.store(s3, hidden: 5)
        try other.writeHere { w in
            _ = try w.insert(Expense(
                id: "extra", userID: "u1", amount: Money(minorUnits: 1, currency: Self.eur),
                occurredAt: try Timestamp(parsing: "2025-03-01T08:15:00+02:00"), title: "t", category: "Food",
                location: ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 48.85, longitude: 2.35))))
        }
        #expect(try await Self.tiles(other) != small)
    }
}
