import Foundation

/// A position on one face's hexagon lattice in H3's ijk coordinates (h3geo.org "Coordinate
/// systems"): three axes 120° apart (i at 0°, j at 120°, k at 240°), one unit per cell spacing,
/// kept normalised (no negative component, at least one zero).
struct H3IJK: Hashable, Sendable {
    var i: Int
    var j: Int
    var k: Int

    init(i: Int, j: Int, k: Int) {
        self.i = i
        self.j = j
        self.k = k
    }

    static let zero = H3IJK(i: 0, j: 0, k: 0)

    var normalized: H3IJK {
        var c = self
        if c.i < 0 { c.j -= c.i; c.k -= c.i; c.i = 0 }
        if c.j < 0 { c.i -= c.j; c.k -= c.j; c.j = 0 }
        if c.k < 0 { c.i -= c.k; c.j -= c.k; c.k = 0 }
        let m = Swift.min(c.i, c.j, c.k)
        return H3IJK(i: c.i - m, j: c.j - m, k: c.k - m)
    }

    static func + (a: H3IJK, b: H3IJK) -> H3IJK { H3IJK(i: a.i + b.i, j: a.j + b.j, k: a.k + b.k).normalized }
    static func - (a: H3IJK, b: H3IJK) -> H3IJK { H3IJK(i: a.i - b.i, j: a.j - b.j, k: a.k - b.k).normalized }
    static func * (a: H3IJK, s: Int) -> H3IJK { H3IJK(i: a.i * s, j: a.j * s, k: a.k * s) }

    /// Turned 60° counter-clockwise: i → i+j, j → j+k, k → k+i.
    var turnedCCW: H3IJK { H3IJK(i: i + k, j: i + j, k: j + k).normalized }
    /// Turned 60° clockwise: i → i+k, j → i+j, k → j+k.
    var turnedCW: H3IJK { H3IJK(i: i + j, j: j + k, k: i + k).normalized }

    // Aperture 7 (Sahr et al.): a child resolution's lattice is the parent's scaled by 1/√7 and
    // turned by atan(√3/5) ≈ 19.1°, counter-clockwise into a Class III resolution, back clockwise
    // into a Class II one. Seen from the child frame a parent unit vector is then √7 long:
    // into Class III (frame turned ccw) the parent's i is (3,0,1), j (1,3,0), k (0,1,3); into
    // Class II (turned cw) i is (3,1,0), j (0,3,1), k (1,0,3).

    /// The centre of this parent cell in the Class III child lattice.
    var childCentreClassIII: H3IJK { H3IJK(i: 3 * i + j, j: 3 * j + k, k: i + 3 * k).normalized }
    /// The centre of this parent cell in the Class II child lattice.
    var childCentreClassII: H3IJK { H3IJK(i: 3 * i + k, j: i + 3 * j, k: j + 3 * k).normalized }

    /// The parent holding this Class III child: the inverse of the map above, rounded. The seven
    /// children sit within one child unit of their parent's centre, well inside rounding's ±½.
    var parentOfClassIII: H3IJK {
        let a = Double(i - k), b = Double(j - k)
        return H3IJK(i: Int(((3 * a - b) / 7).rounded()), j: Int(((a + 2 * b) / 7).rounded()), k: 0).normalized
    }

    /// The parent holding this Class II child.
    var parentOfClassII: H3IJK {
        let a = Double(i - k), b = Double(j - k)
        return H3IJK(i: Int(((2 * a + b) / 7).rounded()), j: Int(((3 * b - a) / 7).rounded()), k: 0).normalized
    }

    /// A digit is a unit vector's ijk read as a 3-bit number (i = 4, j = 2, k = 1): 0 centre,
    /// 1 K, 2 J, 3 JK, 4 I, 5 IK, 6 IJ (h3geo.org "Indexing").
    init(digit: Int) { self.init(i: digit >> 2 & 1, j: digit >> 1 & 1, k: digit & 1) }
    var digit: Int? { i <= 1 && j <= 1 && k <= 1 && self != H3IJK(i: 1, j: 1, k: 1) ? i << 2 | j << 1 | k : nil }

    /// The point in the face plane, x along i, in lattice units.
    var planar: H3Vec2 {
        let a = Double(i - k), b = Double(j - k)
        return H3Vec2(x: a - b / 2, y: b * 3.0.squareRoot() / 2)
    }

    /// The lattice point nearest to a plane point: axial coordinates on a 60° basis, then cube
    /// rounding (the component rounded furthest is rebuilt from the other two).
    init(nearest p: H3Vec2) {
        let r = 2 * p.y / 3.0.squareRoot(), q = p.x - r / 2, s = -q - r
        var rq = q.rounded(), rr = r.rounded()
        let rs = s.rounded()
        let dq = abs(rq - q), dr = abs(rr - r), ds = abs(rs - s)
        if dq > dr && dq > ds { rq = -rr - rs } else if dr > ds { rr = -rq - rs }
        // q along i and r along i+j (60°): i = q + r, j = r.
        self = H3IJK(i: Int(rq) + Int(rr), j: Int(rr), k: 0).normalized
    }
}

/// A point in a face's gnomonic plane.
struct H3Vec2: Sendable {
    var x: Double
    var y: Double
    var length: Double { (x * x + y * y).squareRoot() }
}
