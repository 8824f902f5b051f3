/// Which cells or places of a layer are published: primary suppression (below `--min-count`
/// or `--min-users`) plus complementary suppression.
///
/// A layer publishes each kept item's figures, and whoever holds the selection's totals from
/// elsewhere (another export, `geospend insights`, a report's section total) can subtract the
/// published items from them: what remains is the sum of the hidden items. So the hidden items
/// *together* must meet the thresholds a published item meets — enough expenses and enough
/// distinct users. When they do not, the smallest published item (fewest expenses, then
/// smallest value, then first in output order — deterministic) is hidden too; one is enough,
/// since it meets the thresholds on its own. One hidden item never passes alone (that is why it
/// is hidden), so it always takes another with it; two hidden items of the same single user take
/// a third (before, "exactly one hidden" was the only case handled, and two small cells of one
/// user gave that user's sum). Layer figures in the provenance are sums over published items only.
struct Suppression {
    /// Indices of the published items, in the order given.
    let kept: [Int]
    let primary: Int
    let complementary: Int
    var suppressed: Int { primary + complementary }

    /// - Parameters:
    ///   - count: how many items.
    ///   - passes: whether item k meets the thresholds.
    ///   - smaller: a strict total order, smallest first, for the complementary picks.
    ///   - hiddenPass: whether hidden items taken together meet the thresholds (true of any set
    ///     holding an item that passes).
    /// - Complexity: O(n) plus one `hiddenPass` call.
    init(count: Int, passes: (Int) -> Bool, smaller: (Int, Int) -> Bool, hiddenPass: ([Int]) -> Bool) {
        var keep = (0..<count).map(passes)
        let failing = keep.filter { !$0 }.count
        var extra = 0
        if failing > 0, !hiddenPass(keep.indices.filter { !keep[$0] }),
            let smallest = keep.indices.filter({ keep[$0] }).min(by: smaller)
        {
            keep[smallest] = false
            extra = 1
        }
        kept = keep.indices.filter { keep[$0] }
        primary = failing
        complementary = extra
    }
}

/// Counts distinct users up to a threshold without keeping more keys than that.
struct UserTally {
    private(set) var seen: [UInt64] = []
    /// A limit known reached without the users being listed (a map cell rollup's distinct count).
    private(set) var reached = 0
    mutating func add(_ user: UInt64, upTo limit: Int) {
        if count < limit, !seen.contains(user) { seen.append(user) }
    }
    mutating func reach(_ limit: Int) { reached = max(reached, limit) }
    var count: Int { max(seen.count, reached) }

    /// The distinct users of several tallies, counted up to `limit` (exact up to it: a tally
    /// that stopped at the limit already reaches it).
    static func union(_ tallies: some Sequence<UserTally>, upTo limit: Int) -> Int {
        var all = UserTally()
        for t in tallies {
            all.reach(t.reached)
            for u in t.seen { all.add(u, upTo: limit) }
            if all.count >= limit { break }
        }
        return all.count
    }
}
