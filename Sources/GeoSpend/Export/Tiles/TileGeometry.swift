/// Mapbox Vector Tile 2.1 geometry commands (https://github.com/mapbox/vector-tile-spec/tree/master/2.1,
/// § 4.3): a command integer is `id | count << 3` (MoveTo 1, LineTo 2, ClosePath 7), followed
/// by `count` pairs of zigzag-encoded deltas from the cursor, which starts at (0, 0) for each
/// feature. Coordinates are integers in tile units, x right, y down.
enum TileGeometry {
    enum Command: UInt32 { case moveTo = 1, lineTo = 2, closePath = 7 }

    static func command(_ c: Command, count: Int) -> UInt32 { c.rawValue | UInt32(count) << 3 }

    /// A POINT geometry: one MoveTo with one pair per point (a multipoint when more than one).
    static func points(_ points: [(x: Int32, y: Int32)]) -> [UInt32] {
        var out = [command(.moveTo, count: points.count)]
        var cursor: (x: Int32, y: Int32) = (0, 0)
        for p in points {
            out.append(ProtobufWriter.zigzag32(p.x - cursor.x))
            out.append(ProtobufWriter.zigzag32(p.y - cursor.y))
            cursor = p
        }
        return out
    }

    /// A POLYGON geometry of one ring per exterior ring given (no holes): MoveTo the first vertex,
    /// LineTo the others, ClosePath (the first vertex is not repeated, § 4.3.4.4). Rings must
    /// be clockwise in tile coordinates (positive surveyor's area with y down): that is what
    /// makes them exterior rings.
    static func polygons(_ rings: [[(x: Int32, y: Int32)]]) -> [UInt32] {
        var out: [UInt32] = []
        var cursor: (x: Int32, y: Int32) = (0, 0)
        for ring in rings {
            precondition(ring.count >= 3 && area2(ring) > 0, "an exterior ring is clockwise in tile coordinates")
            for (n, p) in ring.enumerated() {
                if n == 0 { out.append(command(.moveTo, count: 1)) }
                if n == 1 { out.append(command(.lineTo, count: ring.count - 1)) }
                out.append(ProtobufWriter.zigzag32(p.x - cursor.x))
                out.append(ProtobufWriter.zigzag32(p.y - cursor.y))
                cursor = p
            }
            out.append(command(.closePath, count: 1))
        }
        return out
    }

    /// Twice the surveyor's (shoelace) area in tile coordinates: positive for an exterior ring.
    static func area2(_ ring: [(x: Int32, y: Int32)]) -> Int64 {
        var sum: Int64 = 0
        for n in ring.indices {
            let a = ring[n], b = ring[(n + 1) % ring.count]
            sum += Int64(a.x) * Int64(b.y) - Int64(b.x) * Int64(a.y)
        }
        return sum
    }

    /// The square with top-left corner (x, y) and side `side`, clockwise with y down.
    static func square(x: Int32, y: Int32, side: Int32) -> [(x: Int32, y: Int32)] {
        [(x, y), (x + side, y), (x + side, y + side), (x, y + side)]
    }
}
