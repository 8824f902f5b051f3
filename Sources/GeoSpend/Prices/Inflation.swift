/// How fast prices rise (AllesTeurer's rate), for one product or a category, at one place or all.
///
/// The seed's formula, exactly: the records in the window `[asOf − days, asOf]` (local days, both
/// included) sorted by date, `k = n / 4` (integer division), rate = (mean of the last k unit
/// prices − mean of the first k) / mean of the first k × 100; fewer than 2 records give 0.0.
/// For 2 ≤ n < 4 the seed's k is 0 (a division by zero): k = 1 here, first record against last.
/// Records of one day are ordered by their instant, then by unit price.
///
/// A category is not the seed's average of raw prices across products (butter at 2 €/250 g and
/// cheese at 20 €/kg would make a shift in the mix look like inflation): each product's own rate
/// is computed as above, and the category's rate is their mean weighted by each product's number
/// of records in the window (products with fewer than 2 records have no rate and no weight).
public struct InflationRequest: Sendable {
    public var products: Set<String>
    public var asOf: LocalDay
    public var days: Int64 = 365
    /// Only records of these stores (one store, or the stores within a radius); nil for all.
    public var storeIDs: Set<String>?
    public var currency: Currency?

    public init(products: Set<String>, asOf: LocalDay) {
        self.products = products
        self.asOf = asOf
    }
}

public struct InflationWindow: Sendable, Hashable {
    public let from: LocalDay
    public let to: LocalDay
    public let records: Int
    /// Mean unit price (per kg, l or piece) in major units; nil for a category's span.
    public let meanUnitPrice: Double?
}

public struct ProductInflation: Sendable, Hashable {
    public let productID: String
    public let ratePercent: Double
    public let records: Int
    public let firstWindow: InflationWindow?
    public let lastWindow: InflationWindow?
}

public struct InflationResult: Sendable, Hashable {
    public let ratePercent: Double
    public let records: Int
    public let currency: Currency?
    /// For one product its windows; for a category the span of the products' windows and no mean.
    public let firstWindow: InflationWindow?
    public let lastWindow: InflationWindow?
    /// Each product with a rate, highest weight first (ties by id).
    public let products: [ProductInflation]
    public let windowFrom: LocalDay
    public let windowTo: LocalDay
}

public enum Inflation {
    public static func compute(_ request: InflationRequest, observations: [PriceObservation]) -> InflationResult {
        let from = request.asOf.adding(days: -request.days)
        let inWindow = observations.filter {
            request.products.contains($0.productID) && $0.day >= from && $0.day <= request.asOf
                && (request.storeIDs?.contains($0.storeID) ?? true)
        }
        let currency = request.currency ?? Basket.mostCommon(Basket.recordsPerCurrency(inWindow)).flatMap { try? Currency(code: $0) }
        let records = inWindow.filter { $0.price.currency == currency }

        let byProduct = Dictionary(grouping: records, by: \.productID)
        let rates: [ProductInflation] = byProduct.map { Inflation.rate(productID: $0.key, $0.value) }
            .sorted { ($1.records, $0.productID) < ($0.records, $1.productID) }
        if request.products.count == 1 {
            let one = rates.first
            return InflationResult(
                ratePercent: one?.ratePercent ?? 0, records: records.count, currency: currency, firstWindow: one?.firstWindow,
                lastWindow: one?.lastWindow, products: rates, windowFrom: from, windowTo: request.asOf)
        }
        let weighted = rates.filter { $0.records >= 2 }
        let weight = weighted.reduce(0) { (sum: Int, p: ProductInflation) in sum + p.records }
        let combined = weight == 0 ? 0 : weighted.reduce(0.0) { $0 + Double($1.records) * $1.ratePercent } / Double(weight)
        func span(_ windows: [InflationWindow]) -> InflationWindow? {
            guard let f = windows.map(\.from).min(), let t = windows.map(\.to).max() else { return nil }
            return InflationWindow(from: f, to: t, records: windows.reduce(0) { $0 + $1.records }, meanUnitPrice: nil)
        }
        return InflationResult(
            ratePercent: combined, records: records.count, currency: currency, firstWindow: span(weighted.compactMap(\.firstWindow)),
            lastWindow: span(weighted.compactMap(\.lastWindow)), products: rates, windowFrom: from, windowTo: request.asOf)
    }

    /// The seed's rate over one product's records (any order).
    public static func rate(productID: String, _ records: [PriceObservation]) -> ProductInflation {
        let sorted = records.sorted { ($0.day, $0.instantMilliseconds, $0.unitPrice) < ($1.day, $1.instantMilliseconds, $1.unitPrice) }
        let n = sorted.count
        guard n >= 2 else { return ProductInflation(productID: productID, ratePercent: 0, records: n, firstWindow: nil, lastWindow: nil) }
        let k = max(1, n / 4)
        func window(_ slice: ArraySlice<PriceObservation>) -> InflationWindow {
            InflationWindow(
                from: slice.first!.day, to: slice.last!.day, records: slice.count,
                meanUnitPrice: slice.reduce(0.0) { $0 + $1.unitPrice } / Double(slice.count))
        }
        let first = window(sorted.prefix(k)), last = window(sorted.suffix(k))
        let rate = (last.meanUnitPrice! - first.meanUnitPrice!) / first.meanUnitPrice! * 100
        return ProductInflation(productID: productID, ratePercent: rate, records: n, firstWindow: first, lastWindow: last)
    }
}
