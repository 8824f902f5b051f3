import ArgumentParser
import Foundation
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

    /// `--as-of` of `notifications run` and `reminders due`: an instant with offset (a bare date
    /// is refused with the fix), or now when not given.
    static func asOf(_ text: String?) throws -> Timestamp {
        guard let text else { return Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970), utcOffsetMinutes: 0) }
        let instant = try timestamp(text, option: "--as-of")!
        guard !instant.isDateOnly else {
            throw ValidationError("--as-of: \"\(text)\" is a date; give a time and offset: \(text)T09:00:00+01:00")
        }
        return instant
    }
}
