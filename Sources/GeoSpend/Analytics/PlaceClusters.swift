import Foundation

/// Density clusters of expense positions (DBSCAN, Ester et al. 1996) that stand in for a place
/// when an expense has no store: "the bakery corner", "the office canteen".
///
/// Deterministic and independent of input order: core points (at least `minPoints` positions,
/// itself included, within `radius` metres, geodesic) are joined into connected components; a
/// non-core point within `radius` of a core point joins the component of its nearest core point
/// (ties by id); any other point is noise and becomes a single-point place. A cluster is named
/// after its smallest member id, so the same expenses always give the same cluster id.
/// Neighbours come from a hash grid in local metres; points more than one cell apart across ±180°
/// are not joined (a known limit).
public struct PlaceClusters: Sendable {
    /// For each input point, the id of its cluster (`c-` + the smallest member id).
    public let clusterIDs: [String]

    /// - Complexity: O(n · m) for n points with at most m neighbours each.
    public init(ids: [String], coordinates: [Coordinate], radius: Distance = .meters(75), minPoints: Int = 2) {
        let n = coordinates.count
        precondition(ids.count == n)
        guard n > 0 else { clusterIDs = []; return }
        let grid = MetricGrid(coordinates: coordinates, cell: radius.meters)
        var neighbours = [[Int]](repeating: [], count: n)
        for i in 0..<n {
            grid.forEachCandidate(near: coordinates[i]) { j in
                if j != i, Geodesic.distance(coordinates[i], coordinates[j]) <= radius.meters { neighbours[i].append(j) }
            }
        }
        let isCore = neighbours.map { $0.count + 1 >= minPoints }
        // Union-find over core–core links.
        var parent = Array(0..<n)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        for i in 0..<n where isCore[i] {
            for j in neighbours[i] where isCore[j] {
                let a = find(i), b = find(j)
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var root = (0..<n).map { isCore[$0] ? find($0) : -1 }
        for i in 0..<n where !isCore[i] {
            let nearestCore = neighbours[i].filter { isCore[$0] }.min {
                (Geodesic.distance(coordinates[i], coordinates[$0]), ids[$0]) < (Geodesic.distance(coordinates[i], coordinates[$1]), ids[$1])
            }
            root[i] = nearestCore.map { find($0) } ?? i
        }
        var name: [Int: String] = [:]
        for i in 0..<n {
            let r = root[i]
            if let current = name[r] { if ids[i] < current { name[r] = ids[i] } } else { name[r] = ids[i] }
        }
        clusterIDs = root.map { "c-" + name[$0]! }
    }
}

/// A hash grid over positions in local metres (equirectangular around the points' mean
/// latitude), cells `cell` metres wide: candidates for "within r" come from the 3×3 cells around.
struct MetricGrid {
    private let cell: Double
    private let metresPerDegreeLongitude: Double
    private var buckets: [Key: [Int]] = [:]
    private struct Key: Hashable { let x: Int64, y: Int64 }
    private static let metresPerDegreeLatitude = 111_320.0

    init(coordinates: [Coordinate], cell: Double) {
        // A cell must be at least as wide as the search radius everywhere: use the smallest
        // longitude scale (the highest |latitude|) so cells are never too narrow.
        let maxLatitude = min(89.9, coordinates.map { abs($0.latitude) }.max() ?? 0)
        self.cell = cell * 1.01
        metresPerDegreeLongitude = Self.metresPerDegreeLatitude * cos(maxLatitude * .pi / 180)
        for (i, c) in coordinates.enumerated() { buckets[key(c), default: []].append(i) }
    }

    private func key(_ c: Coordinate) -> Key {
        Key(x: Int64((c.longitude * metresPerDegreeLongitude / cell).rounded(.down)),
            y: Int64((c.latitude * Self.metresPerDegreeLatitude / cell).rounded(.down)))
    }

    func forEachCandidate(near c: Coordinate, _ body: (Int) -> Void) {
        let k = key(c)
        for dy in -1...1 {
            for dx in -1...1 {
                if let list = buckets[Key(x: k.x + Int64(dx), y: k.y + Int64(dy))] { list.forEach(body) }
            }
        }
    }
}
