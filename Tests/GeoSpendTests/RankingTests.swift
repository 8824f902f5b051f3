import Testing

@testable import GeoSpend

/// `Ranking.sortByDistance` (which the SpatiaLite store's radius query uses) must order hits
/// exactly as `sorted(by: Ranking.byDistance)` does (which the other stores and the test oracles
/// use), ties by id included.
@Suite struct RankingTests {
    @Test func sortByDistanceOrdersAsByDistance() throws {
        var rng = SplitMix64(seed: 16)
        let amount = try Money(parsing: "1.00", currency: Currency(code: "EUR"))
        let at = try Timestamp(parsing: "2026-01-02T03:04:05Z")
        for size in [0, 1, 2, 3, 17, 200] {
            // Few distinct distances, so most hits tie and are ordered by id ("e10" before "e9").
            var hits = (0..<size).map { k in
                ExpenseHit(
                    expense: Expense(id: "e\(Int(rng.unit() * 50))-\(k)", userID: "u", amount: amount, occurredAt: at),
                    distanceMeters: Double(Int(rng.unit() * 4)) * 12.5)
            }
            let expected = hits.sorted(by: Ranking.byDistance)
            Ranking.sortByDistance(&hits)
            #expect(hits.map(\.expense.id) == expected.map(\.expense.id), "size \(size)")
            #expect(hits == expected)
        }
    }
}
