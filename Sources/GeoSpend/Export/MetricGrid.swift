/// A grid of equal cells in metres on an `EqualAreaProjection`: squares, or flat-topped
/// hexagons laid out as PostGIS `ST_HexagonGrid` lays them (column i at x = 1.5·s·i, row j at
/// y = √3·s·(j + ½·|i mod 2|)), so the same cells can be rebuilt in PostGIS.
///
/// `size` is the square's side, or the hexagon's edge (= its circumradius, as in PostGIS; the
/// cell is 2·s wide and √3·s tall, 2.598·s² in area). Every point falls in exactly one cell:
/// squares are half-open `[x0, x0 + s)`, hexagons are decided by cube rounding.
///
/// A `regional` grid (data too wide for one projection) does the same in each `GridRegion`'s
/// own projection and cuts cells at the regions' borders (docs/GRIDS.md).
public struct MetricGrid: Sendable, Hashable {
    /// `h3`: H3 cells (GeoSpend's own H3) at resolution `size`, the same wherever the data is; the
    /// projection plays no part and a cell's i and j are the high and low halves of its index.
    public enum Shape: String, Sendable, CaseIterable { case hex, square, h3 }

    /// A cell's column and row, and in a regional grid its `GridRegion` index (0 otherwise).
    public struct Cell: Sendable, Hashable, Comparable {
        public let i: Int
        public let j: Int
        public let r: Int
        public init(i: Int, j: Int, r: Int = 0) {
            (self.i, self.j, self.r) = (i, j, r)
        }
        public static func < (a: Cell, b: Cell) -> Bool { (a.r, a.j, a.i) < (b.r, b.j, b.i) }
    }

    public let shape: Shape
    public let size: Double
    /// The one projection of a grid that is not regional.
    public let projection: EqualAreaProjection
    /// Cells in the projection of the `GridRegion` holding them, cut at its borders: for data too
    /// wide for one projection (docs/GRIDS.md). Squares are then centred on the region's centre.
    public let regional: Bool

    public init(shape: Shape, size: Double, projection: EqualAreaProjection) {
        self.shape = shape
        self.size = size
        self.projection = projection
        regional = false
    }

    /// A grid over the whole globe, one projection per `GridRegion`.
    public init(regionalShape shape: Shape, size: Double) {
        self.shape = shape
        self.size = size
        projection = GridRegion.all[0].projection
        regional = true
    }

    /// The cell holding a projected point.
    @inline(__always)
    public func cell(x: Double, y: Double) -> Cell {
        switch shape {
        case .h3:
            let g = projection.inverse(x: x, y: y)
            return cell(latitude: g.latitude, longitude: g.longitude)
        case .square:
            // Regional squares are centred on the region's centre, so a cap's centre cell holds the pole.
            let shift = regional ? 0.5 : 0
            return Cell(i: Int((x / size + shift).rounded(.down)), j: Int((y / size + shift).rounded(.down)))
        case .hex:
            // Axial coordinates of a flat-topped layout, then cube rounding (Red Blob Games).
            let q = (2.0 / 3.0 * x) / size
            let r = (-1.0 / 3.0 * x + 3.0.squareRoot() / 3.0 * y) / size
            let s = -q - r
            var rq = q.rounded(), rr = r.rounded()
            let rs = s.rounded()
            let dq = abs(rq - q), dr = abs(rr - r), ds = abs(rs - s)
            if dq > dr && dq > ds {
                rq = -rr - rs
            } else if dr > ds {
                rr = -rq - rs
            }
            let i = Int(rq), axialR = Int(rr)
            // Axial → PostGIS's offset rows: y = √3·s·(r + q/2) = √3·s·(j + |i mod 2|/2).
            return Cell(i: i, j: axialR + (i - (i & 1)) / 2)
        }
    }

    /// The cell holding a position.
    public func cell(latitude: Double, longitude: Double) -> Cell {
        if shape == .h3 {
            let h = H3.cell(latitude: latitude * .pi / 180, longitude: longitude * .pi / 180, res: Int(size)).bits
            return Cell(i: Int(h >> 32), j: Int(h & 0xFFFF_FFFF))
        }
        if regional {
            let region = GridRegion.containing(latitude: latitude, longitude: longitude)
            let p = region.projection.forward(latitude: latitude, longitude: longitude)
            let c = cell(x: p.x, y: p.y)
            return Cell(i: c.i, j: c.j, r: region.index)
        }
        let p = projection.forward(latitude: latitude, longitude: longitude)
        return cell(x: p.x, y: p.y)
    }

