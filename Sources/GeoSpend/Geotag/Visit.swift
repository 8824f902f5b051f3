/// A stay: the person was at one place from `start` to `end`. Read from formats that record
/// visits (Google Timeline, Semantic Location History) or detected from raw fixes
/// (`StayDetector`), since a date-only bank booking can only be matched against places a
/// person stayed at, not against a stream of fixes.
public struct Visit: Sendable, Hashable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var startEpochMilliseconds: Int64
    public var endEpochMilliseconds: Int64
    /// The stay's centre, WGS84.
    public var centre: Coordinate
    /// How far from `centre` the place may be, in metres (the fixes' spread, or the format's).
    public var radiusMeters: Double?
    /// The place's name when the format gives one (Semantic Location History does).
    public var placeName: String?
    /// The provider's place id (a Google place id), when given.
    public var placeID: String?
    /// The provider's confidence in the place, 0…1, when given.
    public var probability: Double?
    /// The format the visit came from; `nil` for a stay detected from raw fixes.
    public var source: LocationHistoryFormat?

    public init(
        startEpochMilliseconds: Int64, endEpochMilliseconds: Int64, centre: Coordinate, radiusMeters: Double? = nil,
        placeName: String? = nil, placeID: String? = nil, probability: Double? = nil, source: LocationHistoryFormat?
    ) {
        self.startEpochMilliseconds = startEpochMilliseconds
        self.endEpochMilliseconds = endEpochMilliseconds
        self.centre = centre
        self.radiusMeters = radiusMeters
        self.placeName = placeName
        self.placeID = placeID
        self.probability = probability
        self.source = source
    }

    /// Whether the stay was detected from fixes rather than recorded by the provider.
    public var isDetected: Bool { source == nil }
}
