import Foundation
import Testing

@testable import GeoSpend

@Suite struct ClusterGridTests {
    /// The radix sort against a comparison sort, on spans of one byte up to the whole of Int64
    /// (several 16-bit passes, offsets that wrap) with many equal keys.
    @Test(arguments: [Int64(200), 70_000, 1 << 40, .max])
    func sortsKeysLikeAComparisonSort(span: Int64) {
        var rng = SplitMix64(seed: UInt64(span.trailingZeroBitCount + 1))
        func value() -> Int64 {
            span == .max ? Int64(bitPattern: rng.next()) : Int64(rng.next() % UInt64(span)) - span / 2
        }
        let pool = (0..<300).map { _ in ClusterGrid.Key(x: value(), y: value()) }
        let keys = (0..<3_000).map { _ in pool[Int(rng.next() % 300)] }
        #expect(ClusterGrid.sortedByKey(keys) == keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) })
    }

    /// Neighbour cells against a scan of every cell, for occupied and empty keys, on a dense city
    /// (rows searched one by one) and on clumps from the equator to 80° (a wide reach: the rows
    /// walked whole).
    @Test(arguments: [false, true])
    func findsEveryNeighbourCellInKeyOrder(wide: Bool) {
        var rng = SplitMix64(seed: wide ? 2 : 1)
        var coordinates: [Coordinate] = []
        for _ in 0..<(wide ? 40 : 1) {
            let latitude = wide ? rng.unit() * 80 : 60.17, longitude = rng.unit() * 40
            let spread = wide ? 0.005 : 0.03
            for _ in 0..<(wide ? 50 : 3_000) {
                coordinates.append(Coordinate(uncheckedLatitude: latitude + rng.unit() * spread, longitude: longitude + rng.unit() * 2 * spread))
            }
        }
        let grid = ClusterGrid(coordinates: coordinates, radius: 75)
        #expect(wide ? grid.reach > 4 : grid.reach == 2)
        let occupied = coordinates.map(grid.key)
        let cells = Set(occupied).sorted()
        let probes = occupied.prefix(400) + occupied.prefix(400).map { ClusterGrid.Key(x: $0.x + 3, y: $0.y - 1) }
        var visited = 0
        for key in probes {
            for including in [false, true] {
                var found: [ClusterGrid.Key] = []
                grid.forEachNeighbourKey(of: key, including: including) { found.append($0) }
                let expected = cells.filter {
                    abs($0.x - key.x) <= grid.reach && abs($0.y - key.y) <= grid.reach && (including || $0 != key)
                }
                #expect(found == expected)
                visited += found.count
            }
        }
        #expect(visited > probes.count * 4)
    }
}
