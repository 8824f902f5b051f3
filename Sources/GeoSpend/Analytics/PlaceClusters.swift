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
/// Touching cells are joined first, so farther pairs of cells mostly share a component already
/// and need no pair scan. Points are not joined across ±180° (a known limit).
public struct PlaceClusters: Sendable {
    /// For each input point, the number of its cluster, an index into `names`.
    public let clusterOf: [Int32]
    /// Each cluster's id: `c-` + its smallest member id (numbers follow the input order; names
    /// do not depend on it).
    public let names: [String]

    /// For each input point, the id of its cluster.
    public var clusterIDs: [String] { clusterOf.map { names[Int($0)] } }

    /// - Complexity: O(n + c log c) for c occupied cells on spread-out or dense data; O(n · m) at
    ///   worst for m points per cell neighbourhood.
    public init(ids: [String], coordinates: [Coordinate], radius: Distance = .meters(75), minPoints: Int = 2) {
        let n = coordinates.count
        precondition(ids.count == n)
        guard n > 0 else { clusterOf = []; names = []; return }
        let eps = radius.meters
        let grid = ClusterGrid(coordinates: coordinates, radius: eps)
        let neighbours = CellNeighbours(grid)
        let proximity = ProximityTest(coordinates: coordinates, meters: eps)

        // Core points: a cell with minPoints points is core throughout; otherwise count neighbours.
        var isCore = [Bool](repeating: false, count: n)
        for cell in 0..<grid.cellCount {
            let members = grid.points(inCell: cell)
            if members.count >= minPoints {
                for i in members { isCore[i] = true }
                continue
            }
            for i in members {
                var count = 0
                func countNear(inCell other: Int) {
                    for j in grid.points(inCell: other) where count < minPoints && proximity.isWithin(i, j) { count += 1 }
                }
                for other in neighbours.of(cell) { countNear(inCell: other) }
                countNear(inCell: cell)
                isCore[i] = count >= minPoints
            }
        }

        // Each cell's core points, in the grid's layout: cell c's are coresByCell[coreStart[c]..<coreStart[c + 1]].
        var coresByCell: [Int] = []
        var coreStart = [0]
        coreStart.reserveCapacity(grid.cellCount + 1)
        for cell in 0..<grid.cellCount {
            for i in grid.points(inCell: cell) where isCore[i] { coresByCell.append(i) }
            coreStart.append(coresByCell.count)
        }
        func cores(inCell c: Int) -> ArraySlice<Int> { coresByCell[coreStart[c]..<coreStart[c + 1]] }

        // The core points of one cell together; two cells once a core pair is close.
        var components = Components(count: n)
        for cell in 0..<grid.cellCount where coreStart[cell] < coreStart[cell + 1] {
            for c in cores(inCell: cell).dropFirst() { components.join(coresByCell[coreStart[cell]], c) }
        }
        // Touching cells first: by the time farther pairs of cells come, most are already in one
        // component and skip their pair scan (components do not depend on the order).
        for touching in [true, false] {
            for cell in 0..<grid.cellCount where coreStart[cell] < coreStart[cell + 1] {
                let key = grid.cellKeys[cell]
                for other in neighbours.of(cell) where other > cell && coreStart[other] < coreStart[other + 1] {
                    let otherKey = grid.cellKeys[other]
                    guard (abs(otherKey.x - key.x) <= 1 && abs(otherKey.y - key.y) <= 1) == touching else { continue }
                    let a = cores(inCell: cell), b = cores(inCell: other)
                    guard components.root(of: a.first!) != components.root(of: b.first!) else { continue }
                    scan: for i in a {
                        for j in b where proximity.isWithin(i, j) {
                            components.join(i, j)
                            break scan
                        }
                    }
                }
            }
        }

        // Border points join their nearest core point's cluster (ties by id, then in the grid's
        // cell order, own cell last); the rest are noise.
        var root = (0..<n).map { isCore[$0] ? components.root(of: $0) : $0 }
        for cell in 0..<grid.cellCount {
            for i in grid.points(inCell: cell) where !isCore[i] {
                var best: (Double, String, Int)?
                func considerCores(inCell other: Int) {
                    for j in cores(inCell: other) where proximity.isWithin(i, j) {
                        let d = Geodesic.distance(coordinates[i], coordinates[j])
                        if d <= eps, best == nil || (d, ids[j]) < (best!.0, best!.1) { best = (d, ids[j], j) }
                    }
                }
                for other in neighbours.of(cell) { considerCores(inCell: other) }
                considerCores(inCell: cell)
                if let best { root[i] = components.root(of: best.2) }
            }
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

/// Union-find over point indices (path halving; a component's root is its smallest index).
private struct Components {
    private var parent: [Int]

    init(count: Int) { parent = Array(0..<count) }

    mutating func root(of x: Int) -> Int {
        var x = x
        while parent[x] != x {
            parent[x] = parent[parent[x]]
            x = parent[x]
        }
        return x
    }

    mutating func join(_ a: Int, _ b: Int) {
        let ra = root(of: a), rb = root(of: b)
        if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
    }
}

/// Each cell's neighbours (`ClusterGrid.forEachNeighbourCell`), listed once.
private struct CellNeighbours {
    /// Cell c's neighbours are `cells[start[c]..<start[c + 1]]`, in key order.
    private var start = [0]
    private var cells: [Int] = []

    init(_ grid: ClusterGrid) {
        start.reserveCapacity(grid.cellCount + 1)
        for cell in 0..<grid.cellCount {
            grid.forEachNeighbourCell(of: grid.cellKeys[cell]) { cells.append($0) }
            start.append(cells.count)
        }
    }

    func of(_ cell: Int) -> ArraySlice<Int> { cells[start[cell]..<start[cell + 1]] }
}

/// Points bucketed in local metres on cells so small that any two points of a cell are within
/// the radius: cell side radius/√2, measured with the largest metres-per-degree WGS84 has (so a
/// cell is never larger in true metres). Neighbour cells reach far enough that no pair within the
/// radius is missed, given the smallest metres-per-degree among the points.
///
/// Occupied cells are kept sorted by key (row by row) with their points in one flat array, so
/// neighbours are found by binary search: no hashing, and a fixed visiting order.
struct ClusterGrid {
    struct Key: Hashable, Comparable {
        let x: Int64, y: Int64
        /// Row by row: y, then x.
        static func < (a: Key, b: Key) -> Bool { (a.y, a.x) < (b.y, b.x) }
    }

    /// The occupied cells, ascending.
    private(set) var cellKeys: [Key] = []
    /// Cell c holds `pointsByCell[cellStart[c]..<cellStart[c + 1]]`, ascending indices.
    private var cellStart: [Int] = []
    private var pointsByCell: [Int] = []
    private let side: Double
    private let metresPerDegreeX: Double
    /// How many cells away a neighbour can be, in x and in y.
    let reach: Int64
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

        let keys = coordinates.map(key)
        let order = Self.sortedByKey(keys)
        cellStart.append(0)
        for i in order {
            if let last = cellKeys.last, last == keys[i] {
                cellStart[cellStart.count - 1] += 1
            } else {
                cellKeys.append(keys[i])
                cellStart.append(cellStart[cellStart.count - 1] + 1)
            }
        }
        pointsByCell = order
    }

    var cellCount: Int { cellKeys.count }

    /// The indices of the points in cell `c` (an index into `cellKeys`), ascending.
    func points(inCell c: Int) -> ArraySlice<Int> { pointsByCell[cellStart[c]..<cellStart[c + 1]] }

    func key(_ c: Coordinate) -> Key {
        Key(x: Int64((c.longitude * metresPerDegreeX / side).rounded(.down)),
            y: Int64((c.latitude * Self.maxMetresPerDegree / side).rounded(.down)))
    }

    /// Every other occupied cell within reach of `k` (and `k` itself when `including`), as an
    /// index into `cellKeys`, in key order.
    func forEachNeighbourCell(of k: Key, including: Bool = false, _ body: (Int) -> Void) {
        let band = firstCell(from: Key(x: .min, y: k.y - reach))..<firstCell(from: Key(x: .min, y: k.y + reach + 1))
        if band.count <= 8 * Int(2 * reach + 1) {  // few cells in these rows: walk them all
            for c in band where abs(cellKeys[c].x - k.x) <= reach && (including || cellKeys[c] != k) { body(c) }
            return
        }
        var c = band.lowerBound
        for y in k.y - reach...k.y + reach {
            c = firstCell(from: Key(x: k.x - reach, y: y), in: c..<band.upperBound)
            while c < band.upperBound, cellKeys[c].y == y, cellKeys[c].x <= k.x + reach {
                if including || cellKeys[c] != k { body(c) }
                c += 1
            }
        }
    }

    /// Every other occupied cell within reach (and `k` itself when `including`), in key order.
    func forEachNeighbourKey(of k: Key, including: Bool = false, _ body: (Key) -> Void) {
        forEachNeighbourCell(of: k, including: including) { body(cellKeys[$0]) }
    }

    /// The indices of `keys` ordered by key, ties by index: a stable radix sort (16 bits at a
    /// time, least significant first) of the column, then of the row, each as an offset from its
    /// smallest value.
    /// - Complexity: O(n) per pass; one pass per 16 bits of the columns' and of the rows' span.
    static func sortedByKey(_ keys: [Key]) -> [Int] {
        var order = Array(keys.indices), scratch = order
        for values in [keys.map(\.x), keys.map(\.y)] {
            guard let base = values.min() else { break }
            let offsets = values.map { UInt64(bitPattern: $0 &- base) }
            let span = offsets.max()!
            var shift: UInt64 = 0
            while shift < 64 && span >> shift > 0 {
                let digits = Int(min(span >> shift, 0xFFFF)) + 1
                // next[d]: where the next index with digit d goes.
                var next = [Int](repeating: 0, count: digits + 1)
                next.withUnsafeMutableBufferPointer { next in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        for i in order { next[Int(truncatingIfNeeded: offsets[i] >> shift) & 0xFFFF + 1] += 1 }
                        for d in 0..<digits { next[d + 1] += next[d] }
                        for i in order {
                            let d = Int(truncatingIfNeeded: offsets[i] >> shift) & 0xFFFF
                            scratch[next[d]] = i
                            next[d] += 1
                        }
                    }
                }
                swap(&order, &scratch)
                shift += 16
            }
        }
        return order
    }

    /// The first cell at or after `key`.
    private func firstCell(from key: Key, in range: Range<Int>? = nil) -> Int {
        var low = range?.lowerBound ?? 0, high = range?.upperBound ?? cellKeys.count
        while low < high {
            let mid = (low + high) / 2
            if cellKeys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
