import Foundation

/// A tile of the Web Mercator quadtree ("XYZ", as slippy maps and vector-tile URLs number them:
/// y = 0 at the north, https://wiki.openstreetmap.org/wiki/Slippy_map_tilenames). MBTiles stores
/// the row flipped (TMS), `tmsRow`.
public struct TileID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let z: Int
    public let x: Int
    public let y: Int

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// Whether (x, y) lies on the zoom's 2^z × 2^z grid.
    public var isValid: Bool { (0...WebMercator.maxLevel).contains(z) && (0..<(1 << z)).contains(x) && (0..<(1 << z)).contains(y) }
    /// MBTiles' `tile_row`: 2^z − 1 − y (MBTiles 1.3 § Tiles).
    public var tmsRow: Int { (1 << z) - 1 - y }
    public var description: String { "\(z)/\(x)/\(y)" }
    public static func < (a: TileID, b: TileID) -> Bool { (a.z, a.x, a.y) < (b.z, b.x, b.y) }
}

/// Spherical ("Web") Mercator on the unit square: u from 0 at −180° to 1 at +180°, v from 0 at
/// the top (85.0511°N) to 1 at the bottom. Latitudes beyond ±85.0511287798° (where the square
/// ends: atan(sinh π)) are clamped to it. A position at `level` is then the integer cell
/// (⌊u·2^level⌋, ⌊v·2^level⌋), clamped inside the grid (+180° and the clamped poles fall on the
/// last cell, not outside).
enum WebMercator {
    static let maxLatitude = 85.051_128_779_806_59
    /// Cells at level ≤ 30 fit an Int32 on each axis.
    static let maxLevel = 30

    static func unit(latitude: Double, longitude: Double) -> (u: Double, v: Double) {
        let lat = max(-maxLatitude, min(maxLatitude, latitude)) * .pi / 180
        let u = (longitude + 180) / 360
        let v = (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2
        return (u, v)
    }

    static func cell(latitude: Double, longitude: Double, level: Int) -> (x: Int, y: Int) {
        let (u, v) = unit(latitude: latitude, longitude: longitude)
        let n = Double(1 << level)
        let last = (1 << level) - 1
        return (max(0, min(last, Int((u * n).rounded(.down)))), max(0, min(last, Int((v * n).rounded(.down)))))
    }

    /// The position in tile units (0–4096, x right, y down) inside `tile`, rounded to the nearest
    /// unit; with the tile found by `cell`, always within 0…4096.
    static func tileUnits(latitude: Double, longitude: Double, in tile: TileID) -> (x: Int32, y: Int32) {
        let (u, v) = unit(latitude: latitude, longitude: longitude)
        let n = Double(1 << tile.z), e = Double(TileLayerEncoder.extent)
        let x = ((u * n - Double(tile.x)) * e).rounded(), y = ((v * n - Double(tile.y)) * e).rounded()
        return (Int32(max(0, min(e, x))), Int32(max(0, min(e, y))))
    }

    /// The longitude and latitude of a corner of cell (x, y) at `level` (x, y may be 2^level).
    static func corner(x: Int, y: Int, level: Int) -> (longitude: Double, latitude: Double) {
        let n = Double(1 << level)
        let lon = Double(x) / n * 360 - 180
        let lat = atan(sinh(.pi * (1 - 2 * Double(y) / n))) * 180 / .pi
        return (lon, lat)
    }
}
