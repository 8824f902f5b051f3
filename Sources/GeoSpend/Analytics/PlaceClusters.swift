import Foundation

/// Density clusters of expense positions (DBSCAN, Ester et al. 1996) that stand in for a place
/// when an expense has no store: "the bakery corner", "the office canteen".
///
/// Deterministic and independent of input order: core points (at least `minPoints` positions,
/// itself included, within `radius` metres, geodesic) are joined into connected components; a
/// non-core point within `radius` of a core point joins the component of its nearest core point
/// (ties by id); any other point is noise and becomes a single-point place. A cluster is named
/// after its smallest member id, so the same expenses always give the same cluster id.
///
/// Speed comes from a grid (Gunawan 2013): cells are small enough that any two points in one cell
/// are within `radius` (so dense cells are core and joined without a single distance), and two
/// cells are joined as soon as one pair of their core points is within `radius` (geodesic).
/// Points are not joined across ±180° (a known limit).
public struct PlaceClusters: Sendable {
    /// For each input point, the number of its cluster, an index into `names`.
    public let clusterOf: [Int32]
    /// Each cluster's id: `c-` + its smallest member id (numbers follow the input order; names
    /// do not depend on it).
    public let names: [String]

    /// For each input point, the id of its cluster.
    public var clusterIDs: [String] { clusterOf.map { names[Int($0)] } }

    /// - Complexity: O(n) for spread-out or dense data; O(n · m) at worst for m points per cell
    ///   neighbourhood.
    public init(ids: [String], coordinates: [Coordinate], radius: Distance = .meters(75), minPoints: Int = 2) {
        let n = coordinates.count
        precondition(ids.count == n)
        guard n > 0 else { clusterOf = []; names = []; return }
        let eps = radius.meters
        let grid = ClusterGrid(coordinates: coordinates, radius: eps)
        func within(_ i: Int, _ j: Int) -> Bool { Geodesic.isWithin(coordinates[i], coordinates[j], meters: eps) }

        // Core points: a cell with minPoints points is core throughout; otherwise count neighbours.
        var isCore = [Bool](repeating: false, count: n)
        for (key, members) in grid.cells {
            if members.count >= minPoints {
                for i in members { isCore[i] = true }
                continue
            }
            for i in members {
                var count = 0
                grid.forEachNeighbourCell(of: key) { other in
                    for j in other where count < minPoints && within(i, j) { count += 1 }
                }
                isCore[i] = count >= minPoints
            }
        }

        // Union-find: the core points of one cell together; two cells once a core pair is close.
        var parent = Array(0..<n)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        func union(_ a: Int, _ b: Int) {
            let ra = find(a), rb = find(b)
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        var coresByCell: [ClusterGrid.Key: [Int]] = [:]
        for (key, members) in grid.cells {
            let cores = members.filter { isCore[$0] }
            guard !cores.isEmpty else { continue }
            coresByCell[key] = cores
            for c in cores.dropFirst() { union(cores[0], c) }
        }
        // Nearest cell offsets first: by the time far pairs of cells come, most are already in
        // one component and skip their pair scan (components do not depend on the order).
        var cellPairs: [(gap: Int64, cores: [Int], others: [Int])] = []
        for (key, cores) in coresByCell {
            grid.forEachNeighbourKey(of: key) { otherKey in
                guard otherKey.isAfter(key), let others = coresByCell[otherKey] else { return }
                let gapX = max(0, abs(otherKey.x - key.x) - 1), gapY = max(0, abs(otherKey.y - key.y) - 1)
                cellPairs.append((gapX * gapX + gapY * gapY, cores, others))
            }
        }
        cellPairs.sort { $0.gap < $1.gap }
        for (_, cores, others) in cellPairs where find(cores[0]) != find(others[0]) {
            if let _ = cores.first(where: { i in others.contains { within(i, $0) } }) { union(cores[0], others[0]) }
        }

        // Border points join their nearest core point's cluster; the rest are noise.
        var root = (0..<n).map { isCore[$0] ? find($0) : $0 }
        for i in 0..<n where !isCore[i] {
            var best: (Double, String, Int)?
            grid.forEachNeighbourCell(of: grid.key(coordinates[i])) { other in
                for j in other where isCore[j] {
                    let d = Geodesic.distance(coordinates[i], coordinates[j])
                    if d <= eps, best == nil || (d, ids[j]) < (best!.0, best!.1) { best = (d, ids[j], j) }
                }
            }
            if let best { root[i] = find(best.2) }
        }
        // Number the clusters by first member; name each after its smallest member id.
        var number = [Int32](repeating: -1, count: n)
        var smallest: [Int] = []
        var clusterOf = [Int32](repeating: 0, count: n)
        for i in 0..<n {
            let r = root[i]
            if number[r] < 0 {
                number[r] = Int32(smallest.count)
                smallest.append(i)
            } else if ids[i] < ids[smallest[Int(number[r])]] {
                smallest[Int(number[r])] = i
            }
            clusterOf[i] = number[r]
        }
        self.clusterOf = clusterOf
        names = smallest.map { "c-" + ids[$0] }
    }
}

/// Points bucketed in local metres on cells so small that any two points of a cell are within
/// the radius: cell side radius/√2, measured with the largest metres-per-degree WGS84 has (so a
/// cell is never larger in true metres). Neighbour cells reach far enough that no pair within the
/// radius is missed, given the smallest metres-per-degree among the points.
struct ClusterGrid {
    struct Key: Hashable {
        let x: Int64, y: Int64
        /// Orders keys so each unordered pair of cells is visited once.
        func isAfter(_ other: Key) -> Bool { (y, x) > (other.y, other.x) }
    }

