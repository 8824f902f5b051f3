import Foundation

/// A cell as GeoJSON (RFC 7946): closed counter-clockwise rings of [longitude, latitude]; a cell
/// across ±180° becomes two polygons, one each side (§3.1.9); a cell around a pole becomes one
/// polygon running along ±180° to the pole, as a map in longitude and latitude draws it.
public enum H3Feature {
    public static func polygons(_ cell: H3Cell) -> [[[Double]]] {
        let b = H3.cellToBoundary(cell).map { [$0.longitude, $0.latitude] }
        // Unwrapped longitudes turn a whole 360° round a pole and none round anything else.
        var turn = 0.0
        for n in b.indices {
            var d = b[(n + 1) % b.count][0] - b[n][0]
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            turn += d
        }
        guard abs(turn) > 180 else { return AntimeridianSplit.polygons(exterior: b) }
        return [aroundPole(b, north: H3.cellToLatLng(cell).latitude > 0, eastward: turn > 0)]
    }

    /// The ring of a cell holding a pole: its vertices in longitude order from −180° to 180°
    /// (latitude interpolated where the boundary meets ±180°), closed along the pole's latitude.
    private static func aroundPole(_ b: [[Double]], north: Bool, eastward: Bool) -> [[Double]] {
        // Start just east of where the boundary crosses ±180° and walk east.
        let sorted = b.indices.sorted { b[$0][0] < b[$1][0] }
        let start = sorted[0]
        var walk: [[Double]] = []
        for k in 0..<b.count {
            let n = eastward ? (start + k) % b.count : (start - k + b.count) % b.count
            walk.append(b[n])
        }
        let last = walk.last!, first = walk.first!
        let span = first[0] + 360 - last[0]
        let crossingLat = span > 0 ? last[1] + (first[1] - last[1]) * (180 - last[0]) / span : last[1]
        let pole = north ? 90.0 : -90.0
        let along = [[-180, crossingLat]] + walk + [[180, crossingLat]]
        // Counter-clockwise: the region north of an eastward line, south of a westward one.
        if north { return along + [[180, pole], [-180, pole], [-180, crossingLat]] }
        return [[-180, pole], [180, pole]] + along.reversed() + [[-180, pole]]
    }

    public static func json(_ cell: H3Cell) -> String {
        let p = polygons(cell).map { "[[" + $0.map { "[\(num($0[0])),\(num($0[1]))]" }.joined(separator: ",") + "]]" }
        let geometry = p.count == 1 ? #"{"type":"Polygon","coordinates":\#(p[0])}"# : #"{"type":"MultiPolygon","coordinates":[\#(p.joined(separator: ","))]}"#
        return #"{"type":"Feature","properties":{"h3":"\#(cell.id)"},"geometry":\#(geometry)}"#
    }

    private static func num(_ x: Double) -> String { String(format: "%.9f", x) }
}
