import ArgumentParser
import GeoSpend

/// Parsers for option values, turning `ValueError` into usage errors (exit 2).
enum Parse {
    static func distance(_ text: String, option: String) throws -> Distance {
        do { return try Distance(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
    }

    static func coordinate(lat: Double, lon: Double) throws -> Coordinate {
        do { return try Coordinate(latitude: lat, longitude: lon) } catch {
            throw ValidationError("--lat/--lon: \(error)")
        }
    }

    static func timestamp(_ text: String?, option: String) throws -> Timestamp? {
        guard let text else { return nil }
        do { return try Timestamp(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
    }
}