    private(set) var cells: [Key: [Int]] = [:]
    private let side: Double
    private let metresPerDegreeX: Double
    private let reach: Int64
    /// Upper bound of WGS84's metres per degree (meridian at the poles: 111,694 m).
    private static let maxMetresPerDegree = 111_700.0
    /// Lower bound of metres per degree of latitude (meridian at the equator: 110,574 m).
    private static let minMetresPerDegreeLatitude = 110_570.0
    /// Lower bound of metres per degree of longitude at the equator (a·π/180 = 111,319.49 m).
    private static let minMetresPerDegreeLongitude = 111_319.0

    init(coordinates: [Coordinate], radius: Double) {
        let lats = coordinates.map { abs($0.latitude) }
        let lowest = lats.min() ?? 0, highest = min(89.999, lats.max() ?? 0)
        metresPerDegreeX = Self.maxMetresPerDegree * cos(lowest * .pi / 180)
        side = radius / 2.0.squareRoot() * 0.999
        // How many projected metres one true metre can span, at worst, in x and in y.
        let stretchX = metresPerDegreeX / (Self.minMetresPerDegreeLongitude * cos(highest * .pi / 180))
        let stretchY = Self.maxMetresPerDegree / Self.minMetresPerDegreeLatitude
        reach = Int64((radius * max(stretchX, stretchY) / side).rounded(.up))
        for (i, c) in coordinates.enumerated() { cells[key(c), default: []].append(i) }
    }

    func key(_ c: Coordinate) -> Key {
        Key(x: Int64((c.longitude * metresPerDegreeX / side).rounded(.down)),
            y: Int64((c.latitude * Self.maxMetresPerDegree / side).rounded(.down)))
    }

    /// Every occupied cell within reach, the cell itself included.
    func forEachNeighbourCell(of k: Key, _ body: ([Int]) -> Void) {
        forEachNeighbourKey(of: k) { if let list = cells[$0] { body(list) } }
        if let own = cells[k] { body(own) }
    }

    /// Every other occupied cell within reach (and `k` itself when `including`).
    func forEachNeighbourKey(of k: Key, including: Bool = false, _ body: (Key) -> Void) {
        let span = (2 * reach + 1) * (2 * reach + 1)
        if span > Int64(cells.count) {  // sparse: walk the occupied cells instead
            for other in cells.keys where (including || other != k) && abs(other.x - k.x) <= reach && abs(other.y - k.y) <= reach {
                body(other)
            }
            return
        }
        for dy in -reach...reach {
            for dx in -reach...reach where including || dx != 0 || dy != 0 {
                let other = Key(x: k.x + dx, y: k.y + dy)
                if cells[other] != nil { body(other) }
            }
        }
    }
}