    /// The cell's centre in the projected plane.
    public func center(_ c: Cell) -> (x: Double, y: Double) {
        switch shape {
        case .h3:
            let g = H3.cellToLatLng(h3Cell(c))
            return projection.forward(latitude: g.latitude, longitude: g.longitude)
        case .square:
            let shift = regional ? 0 : 0.5
            return ((Double(c.i) + shift) * size, (Double(c.j) + shift) * size)
        case .hex:
            return (1.5 * size * Double(c.i), 3.0.squareRoot() * size * (Double(c.j) + (c.i & 1 == 0 ? 0 : 0.5)))
        }
    }

    /// The cell's corners in the projected plane, counter-clockwise, not repeated at the end.
    public func corners(_ c: Cell) -> [(x: Double, y: Double)] {
        let (cx, cy) = center(c)
        switch shape {
        case .h3:
            return H3.cellToBoundary(h3Cell(c)).map { projection.forward(latitude: $0.latitude, longitude: $0.longitude) }
        case .square:
            let h = size / 2
            return [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]
        case .hex:
            let h = size * 3.0.squareRoot() / 2
            return [
                (cx - size, cy), (cx - size / 2, cy - h), (cx + size / 2, cy - h),
                (cx + size, cy), (cx + size / 2, cy + h), (cx - size / 2, cy + h),
            ]
        }
    }

    /// The cell's boundary as GeoJSON polygons in degrees: usually one; two when it crosses ±180°.
    /// Edges are subdivided so no point of a drawn edge strays more than ~1 cm from the true one.
    public func polygons(_ c: Cell) -> [[[Double]]] {
        if shape == .h3 { return H3Feature.polygons(h3Cell(c)) }
        if regional { return RegionalCell.polygons(corners(c), size: size, region: GridRegion.all[c.r - 1], holdsPole: c.i == 0 && c.j == 0) }
        let corners = corners(c)
        // Straight edges in metres are slightly curved in degrees; above 2 km, 8 points per edge
        // keep the drawn edge within centimetres of the true one.
        let steps = size > 2_000 ? 8 : 1
        var ring: [(x: Double, y: Double)] = []
        for (n, a) in corners.enumerated() {
            let b = corners[(n + 1) % corners.count]
            for k in 0..<steps {
                let t = Double(k) / Double(steps)
                ring.append((a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t))
            }
        }
        let lonLat = ring.map { p -> [Double] in
            let g = projection.inverse(x: p.x, y: p.y)
            return [g.longitude, g.latitude]
        }
        return AntimeridianSplit.polygons(exterior: lonLat)
    }

    /// A stable text id: shape, size, projection origin and the cell's column and row, e.g.
    /// `hex-250m@60,25:12,-3` (regional: `hex-250m@region60,30:12,-3`, the region's centre).
    /// The same grid gives every cell the same id on every run.
    public func id(_ c: Cell) -> String { cellIDs()(c) }

    /// `id(_:)` with the grid's part of the text formatted once, for writing many cells.
    public func cellIDs() -> (Cell) -> String {
        if shape == .h3 { return { h3Cell($0).id } }
        if regional {
            // The region's centre names its projection: `hex-250m@region60,-150:12,-3`.
            let prefixes = GridRegion.all.map {
                "\(shape.rawValue)-\(formatDecimal(size, digits: 3))m@region\(formatDecimal($0.origin.latitude, digits: 0)),"
                    + "\(formatDecimal($0.origin.longitude, digits: 0)):"
            }
            return { prefixes[$0.r - 1] + "\($0.i),\($0.j)" }
        }
        let prefix = "\(shape.rawValue)-\(formatDecimal(size, digits: 3))m@\(formatDecimal(projection.origin.latitude, digits: 6)),"
            + "\(formatDecimal(projection.origin.longitude, digits: 6)):"
        return { prefix + "\($0.i),\($0.j)" }
    }

    /// The H3 cell of an `h3` grid's cell.
    public func h3Cell(_ c: Cell) -> H3Cell {
        H3Cell(H3Index(bits: UInt64(UInt32(truncatingIfNeeded: c.i)) << 32 | UInt64(UInt32(truncatingIfNeeded: c.j))))
    }

    /// The default origin for data centred at `center`: rounded to whole degrees, so the same
    /// data gives the same grid and data growing a little keeps it.
    public static func origin(around center: Coordinate) -> Coordinate {
        let lat = max(-89, min(89, center.latitude.rounded()))
        let lon = center.longitude.rounded()
        return Coordinate(uncheckedLatitude: lat, longitude: lon == -180 ? 180 : lon)
    }
}
