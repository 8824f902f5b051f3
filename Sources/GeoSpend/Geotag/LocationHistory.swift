/// One user's positions and visits, each sorted by time, so the geotagger finds the fixes
/// around an instant by binary search instead of a join.
///
/// Several files add up (months, devices): `merge(_:)` keeps both and re-sorts; an identical
/// fix read twice (the same file imported again) is kept once.
public struct LocationHistory: Sendable, Hashable {
    public private(set) var positions: [Position]
    public private(set) var visits: [Visit]

    /// Sorts what it is given by time. - Complexity: O(n log n).
    public init(positions: [Position] = [], visits: [Visit] = []) {
        self.positions = positions
        self.visits = visits
        normalize()
    }

    /// Adds another history (another file of the same user). - Complexity: O((n + m) log(n + m)).
    public mutating func merge(_ other: LocationHistory) {
        positions += other.positions
        visits += other.visits
        normalize()
    }

    private mutating func normalize() {
        // A total order, so identical fixes end up next to each other (the sort is not stable).
        positions.sort {
            ($0.epochMilliseconds, $0.coordinate.latitude, $0.coordinate.longitude, $0.source.rawValue, $0.accuracyMeters ?? -1)
                < ($1.epochMilliseconds, $1.coordinate.latitude, $1.coordinate.longitude, $1.source.rawValue, $1.accuracyMeters ?? -1)
        }
        var kept: [Position] = []
        kept.reserveCapacity(positions.count)
        for p in positions where kept.last != p { kept.append(p) }
        positions = kept
        visits.sort {
            ($0.startEpochMilliseconds, $0.endEpochMilliseconds, $0.centre.latitude, $0.centre.longitude, $0.source?.rawValue ?? "")
                < ($1.startEpochMilliseconds, $1.endEpochMilliseconds, $1.centre.latitude, $1.centre.longitude, $1.source?.rawValue ?? "")
        }
        var keptVisits: [Visit] = []
        for v in visits where keptVisits.last != v { keptVisits.append(v) }
        visits = keptVisits
    }

    /// The index of the first position at or after `epochMilliseconds` (`positions.count` if none).
    /// - Complexity: O(log n).
    public func firstPositionIndex(atOrAfter epochMilliseconds: Int64) -> Int {
        var lo = 0, hi = positions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if positions[mid].epochMilliseconds < epochMilliseconds { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The visits that overlap `[from, to)` (milliseconds). Visits are sorted by start and are
    /// short (hours), so the scan starts a day before `from`.
    /// - Complexity: O(log n + k).
    public func visits(overlappingFrom from: Int64, to: Int64, longestVisitMilliseconds: Int64 = 86_400_000) -> [Visit] {
        let earliest = from &- longestVisitMilliseconds
        var lo = 0, hi = visits.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if visits[mid].startEpochMilliseconds < earliest { lo = mid + 1 } else { hi = mid }
        }
        var out: [Visit] = []
        var i = lo
        while i < visits.count, visits[i].startEpochMilliseconds < to {
            if visits[i].endEpochMilliseconds > from { out.append(visits[i]) }
            i += 1
        }
        return out
    }

    /// This history with stays detected from its fixes added to the visits it recorded, for
    /// formats that have none (Records.json, OwnTracks, GPX, GeoJSON, CSV). Recorded visits win:
    /// a detected stay that overlaps one in time is dropped.
    public func withDetectedStays(_ detector: StayDetector = StayDetector()) -> LocationHistory {
        let detected = detector.stays(in: positions)
        guard !detected.isEmpty else { return self }
        var extra: [Visit] = []
        for stay in detected where visits(overlappingFrom: stay.startEpochMilliseconds, to: stay.endEpochMilliseconds).isEmpty {
            extra.append(stay)
        }
        var copy = self
        copy.visits += extra
        copy.normalize()
        return copy
    }
}
