/// A WGS84 position in degrees. Latitude in [-90, 90], longitude in [-180, 180], both finite.
///
/// GeoJSON writes it `[longitude, latitude]`; every GeoSpend API names the two explicitly.
public struct Coordinate: Sendable, Hashable, CustomStringConvertible {
    public let latitude: Double
    public let longitude: Double

    /// - Throws: `ValueError.outOfRange` for NaN, infinity or values outside the ranges above.
    public init(latitude: Double, longitude: Double) throws(ValueError) {
        guard latitude.isFinite else { throw .outOfRange("\(latitude)", reason: "is not a finite latitude") }
        guard longitude.isFinite else { throw .outOfRange("\(longitude)", reason: "is not a finite longitude") }
        guard (-90.0...90.0).contains(latitude) else {
            throw .outOfRange("\(latitude)", reason: "is outside the latitude range [-90, 90]")
        }
        guard (-180.0...180.0).contains(longitude) else {
            throw .outOfRange("\(longitude)", reason: "is outside the longitude range [-180, 180]")
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values already validated (read back from the store).
    public init(uncheckedLatitude latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public var description: String { "\(latitude),\(longitude)" }
}
