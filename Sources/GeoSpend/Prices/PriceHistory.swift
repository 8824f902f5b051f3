/// A product's price records in time order, each flagged when its unit price is an outlier.
///
/// The rule: Iglewicz and Hoaglin's modified z-score ("How to Detect and Handle Outliers",
/// ASQC 1993), `M = 0.6745 × (x − median) / MAD` over the unit prices of one currency and
/// base unit, an outlier when `|M| > 3.5`. Median and MAD are robust: a mistyped 129.00 for
/// 1.29 does not move them, where it would inflate a mean ± 2σ band until it hid itself (with
/// few records one extreme value can never lie 2σ out). When more than half the prices are
/// equal (MAD 0), the mean absolute deviation stands in (`M = (x − median) / (1.253314 ×
/// meanAD)`, the same authors' fallback); fewer than 3 prices flag nothing.
public enum PriceHistory {
    public static let threshold = 3.5

    public struct Entry: Sendable, Hashable {
        public let record: PriceRecord
        /// The modified z-score; nil when the group is too small or all equal.
        public let score: Double?
        public var isOutlier: Bool { score.map { abs($0) > PriceHistory.threshold } ?? false }
    }

    /// The records ascending by recorded instant (then id), scored within their currency and
    /// base unit.
    public static func entries(_ records: [PriceRecord]) -> [Entry] {
        let sorted = records.sorted { ($0.recordedAt, $0.id) < ($1.recordedAt, $1.id) }
        var groups: [String: [Double]] = [:]
        for r in sorted { groups[key(r), default: []].append(r.unitPrice) }
        let scales = groups.mapValues(scale)
        return sorted.map { r in
            guard let (median, spread) = scales[key(r)] ?? nil else { return Entry(record: r, score: nil) }
            return Entry(record: r, score: (r.unitPrice - median) / spread)
        }
    }

    static func key(_ r: PriceRecord) -> String { "\(r.price.currency.code) \(r.unit.base.rawValue)" }

    /// The median and the divisor that turns a deviation into a modified z-score.
    static func scale(_ values: [Double]) -> (Double, Double)? {
        guard values.count >= 3 else { return nil }
        let median = Self.median(values)
        let mad = Self.median(values.map { abs($0 - median) })
        if mad > 0 { return (median, mad / 0.6745) }
        let meanAD = values.map { abs($0 - median) }.reduce(0, +) / Double(values.count)
        return meanAD > 0 ? (median, 1.253314 * meanAD) : nil
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
