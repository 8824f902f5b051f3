import Foundation

/// A location history as `geospend positions list|summary --format json` print it and the
/// service returns it (`/api/v1/positions…`): one shape for both.
public enum PositionJSON {
    /// The fixes shown (`shown`, a prefix of the history's), every recorded visit, and the total.
    public static func list(_ history: LocationHistory, shown: ArraySlice<Position>) -> JSONOutput {
        .object([
            ("positions", .array(shown.map { p in
                .object([
                    ("time", .string(utcText(p.epochMilliseconds))), ("lat", .degrees(p.coordinate.latitude)),
                    ("lon", .degrees(p.coordinate.longitude)),
                    ("accuracy_m", p.accuracyMeters.map { .number($0, decimals: 1) } ?? .null), ("source", .string(p.source.rawValue)),
                ])
            })),
            ("visits", .array(history.visits.map { v in
                .object([
                    ("start", .string(utcText(v.startEpochMilliseconds))), ("end", .string(utcText(v.endEpochMilliseconds))),
                    ("lat", .degrees(v.centre.latitude)), ("lon", .degrees(v.centre.longitude)),
                    ("place_name", .text(v.placeName)), ("source", .text(v.source?.rawValue)),
                ])
            })),
            ("total_positions", .integer(Int64(history.positions.count))),
        ])
    }

    /// Coverage per local day (`PositionCoverage`).
    public static func summary(_ history: LocationHistory, zone: TimeZone) -> JSONOutput {
        .object([
            ("timezone", .string(zone.identifier)),
            ("positions", .integer(Int64(history.positions.count))), ("visits", .integer(Int64(history.visits.count))),
            ("days", .array(PositionCoverage.days(of: history, in: zone).map { d in
                .object([
                    ("day", .string(d.day)), ("fixes", .integer(Int64(d.fixes))), ("hours_with_fixes", .integer(Int64(d.hoursWithFixes))),
                    ("visits", .integer(Int64(d.visits))), ("first", .string(utcText(d.firstEpochMilliseconds))),
                    ("last", .string(utcText(d.lastEpochMilliseconds))),
                    ("median_accuracy_m", d.medianAccuracyMeters.map { .number($0, decimals: 1) } ?? .null),
                ])
            })),
        ])
    }

    /// What an import stored.
    public static func imported(_ c: PositionImportCount, retention: PositionRetention.Pruned?) -> JSONOutput {
        .object([
            ("positions_added", .integer(Int64(c.positionsAdded))), ("positions_unchanged", .integer(Int64(c.positionsUnchanged))),
            ("visits_added", .integer(Int64(c.visitsAdded))), ("visits_unchanged", .integer(Int64(c.visitsUnchanged))),
            ("retention", retention.map(pruned) ?? .null),
        ])
    }

    /// A retention applied: the days kept, the first instant kept, and what went before it
    /// (this import's rows among them when they were older).
    public static func pruned(_ p: PositionRetention.Pruned) -> JSONOutput {
        .object([
            ("days", .integer(Int64(p.days))), ("kept_from", .string(utcText(p.before))),
            ("positions_deleted", .integer(Int64(p.deleted.positions))), ("visits_deleted", .integer(Int64(p.deleted.visits))),
        ])
    }

    /// An instant in UTC, RFC 3339.
    public static func utcText(_ ms: Int64) -> String { Timestamp.rfc3339(epochMilliseconds: ms, utcOffsetMinutes: 0) }

    /// A window bound as an instant: the instant itself, or a bare date's local midnight in
    /// `zone` (of the next day for an inclusive `to`).
    public static func instant(_ t: Timestamp, in zone: TimeZone, nextDay: Bool) -> Int64 {
        guard t.isDateOnly else { return t.epochMilliseconds }
        let midnightUTC = t.epochMilliseconds + (nextDay ? 86_400_000 : 0)
        // The zone's offset at that local midnight (read at the UTC midnight: within a day of it).
        let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(midnightUTC) / 1000))) * 1000
        return midnightUTC - offset
    }

    /// `--from`/`--to` (or the service's `from`/`to`) as instants `[from, to)` in `zone`.
    public static func window(from: String?, to: String?, zone: TimeZone, names: (String, String)) throws -> (from: Int64?, to: Int64?) {
        let (f, t) = try TimeWindow.parsed(from: from, to: to, options: names)
        return (f.map { instant($0, in: zone, nextDay: false) }, t.map { instant($0, in: zone, nextDay: true) })
    }
}
