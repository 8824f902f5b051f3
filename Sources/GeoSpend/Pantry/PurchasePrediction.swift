/// "You usually buy \(name) around this time" (seed 000 L18, L734–789): when a user buys a
/// product again, from their own price records.
///
/// The formula: a product's purchase days are the distinct local days (the recorded offset's
/// day) of the user's price records of it. With at least 3 of them, the gaps are the days
/// between consecutive purchase days; the interval is their median (with an even number of
/// gaps the mean of the two middle ones, rounded down to whole days); the predicted day is the
/// last purchase day + the interval. The median, not the mean, so one long holiday gap does
/// not move the prediction.
///
/// ```swift
/// // bought on 2025-03-01, 03-08, 03-14, 03-22: gaps 7, 6, 8 → interval 7 → 2025-03-29
/// ```
public struct PurchasePrediction: Sendable, Hashable {
    public let productID: Int64
    public let name: String
    /// Distinct purchase days (≥ 3).
    public let purchases: Int
    public let lastPurchase: LocalDay
    /// In days, ≥ 1.
    public let intervalDays: Int64
    public let predicted: LocalDay

    public static let minimumPurchases = 3

    /// The interval for ascending distinct purchase days; nil with fewer than 3.
    /// - Complexity: O(n log n).
    public static func interval(days: [LocalDay]) -> Int64? {
        guard days.count >= minimumPurchases else { return nil }
        var gaps: [Int64] = []
        for i in 1..<days.count { gaps.append(days[i].dayNumber - days[i - 1].dayNumber) }
        gaps.sort()
        let m = gaps.count / 2
        return gaps.count % 2 == 1 ? gaps[m] : (gaps[m - 1] + gaps[m]) / 2
    }

    /// The predictions for the records (one user's), by predicted day then product id. Records
    /// after `asOf` are left out, so a prediction is what was known that day.
    /// - Complexity: O(n log n) in the records.
    public static func predictions(_ records: [PriceRecord], asOf: LocalDay? = nil) -> [PurchasePrediction] {
        var days: [Int64: Set<Int64>] = [:]
        var names: [Int64: String] = [:]
        for r in records {
            guard let day = try? LocalDay(parsing: r.recordedAt.localDate) else { continue }
            if let asOf, day > asOf { continue }
            days[r.product.id, default: []].insert(day.dayNumber)
            names[r.product.id] = r.product.name
        }
        var out: [PurchasePrediction] = []
        for (product, set) in days {
            let sorted = set.sorted().map(LocalDay.init(dayNumber:))
            guard let interval = interval(days: sorted), let last = sorted.last else { continue }
            out.append(PurchasePrediction(
                productID: product, name: names[product] ?? "", purchases: sorted.count, lastPurchase: last, intervalDays: interval,
                predicted: last.adding(days: interval)))
        }
        return out.sorted { ($0.predicted, $0.productID) < ($1.predicted, $1.productID) }
    }

    public static func message(_ name: String) -> String { "You usually buy \(name) around this time" }

    /// How many days after the predicted day its reminder may still be raised (a scheduler
    /// down on the day catches up); later, a missed prediction raises nothing.
    public static let catchUpDays: Int64 = 2

    /// Whether the reminder is due on `day`.
    public func isDue(on day: LocalDay) -> Bool { predicted <= day && day.dayNumber - predicted.dayNumber <= Self.catchUpDays }

    /// The `purchase.predicted` event, once per product and predicted day.
    public func event(userID: String) -> NewNotificationEvent {
        NewNotificationEvent(
            userID: userID, type: NotificationType.purchasePredicted, key: "predicted:\(productID):\(predicted)",
            payload: .object([
                ("product_id", .integer(productID)), ("name", .string(name)), ("predicted", .string(predicted.description)),
                ("interval_days", .integer(intervalDays)), ("last_purchase", .string(lastPurchase.description)),
                ("message", .string(Self.message(name))),
            ]))
    }

    public var json: JSONOutput {
        .object([
            ("product_id", .integer(productID)), ("name", .string(name)), ("purchases", .integer(Int64(purchases))),
            ("last_purchase", .string(lastPurchase.description)), ("interval_days", .integer(intervalDays)),
            ("predicted", .string(predicted.description)), ("message", .string(Self.message(name))),
        ])
    }
}
