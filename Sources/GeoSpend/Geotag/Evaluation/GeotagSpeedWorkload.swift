/// The speed workload (issue 36: 1,000,000 positions read from a Takeout
/// `Records.json` in ≤ 10 s; 100,000 expenses geotagged against them in ≤ 5 s), synthetic and
/// deterministic, for `geospend evaluate geotag --speed` and `GeotagScaleTests`.
///
/// The phone stays at one place after another: 20 fixes 30 s apart at each (10 minutes), with
/// Gaussian noise of about 11 m north–south and an accuracy of 15 m. The expenses are spread
/// evenly over the same span, each timestamped at a fix and naming the place the phone is at
/// (its name as the merchant text), so every one goes the timestamped way through the
/// geotagger: estimate, candidates, distances.
public struct GeotagSpeedWorkload: Sendable {
    public let places: [Store]
    public let positionCount: Int
    public let expenseCount: Int
    /// 2026-02-25T06:13:20Z.
    public static let firstEpochMilliseconds: Int64 = 1_772_000_000_000
    static let fixesPerPlace = 20
    static let fixIntervalMilliseconds: Int64 = 30_000

    /// - Precondition: `places` is not empty; both counts are at least 1.
    public init(places: [Store], positions: Int = 1_000_000, expenses: Int = 100_000) {
        precondition(!places.isEmpty && positions > 0 && expenses > 0)
        self.places = places
        self.positionCount = positions
        self.expenseCount = expenses
    }

    /// The `i`th fix, the same on every call (its noise is seeded by `i`). - Complexity: O(1).
    public func position(_ i: Int) -> Position {
        var r = SplitMix64(seed: UInt64(i) &* 0x9E37_79B9_7F4A_7C15 &+ 5)
        let s = places[(i / Self.fixesPerPlace) % places.count].coordinate
        return Position(
            epochMilliseconds: Self.firstEpochMilliseconds + Int64(i) * Self.fixIntervalMilliseconds,
            coordinate: Coordinate(uncheckedLatitude: s.latitude + r.gaussian() * 0.0001, longitude: s.longitude),
            accuracyMeters: 15, source: .googleRecords)
    }

    /// Every fix, lazily (nothing is held: `LocationHistoryWriter.write` streams it).
    public var positions: LazyMapSequence<Range<Int>, Position> { (0..<positionCount).lazy.map { position($0) } }

    /// The expenses, in time order. - Complexity: O(m).
    public func expenses() -> [GeotagExpense] {
        (0..<expenseCount).map { k in
            let fix = Int(Int64(k) * Int64(positionCount) / Int64(expenseCount))
            return GeotagExpense(
                id: "e\(k)",
                occurredAt: Timestamp(epochSeconds: position(fix).epochMilliseconds / 1000, utcOffsetMinutes: 120),
                merchantText: places[(fix / Self.fixesPerPlace) % places.count].name)
        }
    }
}
