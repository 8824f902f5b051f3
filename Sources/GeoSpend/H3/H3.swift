import Foundation

/// An H3 cell id (h3geo.org), kept as its 64-bit index; printed as 15 lowercase hex digits.
public struct H3Cell: Hashable, Sendable, Comparable, CustomStringConvertible {
    let index: H3Index

    init(_ index: H3Index) { self.index = index }

    /// Parses and validates an id such as "8928308280fffff" (case-insensitive).
    public init(_ text: String) throws {
        guard (1...16).contains(text.count), let bits = UInt64(text, radix: 16) else {
            throw H3Error.invalidCell(text, reason: "it is not 1–16 hexadecimal digits")
        }
        let h = H3Index(bits: bits)
        if let why = h.invalidity { throw H3Error.invalidCell(text, reason: why) }
        index = h
    }

    public var id: String { index.text }
    public var description: String { id }
    public var resolution: Int { index.resolution }
    public var baseCell: Int { index.baseCell }
    public var isPentagon: Bool { index.isPentagon }
    public var bits: UInt64 { index.bits }

    public static func < (a: H3Cell, b: H3Cell) -> Bool { a.index.bits < b.index.bits }
}

/// H3 written for GeoSpend from the published description (h3geo.org "Indexing", "Coordinate
/// systems", "Base cells", "Pentagons", "Index bit layout"; Sahr et al. 2003), checked against
/// PyPI h3 4.x (Tests/GeoSpendTests/H3OracleTests.swift). Degrees in and out.
public enum H3 {
    public static let resolutions = 0...15

    /// The cell holding a position at `resolution`.
    public static func latLngToCell(latitude: Double, longitude: Double, resolution res: Int) throws -> H3Cell {
        guard resolutions.contains(res) else { throw H3Error.invalidResolution(res) }
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else {
            throw H3Error.invalidCoordinate(latitude: latitude, longitude: longitude)
        }
        return H3Cell(cell(latitude: latitude * .pi / 180, longitude: longitude * .pi / 180, res: res))
    }

    /// The cell's centre (latitude, longitude).
    public static func cellToLatLng(_ cell: H3Cell) -> (latitude: Double, longitude: Double) {
        let p = faceIJK(cell.index)
        let g = H3Face.unproject(p.ijk.planar, face: p.face, res: cell.resolution, substrate: false)
        return degrees(g)
    }

    /// The cell's outline, counter-clockwise, not closed: 6 vertices for a hexagon, 5 for a pentagon,
    /// more where a Class III cell crosses icosahedron edges.
    public static func cellToBoundary(_ cell: H3Cell) -> [(latitude: Double, longitude: Double)] {
        let p = faceIJK(cell.index)
        let v = cell.isPentagon ? H3Boundary.pentagon(p, res: cell.resolution) : H3Boundary.hexagon(p, res: cell.resolution)
        return v.map(degrees)
    }

    public static func cellToParent(_ cell: H3Cell, resolution res: Int) throws -> H3Cell {
        guard resolutions.contains(res), res <= cell.resolution else { throw H3Error.invalidResolution(res) }
        return H3Cell(cell.index.parent(at: res))
    }

    /// Every descendant at `resolution` (7 per level; a pentagon's centre child has no K child).
    public static func cellToChildren(_ cell: H3Cell, resolution res: Int) throws -> [H3Cell] {
        guard resolutions.contains(res), res >= cell.resolution else { throw H3Error.invalidResolution(res) }
        var level = [cell.index]
        for r in stride(from: cell.resolution + 1, through: res, by: 1) {
            var next: [H3Index] = []
            next.reserveCapacity(level.count * 7)
            for h in level {
                let pentagon = h.isPentagon
                var child = H3Index(bits: h.bits & ~(0xF << 52) | UInt64(r) << 52)
                for d in 0..<7 where !(pentagon && d == 1) {
                    child.setDigit(r, d)
                    next.append(child)
                }
            }
            level = next
        }
        return level.map(H3Cell.init)
    }

    /// The cells within `k` steps of `cell` (itself included). Neighbours are found across each
    /// boundary edge: a point just outside the edge's midpoint lies in the cell on the other side.
    public static func gridDisk(_ cell: H3Cell, k: Int) throws -> Set<H3Cell> {
        guard k >= 0 else { throw H3Error.invalidRing(k) }
        var seen: Set<H3Cell> = [cell]
        var frontier = [cell]
        for _ in 0..<k {
            var next: [H3Cell] = []
            for c in frontier {
                for n in neighbours(c) where seen.insert(n).inserted { next.append(n) }
            }
            frontier = next
        }
        return seen
    }

