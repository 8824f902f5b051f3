/// What the H3 layer rejects, with what to do about it.
public enum H3Error: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidCell(String, reason: String)
    case invalidResolution(Int)
    case invalidCoordinate(latitude: Double, longitude: Double)
    case invalidRing(Int)

    public var description: String {
        switch self {
        case let .invalidCell(text, reason):
            return "'\(text)' is not an H3 cell id: \(reason). An id is 15 hexadecimal digits, e.g. 8928308280fffff (from `geospend h3 cell`)."
        case let .invalidResolution(r):
            return "H3 resolution \(r) does not exist: use 0 (cells ~1,100 km across) to 15 (~1 m)."
        case let .invalidCoordinate(lat, lon):
            return "(\(lat), \(lon)) is not a position: latitude must be within −90…90 and longitude within −180…180."
        case let .invalidRing(k):
            return "grid disk radius \(k) must be 0 or more."
        }
    }
}
