/// Cuts rings that cross ±180° into pieces on either side (RFC 7946 §3.1.9), and closes rings
/// that wind around a pole.
enum AntimeridianSplit {
    /// `exterior`: a ring of [lon, lat] without the closing position, counter-clockwise.
    /// Returns closed rings, each a polygon's exterior.
    static func polygons(exterior: [[Double]]) -> [[[Double]]] {
        // A longitude a rounding error off ±180° (an unwrapped edge point) is put on it: else the
        // cut and the vertex come out an ulp apart, and written with 9 decimals as one position twice.
        let unwrapped = unwrapped(exterior).map { p -> [Double] in
            let line = ((p[0] + 180) / 360).rounded() * 360 - 180
            return abs(p[0] - line) < 1e-9 ? [line, p[1]] : p
        }
        let lons = unwrapped.map { $0[0] }
        let minLon = lons.min()!, maxLon = lons.max()!
        if minLon >= -180 && maxLon <= 180 { return [closed(unwrapped)] }
        // Clip to each 360°-wide window the ring touches and shift the piece back into range.
        var pieces: [[[Double]]] = []
        var window = ((minLon + 180) / 360).rounded(.down)
        while window * 360 - 180 < maxLon {
            let west = window * 360 - 180, east = west + 360
            var piece = clip(unwrapped, axis: 0, keep: { $0 >= west }, boundary: west)
            piece = clip(piece, axis: 0, keep: { $0 <= east }, boundary: east)
            // A vertex exactly on the cut comes out twice (as itself and as the cut); once is enough.
            piece = piece.enumerated().filter { $0.offset == 0 || $0.element != piece[$0.offset - 1] }.map(\.element)
            if piece.count > 1 && piece.first == piece.last { piece.removeLast() }
            if piece.count >= 3 {
                let shifted = piece.map { [$0[0] - window * 360, $0[1]] }
                pieces.append(closed(shifted))
            }
            window += 1
        }
        return pieces
    }

    /// A ring (open, counter-clockwise on the ground) that winds once around a pole, as one closed
    /// polygon: cut at ±180°, run from −180° to 180° along the ring, then back along the pole's
    /// line (latitude ±90°, where every longitude is the same place) — the way RFC 7946 §3.1.9's
    /// ±180° cut and a plane of longitude and latitude draw a polar cap. Counter-clockwise.
    static func aroundPole(_ ring: [[Double]], north: Bool) -> [[Double]] {
        var u = unwrapped(ring)
        u.append([u[0][0] + (u.last![0] > u[0][0] ? 360 : -360), u[0][1]])
        if u.last![0] < u[0][0] { u.reverse() }  // longitudes now rise from L to L + 360
        // The one longitude ≡ 180° in (L, L + 360], where the ring is cut.
        let cut = 180 + 360 * ((u[0][0] - 180) / 360).rounded(.down) + 360
        let twice = u + u.dropFirst().map { [$0[0] + 360, $0[1]] }
        var out: [[Double]] = []
        for n in 1..<twice.count {
            let (a, b) = (twice[n - 1], twice[n])
            for edge in [cut, cut + 360] where a[0] < edge && b[0] >= edge {
                out.append([edge, a[1] + (b[1] - a[1]) * (edge - a[0]) / (b[0] - a[0])])
            }
            if b[0] > cut && b[0] < cut + 360 { out.append(b) }
        }
        let pole = north ? 90.0 : -90.0
        out = out.map { [$0[0] - cut - 180, $0[1]] } + [[180, pole], [-180, pole]]
        return closed(signedArea(out) < 0 ? out.reversed() : out)
    }

    /// Longitudes moved by whole turns so consecutive vertices never jump by more than 180°.
    static func unwrapped(_ ring: [[Double]]) -> [[Double]] {
        var out: [[Double]] = []
        out.reserveCapacity(ring.count)
        for p in ring {
            var lon = p[0]
            if let last = out.last {
                while lon - last[0] > 180 { lon -= 360 }
                while lon - last[0] < -180 { lon += 360 }
            }
            out.append([lon, p[1]])
        }
        return out
    }

    /// Sutherland–Hodgman against one line `p[axis] = boundary`: keeps the side where
    /// `keep(p[axis])` holds.
    static func clip(_ ring: [[Double]], axis: Int, keep: (Double) -> Bool, boundary: Double) -> [[Double]] {
        guard !ring.isEmpty else { return [] }
        let other = 1 - axis
        var out: [[Double]] = []
        for (n, current) in ring.enumerated() {
            let previous = ring[(n + ring.count - 1) % ring.count]
            let inCurrent = keep(current[axis]), inPrevious = keep(previous[axis])
            if inCurrent != inPrevious {
                let t = (boundary - previous[axis]) / (current[axis] - previous[axis])
                // A vertex on the line is its own cut: interpolated, it came out an ulp apart and
                // written with 9 decimals as the same position twice (geojson-validator's duplicate_nodes).
                if !((t == 1 && inCurrent) || (t == 0 && inPrevious)) {
                    var cut = [0.0, 0.0]
                    cut[axis] = boundary
                    cut[other] = previous[other] + (current[other] - previous[other]) * t
                    out.append(cut)
                }
            }
            if inCurrent { out.append(current) }
        }
        return out
    }

    /// Shoelace over an open ring: positive when counter-clockwise.
    static func signedArea(_ ring: [[Double]]) -> Double {
        var twice = 0.0
        for (n, a) in ring.enumerated() {
            let b = ring[(n + 1) % ring.count]
            twice += a[0] * b[1] - b[0] * a[1]
        }
        return twice / 2
    }

    private static func closed(_ ring: [[Double]]) -> [[Double]] { ring + [ring[0]] }
}
