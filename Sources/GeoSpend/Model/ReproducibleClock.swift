import Foundation

/// The one place that reads the time outputs carry: now, or `$SOURCE_DATE_EPOCH` (seconds)
/// when set, as reproducible builds do it, so a map, an export or a default "today" can be
/// made byte-identical in tests and docs.
public enum ReproducibleClock {
    public static func now() -> Date {
        let env = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap { Int64($0) }
        return env.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
    }
}
