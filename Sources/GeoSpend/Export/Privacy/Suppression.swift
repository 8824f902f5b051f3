/// Which cells or places of a layer are published: primary suppression (below `--min-count`
/// or `--min-users`) plus complementary suppression.
///
/// A layer publishes each kept item's figures, and whoever holds the selection's totals from
/// elsewhere (another export, `geospend insights`) can subtract the published items from them:
/// with exactly one item suppressed, the difference *is* that item. So when exactly one item
/// fails the thresholds, the smallest published item (fewest expenses, then smallest value,
/// then first in output order — deterministic) is suppressed too: the difference is then the
/// sum of at least two items and names neither. With none or several failing, nothing more is
/// needed. Layer figures in the provenance are sums over published items only.
struct Suppression {
    /// Indices of the published items, in the order given.
    let kept: [Int]
    let primary: Int
    let complementary: Int
    var suppressed: Int { primary + complementary }

    /// - Parameters:
    ///   - count: how many items.
    ///   - passes: whether item k meets the thresholds.
    ///   - smaller: a strict total order, smallest first, for the complementary pick.
    init(count: Int, passes: (Int) -> Bool, smaller: (Int, Int) -> Bool) {
        var keep = (0..<count).map(passes)
        let failing = keep.filter { !$0 }.count
        var extra = 0
        if failing == 1, let smallest = keep.indices.filter({ keep[$0] }).min(by: smaller) {
            keep[smallest] = false
            extra = 1
        }
        kept = keep.indices.filter { keep[$0] }
        primary = failing
        complementary = extra
    }
}
