/// What `ExpenseStore.geotaggedExtent` reports for one currency.
public struct GeotaggedExtent: Sendable, Hashable {
    public let currency: Currency
    public let count: Int
    public let totalMinor: Int64
    public let maxMinor: Int64
    public let south: Double, north: Double
    /// Longitudes as stored, and shifted into [0, 360) (the narrower of the two spans is the
    /// real one when the points straddle ±180°).
    public let west: Double, east: Double, west360: Double, east360: Double

    public init(
        currency: Currency, count: Int, totalMinor: Int64, maxMinor: Int64, south: Double, north: Double,
        west: Double, east: Double, west360: Double, east360: Double
    ) {
        self.currency = currency
        self.count = count
        self.totalMinor = totalMinor
        self.maxMinor = maxMinor
        self.south = south
        self.north = north
        self.west = west
        self.east = east
        self.west360 = west360
        self.east360 = east360
    }

    /// The box's centre, taking the narrower longitude span (so data around ±180° centres there).
    public var center: Coordinate {
        let lat = (south + north) / 2
        if east360 - west360 < east - west {
            var lon = (west360 + east360) / 2
            if lon > 180 { lon -= 360 }
            return Coordinate(uncheckedLatitude: lat, longitude: lon)
        }
        return Coordinate(uncheckedLatitude: lat, longitude: (west + east) / 2)
    }
}

/// Builds a `GeotaggedExtent` point by point; stores and map layers share it.
public struct ExtentAccumulator: Sendable {
    public private(set) var count = 0
    private var total: Int64 = 0, largest: Int64 = 0
    private var south = Double.infinity, north = -Double.infinity, west = Double.infinity, east = -Double.infinity
    private var west360 = Double.infinity, east360 = -Double.infinity

    public init() {}

    @inline(__always)
    public mutating func add(latitude: Double, longitude: Double, amountMinor: Int64) {
        let lon360 = longitude < 0 ? longitude + 360 : longitude
        count += 1
        total += amountMinor
        largest = max(largest, amountMinor)
        south = min(south, latitude); north = max(north, latitude)
        west = min(west, longitude); east = max(east, longitude)
        west360 = min(west360, lon360); east360 = max(east360, lon360)
    }

    public func extent(currency: Currency) -> GeotaggedExtent {
        GeotaggedExtent(
            currency: currency, count: count, totalMinor: total, maxMinor: largest, south: south, north: north,
            west: west, east: east, west360: west360, east360: east360)
    }
}

