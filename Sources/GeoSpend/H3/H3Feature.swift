import Foundation

/// A cell as a GeoJSON Feature: its closed boundary ring, counter-clockwise, and property `h3`.
public enum H3Feature {
    /// The outline as a closed ring of (longitude, latitude). Longitudes are unwrapped from the
    /// first vertex so a cell across ±180° stays one ring (values may pass ±180).
    public static func ring(_ cell: H3Cell) -> [(longitude: Double, latitude: Double)] {
        let b = H3.cellToBoundary(cell)
        var out: [(longitude: Double, latitude: Double)] = []
        for v in b {
            var lng = v.longitude
            if let first = out.first {
                while lng - first.longitude > 180 { lng -= 360 }
                while lng - first.longitude < -180 { lng += 360 }
            }
            out.append((lng, v.latitude))
        }
        if let first = out.first { out.append(first) }
        return out
    }

    public static func json(_ cell: H3Cell) -> String {
        let coords = ring(cell).map { "[\(num($0.longitude)),\(num($0.latitude))]" }.joined(separator: ",")
        return #"{"type":"Feature","properties":{"h3":"\#(cell.id)"},"geometry":{"type":"Polygon","coordinates":[[\#(coords)]]}}"#
    }

    private static func num(_ x: Double) -> String { String(format: "%.9f", x) }
}
