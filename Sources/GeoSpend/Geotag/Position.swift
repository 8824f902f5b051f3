/// One fix of a phone's location history: where the device was at an instant, with the radius
/// it was sure of. The unit of evidence the geotagger interpolates between.
///
/// Coordinates are WGS84. `accuracyMeters` is nil when the format gives none (a Google
/// `timelinePath` point, a GPX track point without `hdop`); consumers then assume a default.
public struct Position: Sendable, Hashable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var epochMilliseconds: Int64
    public var coordinate: Coordinate
    /// The fix's uncertainty radius in metres, if the format gave one.
    public var accuracyMeters: Double?
    /// The format the fix was read from (provenance kept with the data).
    public var source: LocationHistoryFormat

    public init(epochMilliseconds: Int64, coordinate: Coordinate, accuracyMeters: Double? = nil, source: LocationHistoryFormat) {
        self.epochMilliseconds = epochMilliseconds
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.source = source
    }
}
