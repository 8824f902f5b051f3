import Foundation

/// A lattice position on one icosahedron face.
struct H3FaceIJK: Hashable, Sendable {
    var face: Int
    var ijk: H3IJK
}

/// The icosahedron's 20 faces and each face's gnomonic projection (h3geo.org "Coordinate
/// systems"): a point's face is the one with the nearest centre; on it, the plane position is
/// tan(arc from the centre) at the azimuth measured from the face's i axis. Gnomonic keeps great
/// circles straight, so each face's lattice and the icosahedron's edges are straight lines.
enum H3Face {
    static let count = 20
    /// The turn between a Class III lattice and the face axes: atan(√3/5), from the aperture-7
    /// child of i being (3,0,1) = (2.5, −√3/2).
    static let classIIIRotation = atan(3.0.squareRoot() / 5)
    static let sqrt7 = 7.0.squareRoot()

    static let centres: [(lat: Double, lng: Double, xyz: SIMD3<Double>)] = H3Tables.faceCentres.map {
        ($0.0, $0.1, unitVector(latitude: $0.0, longitude: $0.1))
    }

    static func unitVector(latitude: Double, longitude: Double) -> SIMD3<Double> {
        SIMD3(cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
    }

    static func isClassIII(_ res: Int) -> Bool { res % 2 == 1 }

    /// Class II lattice units across a face's centre-to-vertex at a Class II resolution (2·7^(r/2)).
    static func maxDim(classII res: Int) -> Int { 2 * unitScale(classII: res) }
    static func unitScale(classII res: Int) -> Int {
        var s = 1
        for _ in 0..<(res / 2) { s *= 7 }
        return s
    }

    /// A position's face and gnomonic polar position on it, in resolution-0 units: the part every
    /// resolution shares (the map rollups project a point once for six).
    struct Polar {
        let face: Int
        /// Nil at the face's centre.
        let r0: Double?
        let theta: Double
    }

    static func polar(latitude: Double, longitude: Double) -> Polar {
        let v = unitVector(latitude: latitude, longitude: longitude)
        var face = 0, best = Double.infinity
        for f in 0..<count {
            let d = v - centres[f].xyz
            let sq = (d * d).sum()
            if sq < best { best = sq; face = f }
        }
        let arc = acos(Swift.max(-1, Swift.min(1, 1 - best / 2)))
        if arc < 1e-16 { return Polar(face: face, r0: nil, theta: 0) }
        let c = centres[face]
        let theta = positive(H3Tables.faceAxisAzimuths[face] - positive(azimuth(from: (c.lat, c.lng), to: (latitude, longitude))))
        return Polar(face: face, r0: tan(arc) / H3Tables.res0UnitGnomonic, theta: theta)
    }

    /// The polar position in resolution-`res` lattice units.
    static func point(_ p: Polar, res: Int) -> H3Vec2 {
        guard let r0 = p.r0 else { return H3Vec2(x: 0, y: 0) }
        var theta = p.theta
        if isClassIII(res) { theta = positive(theta - classIIIRotation) }
        let r = r0 * pow(sqrt7, Double(res))
        return H3Vec2(x: r * cos(theta), y: r * sin(theta))
    }

    /// A plane point on `face` in resolution-`res` lattice units → (latitude, longitude) radians.
    /// `substrate`: the point is in the finer vertex lattice (3× a Class II resolution's units).
    static func unproject(_ p: H3Vec2, face: Int, res: Int, substrate: Bool) -> (lat: Double, lng: Double) {
        let c = centres[face]
        var r = p.length
        if r < 1e-16 { return (c.lat, c.lng) }
        var theta = atan2(p.y, p.x)
        r /= pow(sqrt7, Double(res))
        if substrate {
            r /= 3
            if isClassIII(res) { r /= sqrt7 }
        } else if isClassIII(res) {
            theta = positive(theta + classIIIRotation)
        }
        r = atan(r * H3Tables.res0UnitGnomonic)
        return destination(from: (c.lat, c.lng), azimuth: positive(H3Tables.faceAxisAzimuths[face] - theta), arc: r)
    }

    static func positive(_ a: Double) -> Double {
        let t = a < 0 ? a + 2 * .pi : a
        return t >= 2 * .pi ? t - 2 * .pi : t
    }

    /// Initial great-circle azimuth, clockwise from north.
    static func azimuth(from a: (Double, Double), to b: (Double, Double)) -> Double {
        atan2(cos(b.0) * sin(b.1 - a.1), cos(a.0) * sin(b.0) - sin(a.0) * cos(b.0) * cos(b.1 - a.1))
    }

    /// The point `arc` radians from `a` at `azimuth`; longitude in [−π, π]. Built as a 3D vector
    /// so latitude keeps its digits near the poles (asin of a sine near 1 loses half of them).
    static func destination(from a: (Double, Double), azimuth az: Double, arc: Double) -> (lat: Double, lng: Double) {
        let p = unitVector(latitude: a.0, longitude: a.1)
        let north = SIMD3(-sin(a.0) * cos(a.1), -sin(a.0) * sin(a.1), cos(a.0))
        let east = SIMD3(-sin(a.1), cos(a.1), 0.0)
        let q = cos(arc) * p + sin(arc) * (cos(az) * north + sin(az) * east)
        let h = (q.x * q.x + q.y * q.y).squareRoot()
        return (atan2(q.z, h), h == 0 ? 0 : atan2(q.y, q.x))
    }

    /// The edge quadrant of `face` that borders `other`: 1 IJ, 2 KI, 3 JK (0 itself, nil if none).
    static func quadrant(of face: Int, towards other: Int) -> Int? {
        H3Tables.faceNeighbours[face].firstIndex { $0.face == other }
    }

    enum Overage { case none, faceEdge, newFace }

    /// Moves a Class II (or substrate) position that lies past its face's edge onto the face across
    /// it, in that face's frame. `pentagonLeading4`: a pentagon's I sequence crossing the KI edge
    /// first turns clockwise about the pentagon, skipping its deleted K sector.
    static func adjustOverage(_ p: inout H3FaceIJK, res: Int, pentagonLeading4: Bool, substrate: Bool) -> Overage {
        var maxDim = maxDim(classII: res)
        if substrate { maxDim *= 3 }
        let sum = p.ijk.i + p.ijk.j + p.ijk.k
        if substrate && sum == maxDim { return .faceEdge }
        guard sum > maxDim else { return .none }
        let quadrant: Int
        if p.ijk.k > 0 {
            if p.ijk.j > 0 {
                quadrant = 3
            } else {
                quadrant = 2
                if pentagonLeading4 {
                    let origin = H3IJK(i: maxDim, j: 0, k: 0)
                    p.ijk = (p.ijk - origin).turnedCW + origin
                }
            }
        } else {
            quadrant = 1
        }
        let n = H3Tables.faceNeighbours[p.face][quadrant]
        p.face = n.face
        for _ in 0..<n.ccwTurns { p.ijk = p.ijk.turnedCCW }
        var scale = unitScale(classII: res)
        if substrate { scale *= 3 }
        p.ijk = p.ijk + H3IJK(i: n.translate.0, j: n.translate.1, k: n.translate.2) * scale
        if substrate && p.ijk.i + p.ijk.j + p.ijk.k == maxDim { return .faceEdge }
        return .newFace
    }
}
