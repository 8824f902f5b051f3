import Testing

@testable import GeoSpend

/// `SpendingPoint.localDayNumber` (arithmetic on the instant and offset) names the same day as
/// the recorded `localDate` text, which insights count visit days by.
@Suite struct LocalDayNumberTests {
    static func point(_ t: Timestamp) -> SpendingPoint {
        SpendingPoint(
            id: "e", userID: "u", storeID: nil, coordinate: nil, kind: .expense, amountMinor: 1,
            currency: try! Currency(code: "EUR"), occurredMilliseconds: t.epochMilliseconds,
            utcOffsetMinutes: t.utcOffsetMinutes, category: nil)
    }

    /// Instants a second either side of local midnight, at every offset in use (−12:00 to +14:00,
    /// half and quarter hours), before and after 1970, parsed from text as an import would.
    @Test func agreesWithTheLocalDateAtMidnights() throws {
        var rng = SplitMix(seed: 7)
        let offsets = [-720, -570, -180, -1, 0, 1, 330, 345, 525, 765, 840]
        for _ in 0..<2_000 {
            let day = Int64.random(in: -40_000...60_000, using: &rng)  // 1860 to 2134
            let offset = offsets.randomElement(using: &rng)!
            for second in [-1, 0, 1, 43_200, 86_399] as [Int64] {
                let localSeconds = day * 86_400 + second
                let text = Timestamp(epochSeconds: localSeconds - Int64(offset) * 60, utcOffsetMinutes: offset).text
                let t = try Timestamp(parsing: text)
                #expect(Self.point(t).localDayNumber == Timestamp.days(of: t.localDate), "\(text)")
                #expect(Self.point(t).localDate == t.localDate, "\(text)")
            }
        }
    }

    @Test func agreesWithBareDates() throws {
        for text in ["1969-12-31", "1970-01-01", "2024-02-29", "2025-12-31", "1900-03-01"] {
            let t = try Timestamp(parsing: text)
            #expect(Self.point(t).localDayNumber == Timestamp.days(of: text), "\(text)")
            #expect(Self.point(t).localDate == text)
        }
    }
}

/// A small seeded generator (SplitMix64), so a failure repeats.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
