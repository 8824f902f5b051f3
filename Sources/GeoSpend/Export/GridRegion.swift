import Foundation

/// The fixed regions a hex or square grid is cut into when its data is too wide for one
/// projection (docs/GRIDS.md): two polar caps beyond 75° centred on the poles, and between 75° S
/// and 75° N five bands of twelve 30° × 30° boxes centred on multiples of 30° (latitudes −60 … 60,
/// longitudes −150 … 180; the box centred on 180° straddles ±180°). Each region has its own
/// Lambert azimuthal equal-area projection centred on it, so no cell lies more than ~2,400 km
/// from its projection's centre, and the cap's centre cell holds the pole.
///
/// A point belongs to the region whose box holds it: latitudes ≥ 75 to the north cap, < −75 to
/// the south cap, else the band box `[south, north) × [west, east)`. Cells are cut at the box's
/// edges (meridians and parallels, straight lines in longitude/latitude), so the cells of all
/// regions tile the globe without overlap.
public struct GridRegion: Sendable, Hashable {
    /// 1 and 2: the north and south caps; 3 … 62: the boxes, row by row from the south.
    public let index: Int
    public let origin: Coordinate
    /// The box in degrees, longitudes unwrapped around the origin's (`west` < `origin` < `east`);
    /// caps span all longitudes.
    public let south: Double, north: Double, west: Double, east: Double
    public let projection: EqualAreaProjection

    public var isCap: Bool { index <= 2 }

    /// Latitude past which the caps begin.
    static let capLatitude = 75.0
    /// The boxes' side in degrees.
    static let side = 30.0

    public static let all: [GridRegion] = (1...62).map(GridRegion.init(index:))

    private init(index: Int) {
        self.index = index
        switch index {
        case 1:
            origin = Coordinate(uncheckedLatitude: 90, longitude: 0)
            (south, north, west, east) = (Self.capLatitude, 90, -.infinity, .infinity)
        case 2:
            origin = Coordinate(uncheckedLatitude: -90, longitude: 0)
            (south, north, west, east) = (-90, -Self.capLatitude, -.infinity, .infinity)
        default:
            let band = (index - 3) / 12, column = (index - 3) % 12
            let lat = -60 + Self.side * Double(band), lon = -180 + Self.side * Double(column)
            origin = Coordinate(uncheckedLatitude: lat, longitude: lon == -180 ? 180 : lon)
            (south, north) = (lat - Self.side / 2, lat + Self.side / 2)
            (west, east) = (origin.longitude - Self.side / 2, origin.longitude + Self.side / 2)
        }
        projection = EqualAreaProjection(origin: origin)
    }

    /// The region holding a position.
    public static func containing(latitude: Double, longitude: Double) -> GridRegion {
        if latitude >= capLatitude { return all[0] }
        if latitude < -capLatitude { return all[1] }
        let band = Int(((latitude + capLatitude) / side).rounded(.down))
        // Columns start at −195°, so the first one is centred on ±180°.
        let column = Int(((longitude + 180 + side / 2) / side).rounded(.down)) % 12
        return all[2 + min(4, band) * 12 + column]
    }

    /// The regions whose box comes within `radius` metres of a position, its own first; more where
    /// needed, never fewer (a box in degrees around the position, 1° of latitude taken as its
    /// shortest, 110.57 km at the equator).
    static func reaching(latitude: Double, longitude: Double, radius: Double) -> [GridRegion] {
        let own = containing(latitude: latitude, longitude: longitude)
        let dLat = radius / 6_335_439 * 180 / .pi  // the meridian's radius of curvature at the equator
        let south = latitude - dLat, north = latitude + dLat
        let widest = max(abs(south), abs(north))
        let dLon = widest >= 89.9 ? 360 : dLat / cos(widest * .pi / 180)
        return [own] + all.filter { r in
            guard r != own && r.south <= north && r.north >= south else { return false }
            if r.isCap || dLon >= 180 { return true }
            let lon = r.unwrap(longitude)
            return lon + dLon >= r.west && lon - dLon <= r.east
        }
    }

    /// `lon` moved by whole turns to within 180° of the region's centre.
    func unwrap(_ lon: Double) -> Double {
        origin.longitude + (lon - origin.longitude).remainder(dividingBy: 360)
    }

    /// Whether data in `extent` fits one projection centred on `origin`: every corner of its box
    /// within `localRadius` of the origin and none in a polar cap. Such data keeps one grid, as
    /// before regions existed, so a city's or a country's cells are unchanged.
    static func fitsOneProjection(_ extent: GeotaggedExtent, origin: Coordinate) -> Bool {
        guard extent.north < capLatitude && extent.south >= -capLatitude else { return false }
        let (west, east) = extent.east360 - extent.west360 < extent.east - extent.west
            ? (extent.west360, extent.east360) : (extent.west, extent.east)
        for lat in [extent.south, extent.north] {
            for lon in [west, (west + east) / 2, east] {
                let d = Geodesic.distance(
                    latitude1: origin.latitude, longitude1: origin.longitude, latitude2: lat, longitude2: lon.remainder(dividingBy: 360))
                if !(d <= localRadius) { return false }
            }
        }
        return true
    }

    /// 1,500 km: the farthest a one-projection grid reaches (scale error along a direction 1.4 %).
    static let localRadius = 1_500_000.0
}
