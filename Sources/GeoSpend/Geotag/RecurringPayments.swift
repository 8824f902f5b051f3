/// Finds subscriptions by their rhythm: the same merchant charging the same amount in at
/// least `minimumMonths` different calendar months, at most two months apart. A subscription is
/// paid online whatever its descriptor says, so the geotagger never places one.
public enum RecurringPayments {
    /// One payment: its id, the merchant's match key (`MerchantDescriptor.matchKey`), the amount
    /// in minor units with its currency, and its local date `YYYY-MM-DD`.
    public struct Payment: Sendable, Hashable {
        public var id: String
        public var merchantKey: String
        public var amountMinorUnits: Int64
        public var currency: String
        public var localDate: String
        public init(id: String, merchantKey: String, amountMinorUnits: Int64, currency: String, localDate: String) {
            self.id = id
            self.merchantKey = merchantKey
            self.amountMinorUnits = amountMinorUnits
            self.currency = currency
            self.localDate = localDate
        }
    }

    /// The ids of the payments that belong to a monthly series.
    /// - Complexity: O(n log n).
    public static func monthlyIDs(in payments: [Payment], minimumMonths: Int = 3) -> Set<String> {
        var groups: [String: [(month: Int, id: String)]] = [:]
        for p in payments where !p.merchantKey.isEmpty {
            let parts = p.localDate.split(separator: "-")
            guard parts.count >= 2, let y = Int(parts[0]), let m = Int(parts[1]) else { continue }
            groups["\(p.merchantKey)|\(p.amountMinorUnits)|\(p.currency)", default: []].append((y * 12 + m, p.id))
        }
        var out = Set<String>()
        for (_, list) in groups {
            let months = Set(list.map(\.month)).sorted()
            guard months.count >= minimumMonths else { continue }
            // The longest run with gaps of at most two months.
            var best = 1, run = 1
            for i in 1..<months.count {
                run = months[i] - months[i - 1] <= 2 ? run + 1 : 1
                best = max(best, run)
            }
            if best >= minimumMonths { out.formUnion(list.map(\.id)) }
        }
        return out
    }
}
