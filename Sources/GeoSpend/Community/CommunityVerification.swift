/// Whether a price update (or any entry about a store) is verified: the poster was at the store
/// that local day. Backends gather the evidence inside the write transaction; this decides.
/// Only the answer leaves it: no position, expense or distance reaches the feed.
public enum CommunityVerification {
    /// What a backend found for one user, one store, one local day.
    public struct Evidence: Sendable {
        /// An expense of the user that day linked to the store by its id.
        public var storeLinked: Bool
        /// The store's position, when the store exists.
        public var store: Coordinate?
        /// The user's geotagged expenses that day, location fixes and visits in the day's window,
        /// near the store (a search box of `CommunityRules.verificationMeters`).
        public var points: [Coordinate]
        public init(storeLinked: Bool, store: Coordinate?, points: [Coordinate]) {
            self.storeLinked = storeLinked
            self.store = store
            self.points = points
        }
    }

    /// Verified when an expense names the store or any point lies within 100 m of it (geodesic,
    /// `Geodesic.isWithin`). - Complexity: O(points).
    public static func verified(_ e: Evidence) -> Bool {
        if e.storeLinked { return true }
        guard let store = e.store else { return false }
        return e.points.contains { Geodesic.isWithin($0, store, meters: CommunityRules.verificationMeters) }
    }

    /// The local day of `t` as epoch milliseconds `[start, end)`: midnight to midnight at the
    /// instant's own UTC offset (UTC for a date without one).
    public static func dayWindow(_ t: Timestamp) -> (start: Int64, end: Int64) {
        let offset = Int64(t.utcOffsetMinutes ?? 0) * 60_000
        let day: Int64 = 86_400_000
        let local = t.epochMilliseconds + offset
        let start = (local >= 0 ? local / day : (local - day + 1) / day) * day - offset
        return (start, start + day)
    }

    /// The search box of the evidence: a little wider than 100 m around the store.
    public static func boxes(around store: Coordinate) -> [LatLonBox] {
        SearchBox.boxes(around: store, radius: .meters(CommunityRules.verificationMeters))
    }
}
