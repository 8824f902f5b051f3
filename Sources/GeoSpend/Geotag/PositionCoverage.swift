import Foundation

/// How well a location history covers each local day (`geospend positions summary`): a day
/// with few fixes or a gap of hours cannot place that day's payments, and the summary shows
/// where those gaps are before a geotag run leaves them unplaced.
public struct PositionCoverage: Sendable, Hashable {
    /// The local day, `YYYY-MM-DD`.
    public var day: String
    public var fixes: Int
    /// Recorded visits that started that day.
    public var visits: Int
    /// Hours of the day (0–24) with at least one fix.
    public var hoursWithFixes: Int
    /// The first and last fix of the day, epoch milliseconds.
    public var firstEpochMilliseconds: Int64
    public var lastEpochMilliseconds: Int64
    /// The median accuracy of the day's fixes that have one, metres.
    public var medianAccuracyMeters: Double?

    /// One entry per local day in `zone` that has a fix or a visit, by day.
    /// - Complexity: O(n) in the fixes (the zone's offset is looked up once per hour of time).
    public static func days(of history: LocationHistory, in zone: TimeZone) -> [PositionCoverage] {
        var offsets = OffsetCache(zone: zone)
        var byDay: [Int64: (entry: PositionCoverage, hours: Set<Int64>, accuracies: [Double])] = [:]
        func local(_ ms: Int64) -> (day: Int64, hour: Int64) {
            let (day, millisecond) = Timestamp.localDayAndTime(epochMilliseconds: ms, utcOffsetMinutes: offsets.minutes(at: ms))
            return (day, millisecond / 3_600_000)
        }
        func fresh(_ day: Int64, _ ms: Int64) -> (entry: PositionCoverage, hours: Set<Int64>, accuracies: [Double]) {
            (PositionCoverage(
                day: Timestamp(localDay: day).localDate, fixes: 0, visits: 0, hoursWithFixes: 0, firstEpochMilliseconds: ms,
                lastEpochMilliseconds: ms, medianAccuracyMeters: nil), [], [])
        }
        for p in history.positions {
            let (day, hour) = local(p.epochMilliseconds)
            var d = byDay[day] ?? fresh(day, p.epochMilliseconds)
            d.entry.fixes += 1
            d.hours.insert(hour)
            if let a = p.accuracyMeters { d.accuracies.append(a) }
            if d.entry.fixes == 1 { d.entry.firstEpochMilliseconds = p.epochMilliseconds }
            d.entry.lastEpochMilliseconds = max(d.entry.lastEpochMilliseconds, p.epochMilliseconds)
            byDay[day] = d
        }
        for v in history.visits {
            let day = local(v.startEpochMilliseconds).day
            var d = byDay[day] ?? fresh(day, v.startEpochMilliseconds)
            d.entry.visits += 1
            byDay[day] = d
        }
        return byDay.keys.sorted().map { key in
            var (entry, hours, accuracies) = byDay[key]!
            entry.hoursWithFixes = hours.count
            if !accuracies.isEmpty {
                accuracies.sort()
                let mid = accuracies.count / 2
                entry.medianAccuracyMeters = accuracies.count % 2 == 1 ? accuracies[mid] : (accuracies[mid - 1] + accuracies[mid]) / 2
            }
            return entry
        }
    }

    /// A zone's offset per hour of time: fixes come in time order, so one lookup serves the
    /// thousands of fixes of an hour (Foundation's lookup costs microseconds).
    struct OffsetCache {
        let zone: TimeZone
        var hour: Int64 = .min
        var offset = 0

        mutating func minutes(at ms: Int64) -> Int {
            let h = ms >= 0 ? ms / 3_600_000 : (ms - 3_599_999) / 3_600_000
            if h != hour {
                hour = h
                offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(ms) / 1000)) / 60
            }
            return offset
        }
    }
}
