import Foundation

/// The GeoJSON polygons of one cell of a regional grid (`MetricGrid.regional`, docs/GRIDS.md):
/// its edges, straight in its region's projection, followed in longitude/latitude to within
/// `tolerance`; cut at its region's border; the cap's centre cell closed through the pole; and
/// split at ±180° (RFC 7946 §3.1.9).
enum RegionalCell {
    /// The farthest a drawn edge strays from the true one, in metres on the projection's plane
    /// (the ground's within the projection's 1.7 % scale error): a millionth of the cell's size,
    /// 1 mm at least. So about 4 expenses in a million, those that close to an edge, could lie in
    /// the neighbour's drawn polygon, whatever the size; 1 mm on every size drew a 50 km hexagon
    /// with 1,500 positions (15 MB for 309 cells).
    static func tolerance(size: Double) -> Double { max(0.001, size * 1e-6) }

    /// `corners`: counter-clockwise in the region's plane. `holdsPole`: the cell centred on a
    /// cap's centre.
    static func polygons(_ corners: [(x: Double, y: Double)], size: Double, region: GridRegion, holdsPole: Bool) -> [[[Double]]] {
        let projection = region.projection, tolerance = tolerance(size: size)
        func lonLat(_ p: (x: Double, y: Double)) -> [Double] {
            let g = projection.inverse(x: p.x, y: p.y)
            return [region.isCap ? g.longitude : region.unwrap(g.longitude), g.latitude]
        }
        var ring: [[Double]] = []
        let drawn = corners.map(lonLat)
        for n in corners.indices {
            let m = (n + 1) % corners.count
            ring.append(drawn[n])
            follow(from: corners[n], drawn[n], to: corners[m], drawn[m], projection, tolerance, depth: 0, into: &ring)
        }
        if holdsPole && region.isCap {
            let polygon = AntimeridianSplit.aroundPole(ring, north: region.index == 1)
            return [closed(clipped(Array(polygon.dropLast()), to: region))]
        }
        if region.isCap { ring = AntimeridianSplit.unwrapped(ring) }  // a cap's cells may lie across ±180°
        // None when the cell lies wholly beyond its region's border (a density surface asks).
        let inside = clipped(ring, to: region)
        return inside.count < 3 ? [] : AntimeridianSplit.polygons(exterior: inside)
    }

    /// Appends the points strictly between `a` and `b` that keep the straight segments between
    /// them within `tolerance` of the edge: halves the edge while the middle of the longitude/
    /// latitude chord lands farther than that from the edge's line.
    private static func follow(
        from a: (x: Double, y: Double), _ ga: [Double], to b: (x: Double, y: Double), _ gb: [Double],
        _ projection: EqualAreaProjection, _ tolerance: Double, depth: Int, into ring: inout [[Double]]
    ) {
        guard depth < 14 else { return }
        let lonB = ga[0] + (gb[0] - ga[0]).remainder(dividingBy: 360)
        let chord = projection.forward(latitude: (ga[1] + gb[1]) / 2, longitude: (ga[0] + lonB) / 2)
        // How far the chord's middle lands off the edge (across it: along it is no error).
        let (ex, ey) = (b.x - a.x, b.y - a.y)
        let off = abs(ex * (chord.y - a.y) - ey * (chord.x - a.x)) / max(hypot(ex, ey), .leastNormalMagnitude)
        guard off > tolerance else { return }
        let middle = (x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
        let g = projection.inverse(x: middle.x, y: middle.y)
        let gm = [ga[0] + (g.longitude - ga[0]).remainder(dividingBy: 360), g.latitude]
        follow(from: a, ga, to: middle, gm, projection, tolerance, depth: depth + 1, into: &ring)
        ring.append(gm)
        follow(from: middle, gm, to: b, gb, projection, tolerance, depth: depth + 1, into: &ring)
    }

    /// The part of a ring inside its region's box (meridians and parallels: straight lines here),
    /// without repeated points.
    private static func clipped(_ ring: [[Double]], to region: GridRegion) -> [[Double]] {
        var out = ring
        if region.south > -90 { out = AntimeridianSplit.clip(out, axis: 1, keep: { $0 >= region.south }, boundary: region.south) }
        if region.north < 90 { out = AntimeridianSplit.clip(out, axis: 1, keep: { $0 <= region.north }, boundary: region.north) }
        if region.west.isFinite { out = AntimeridianSplit.clip(out, axis: 0, keep: { $0 >= region.west }, boundary: region.west) }
        if region.east.isFinite { out = AntimeridianSplit.clip(out, axis: 0, keep: { $0 <= region.east }, boundary: region.east) }
        var kept: [[Double]] = []
        for p in out where p != kept.last { kept.append(p) }
        while kept.count > 1 && kept.first == kept.last { kept.removeLast() }
        return kept
    }

    private static func closed(_ ring: [[Double]]) -> [[Double]] { ring + [ring[0]] }
}
