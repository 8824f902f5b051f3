import Foundation

/// A cell's outline (h3geo.org "Cell boundaries"): the hexagon's (or pentagon's) corners in the
/// finer vertex lattice (3× a Class II resolution: Class III cells drop into the next Class II
/// resolution first), each moved onto the face it lies on. A Class III cell's edges cross the
/// icosahedron's edges, so where consecutive corners lie on different faces the crossing point
/// is added as a vertex: the corner-to-corner line and the face edge are both straight in the
/// unfolded face plane.
enum H3Boundary {
    /// Corner 0 lies at 30° from the cell's own i axis, the rest follow counter-clockwise; in the
    /// vertex lattice that is (2,1,0) for Class II and, turned by the Class III rotation and √7
    /// longer, (5,4,0) for Class III.
    static let classIICorners = corners(from: H3IJK(i: 2, j: 1, k: 0))
    static let classIIICorners = corners(from: H3IJK(i: 5, j: 4, k: 0))

    private static func corners(from first: H3IJK) -> [H3IJK] {
        var c = [first]
        for _ in 1..<6 { c.append(c.last!.turnedCCW) }
        return c
    }

    /// Corners of the icosahedron face in vertex-lattice units at Class II resolution `res`.
    private static func faceCorners(res: Int) -> [H3Vec2] {
        let m = Double(3 * H3Face.maxDim(classII: res))
        let h = 3.0.squareRoot() / 2
        return [H3Vec2(x: m, y: 0), H3Vec2(x: -m / 2, y: h * m), H3Vec2(x: -m / 2, y: -h * m)]
    }

    /// The face edge on the side of `quadrant` (1 IJ, 2 KI, 3 JK).
    private static func edge(_ quadrant: Int?, res: Int) -> (H3Vec2, H3Vec2) {
        let c = faceCorners(res: res)
        switch quadrant {
        case 1: return (c[0], c[1])
        case 3: return (c[1], c[2])
        default: return (c[2], c[0])
        }
    }

    private static func intersection(_ p0: H3Vec2, _ p1: H3Vec2, _ q0: H3Vec2, _ q1: H3Vec2) -> H3Vec2 {
        let s1 = H3Vec2(x: p1.x - p0.x, y: p1.y - p0.y), s2 = H3Vec2(x: q1.x - q0.x, y: q1.y - q0.y)
        let t = (s2.x * (p0.y - q0.y) - s2.y * (p0.x - q0.x)) / (-s2.x * s1.y + s1.x * s2.y)
        return H3Vec2(x: p0.x + t * s1.x, y: p0.y + t * s1.y)
    }

    private static func nearlyEqual(_ a: H3Vec2, _ b: H3Vec2) -> Bool {
        abs(a.x - b.x) < Double(Float.ulpOfOne) && abs(a.y - b.y) < Double(Float.ulpOfOne)
    }

    /// The centre in the vertex lattice and its Class II resolution.
    private static func substrate(_ centre: H3FaceIJK, res: Int) -> (H3FaceIJK, Int) {
        var c = centre
        var adjRes = res
        if H3Face.isClassIII(res) {
            c.ijk = c.ijk.childCentreClassII
            adjRes += 1
        }
        c.ijk = c.ijk * 3
        return (c, adjRes)
    }

    /// Vertices (radians) of the hexagon centred at `centre`.
    static func hexagon(_ centre: H3FaceIJK, res: Int) -> [(lat: Double, lng: Double)] {
        let (c, adjRes) = substrate(centre, res: res)
        let offsets = H3Face.isClassIII(res) ? classIIICorners : classIICorners
        var out: [(lat: Double, lng: Double)] = []
        var lastFace = -1
        var lastOverage = H3Face.Overage.none
        for v in 0...6 {
            var p = H3FaceIJK(face: c.face, ijk: c.ijk + offsets[v % 6])
            let overage = H3Face.adjustOverage(&p, res: adjRes, pentagonLeading4: false, substrate: true)
            if H3Face.isClassIII(res) && v > 0 && p.face != lastFace && lastOverage != .faceEdge {
                let a = (c.ijk + offsets[(v + 5) % 6]).planar, b = (c.ijk + offsets[v % 6]).planar
                let other = lastFace == c.face ? p.face : lastFace
                let (e0, e1) = edge(H3Face.quadrant(of: c.face, towards: other), res: adjRes)
                let x = intersection(a, b, e0, e1)
                if !nearlyEqual(a, x) && !nearlyEqual(b, x) {
                    out.append(H3Face.unproject(x, face: c.face, res: adjRes, substrate: true))
                }
            }
            if v < 6 { out.append(H3Face.unproject(p.ijk.planar, face: p.face, res: adjRes, substrate: true)) }
            lastFace = p.face
            lastOverage = overage
        }
        return out
    }

    /// Vertices (radians) of the pentagon centred at `centre`: the first five corners; each may
    /// cross several faces around the icosahedron vertex, and every Class III pentagon edge crosses
    /// a face edge.
    static func pentagon(_ centre: H3FaceIJK, res: Int) -> [(lat: Double, lng: Double)] {
        let (c, adjRes) = substrate(centre, res: res)
        let offsets = H3Face.isClassIII(res) ? classIIICorners : classIICorners
        var out: [(lat: Double, lng: Double)] = []
        var last = c
        for v in 0...5 {
            var p = H3FaceIJK(face: c.face, ijk: c.ijk + offsets[v % 5])
            while H3Face.adjustOverage(&p, res: adjRes, pentagonLeading4: false, substrate: true) == .newFace {}
            if H3Face.isClassIII(res) && v > 0 {
                // The current corner carried into the last corner's face frame.
                var q = p
                let n = H3Tables.faceNeighbours[q.face][H3Face.quadrant(of: q.face, towards: last.face) ?? 0]
                q.face = n.face
                for _ in 0..<n.ccwTurns { q.ijk = q.ijk.turnedCCW }
                q.ijk = q.ijk + H3IJK(i: n.translate.0, j: n.translate.1, k: n.translate.2) * (H3Face.unitScale(classII: adjRes) * 3)
                let (e0, e1) = edge(H3Face.quadrant(of: q.face, towards: p.face), res: adjRes)
                let x = intersection(last.ijk.planar, q.ijk.planar, e0, e1)
                out.append(H3Face.unproject(x, face: q.face, res: adjRes, substrate: true))
            }
            if v < 5 { out.append(H3Face.unproject(p.ijk.planar, face: p.face, res: adjRes, substrate: true)) }
            last = p
        }
        return out
    }
}