    static func neighbours(_ cell: H3Cell) -> Set<H3Cell> {
        let p = faceIJK(cell.index)
        let v = cell.isPentagon ? H3Boundary.pentagon(p, res: cell.resolution) : H3Boundary.hexagon(p, res: cell.resolution)
        let centre = H3Face.unproject(p.ijk.planar, face: p.face, res: cell.resolution, substrate: false)
        let c = H3Face.unitVector(latitude: centre.lat, longitude: centre.lng)
        var out: Set<H3Cell> = []
        for n in v.indices {
            let a = H3Face.unitVector(latitude: v[n].lat, longitude: v[n].lng)
            let b = H3Face.unitVector(latitude: v[(n + 1) % v.count].lat, longitude: v[(n + 1) % v.count].lng)
            let m = (a + b) / 2
            var q = m + (m - c) * 0.05
            q /= (q * q).sum().squareRoot()
            let h = H3.cell(latitude: asin(Swift.max(-1, Swift.min(1, q.z))), longitude: atan2(q.y, q.x), res: cell.resolution)
            if h != cell.index { out.insert(H3Cell(h)) }
        }
        return out
    }

    private static func degrees(_ g: (lat: Double, lng: Double)) -> (latitude: Double, longitude: Double) {
        (g.lat * 180 / .pi, g.lng * 180 / .pi)
    }

    /// Position (radians) → index: the lattice cell on the point's face, its digits read off
    /// while climbing to resolution 0, then turned into the base cell's frame.
    static func cell(latitude: Double, longitude: Double, res: Int) -> H3Index {
        cell(H3Face.polar(latitude: latitude, longitude: longitude), res: res)
    }

    /// The cell of a position already projected onto its face (`H3Face.polar`): one projection
    /// serves every resolution.
    static func cell(_ polar: H3Face.Polar, res: Int) -> H3Index {
        let face = polar.face, point = H3Face.point(polar, res: res)
        var ijk = H3IJK(nearest: point)
        var digits = H3Index(baseCell: 0, resolution: res)
        for r in stride(from: res, to: 0, by: -1) {
            let child = ijk
            let centre: H3IJK
            if H3Face.isClassIII(r) {
                ijk = ijk.parentOfClassIII
                centre = ijk.childCentreClassIII
            } else {
                ijk = ijk.parentOfClassII
                centre = ijk.childCentreClassII
            }
            digits.setDigit(r, (child - centre).digit!)
        }
        guard let base = H3BaseCells.at(H3FaceIJK(face: face, ijk: ijk)) else {
            preconditionFailure("H3: resolution-0 position \(ijk) off face \(face)'s table")
        }
        var h = H3Index(bits: digits.bits & ~(0x7F << 45) | UInt64(base.cell) << 45)
        if H3BaseCells.isPentagon(base.cell) {
            if h.leadingDigit == 1 {
                h = H3BaseCells.isClockwiseOffset(base.cell, face: face) ? h.turnedCW : h.turnedCCW
            }
            for _ in 0..<base.ccwTurns { h = h.turnedPentagonCCW }
        } else {
            for _ in 0..<base.ccwTurns { h = h.turnedCCW }
        }
        return h
    }

    /// Index → the cell centre's face and lattice position: down from the base cell's home
    /// through the digits, then onto the neighbouring face when the centre lies past an edge.
    static func faceIJK(_ cell: H3Index) -> H3FaceIJK {
        var h = cell
        let base = h.baseCell
        let pentagon = H3BaseCells.isPentagon(base)
        // A pentagon has no K sequence; its IK sequence sits one turn clockwise.
        if pentagon && h.leadingDigit == 5 { h = h.turnedCW }
        var p = H3BaseCells.home(base)
        let res = h.resolution
        for r in stride(from: 1, through: res, by: 1) {
            p.ijk = H3Face.isClassIII(r) ? p.ijk.childCentreClassIII : p.ijk.childCentreClassII
            p.ijk = p.ijk + H3IJK(digit: h.digit(r))
        }
        // A hexagon base cell centred on its face keeps all its descendants on that face.
        if !pentagon && (res == 0 || H3BaseCells.home(base).ijk == .zero) {
            return p
        }
        let original = p.ijk
        var classIIRes = res
        if H3Face.isClassIII(res) {
            p.ijk = p.ijk.childCentreClassII
            classIIRes += 1
        }
        let leading4 = pentagon && h.leadingDigit == 4
        if H3Face.adjustOverage(&p, res: classIIRes, pentagonLeading4: leading4, substrate: false) != .none {
            if pentagon {
                while H3Face.adjustOverage(&p, res: classIIRes, pentagonLeading4: false, substrate: false) != .none {}
            }
            if classIIRes != res { p.ijk = p.ijk.parentOfClassII }
        } else if classIIRes != res {
            p.ijk = original
        }
        return p
    }
}
