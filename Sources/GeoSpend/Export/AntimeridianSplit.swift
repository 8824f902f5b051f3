/// Cuts rings that cross ±180° into pieces on either side (RFC 7946 §3.1.9).
enum AntimeridianSplit {
    /// `exterior`: a ring of [lon, lat] without the closing position, counter-clockwise.
    /// Returns closed rings, each a polygon's exterior.
    static func polygons(exterior: [[Double]]) -> [[[Double]]] {
        // Unwrap longitudes so consecutive vertices never jump by more than 180°.
        var unwrapped: [[Double]] = []
        for p in exterior {
            var lon = p[0]
            if let last = unwrapped.last {
                while lon - last[0] > 180 { lon -= 360 }
                while lon - last[0] < -180 { lon += 360 }
            }
            unwrapped.append([lon, p[1]])
        }
        let lons = unwrapped.map { $0[0] }
        let minLon = lons.min()!, maxLon = lons.max()!
        if minLon >= -180 && maxLon <= 180 { return [closed(unwrapped)] }
        // Clip to each 360°-wide window the ring touches and shift the piece back into range.
        var pieces: [[[Double]]] = []
        var window = ((minLon + 180) / 360).rounded(.down)
        while window * 360 - 180 < maxLon {
            let west = window * 360 - 180, east = west + 360
            var piece = clip(unwrapped, keep: { $0 >= west }, boundary: west)
            piece = clip(piece, keep: { $0 <= east }, boundary: east)
            if piece.count >= 3 {
                let shifted = piece.map { [$0[0] - window * 360, $0[1]] }
                pieces.append(closed(shifted))
            }
            window += 1
        }
        return pieces
    }

    /// Sutherland–Hodgman against one vertical line: keeps the side where `keep(lon)` holds.
    private static func clip(_ ring: [[Double]], keep: (Double) -> Bool, boundary: Double) -> [[Double]] {
        guard !ring.isEmpty else { return [] }
        var out: [[Double]] = []
        for (n, current) in ring.enumerated() {
            let previous = ring[(n + ring.count - 1) % ring.count]
            let inCurrent = keep(current[0]), inPrevious = keep(previous[0])
            if inCurrent != inPrevious {
                let t = (boundary - previous[0]) / (current[0] - previous[0])
                out.append([boundary, previous[1] + (current[1] - previous[1]) * t])
            }
            if inCurrent { out.append(current) }
        }
        return out
    }

    private static func closed(_ ring: [[Double]]) -> [[Double]] { ring + [ring[0]] }
}
