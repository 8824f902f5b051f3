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
        func before(_ a: Position, _ b: Position) -> Bool {
            (a.epochMilliseconds, a.coordinate.latitude, a.coordinate.longitude, a.source.rawValue, a.accuracyMeters ?? -1)
                < (b.epochMilliseconds, b.coordinate.latitude, b.coordinate.longitude, b.source.rawValue, b.accuracyMeters ?? -1)
        }
        func visitBefore(_ a: Visit, _ b: Visit) -> Bool {
            (a.startEpochMilliseconds, a.endEpochMilliseconds, a.centre.latitude, a.centre.longitude, a.source?.rawValue ?? "")
                < (b.startEpochMilliseconds, b.endEpochMilliseconds, b.centre.latitude, b.centre.longitude, b.source?.rawValue ?? "")
        }
        // Files are mostly in time order already: checked in one pass, then neither sorted nor
        // copied (a million fixes' sort and copy were most of a Records.json read).
        Self.sortAndDropRepeats(&positions, by: before)
        Self.sortAndDropRepeats(&visits, by: visitBefore)
    }

    /// Sorts `items` unless they are sorted, then keeps one of each run of equal neighbours.
    /// - Complexity: O(n) when sorted without repeats, else O(n log n).
    private static func sortAndDropRepeats<T: Equatable>(_ items: inout [T], by before: (T, T) -> Bool) {
        var sorted = true, repeats = false
        for i in items.indices.dropFirst() {
            if before(items[i], items[i - 1]) {
                sorted = false
                break
            }
            if !repeats && items[i] == items[i - 1] { repeats = true }
        }
        if !sorted { items.sort(by: before) }
        guard !sorted || repeats else { return }
        var kept: [T] = []
        kept.reserveCapacity(items.count)
        for x in items where kept.last != x { kept.append(x) }
        items = kept
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
