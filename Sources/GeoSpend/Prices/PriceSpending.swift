/// Top products by spending (issue 38: "top products by spending"): what a user paid per
/// product, from their price records, per currency, largest first.
///
/// A record's price is what was paid for its quantity, so a product's spending is the exact sum
/// of its records' prices in minor units (checked: a sum past Int64 is refused, never wrapped).
/// Currencies are never mixed: each currency ranks its own products (by total, then number of
/// records, then name and id), and the currency with the most records comes first.
public enum PriceSpending {
    public struct Row: Sendable, Hashable {
        public let product: Product
        public let total: Money
        public let records: Int
    }

    /// The user's spending per product and currency in local days `from…to` (nil: unbounded),
    /// at most `limit` products per currency.
    public static func top(userID: String, from: LocalDay?, to: LocalDay?, limit: Int, store: some PriceStore) async throws -> [Row] {
        let records = try await store.priceRecords(PriceQuery(userID: Identity.normalized(userID), from: from, to: to))
        return try rank(records, limit: limit)
    }

    /// The ranking over `records`, as `top` answers it.
    public static func rank(_ records: [PriceRecord], limit: Int) throws -> [Row] {
        struct Key: Hashable { let product: Int64; let currency: String }
        var sums: [Key: (product: Product, minor: Int64, count: Int, currency: Currency)] = [:]
        for r in records {
            let key = Key(product: r.product.id, currency: r.price.currency.code)
            var entry = sums[key] ?? (r.product, 0, 0, r.price.currency)
            let (sum, overflow) = entry.minor.addingReportingOverflow(r.price.minorUnits)
            guard !overflow else {
                throw UsageError("the spending on \"\(OutputEscaping.visible(r.product.name))\" in \(key.currency) exceeds what GeoSpend can add exactly")
            }
            entry.minor = sum
            entry.count += 1
            sums[key] = entry
        }
        let perCurrency = Dictionary(grouping: sums.values, by: { $0.currency.code })
        let order = perCurrency.keys.sorted { a, b in
            let (x, y) = (perCurrency[a]!.reduce(0) { $0 + $1.count }, perCurrency[b]!.reduce(0) { $0 + $1.count })
            return x != y ? x > y : a < b
        }
        var rows: [Row] = []
        for code in order {
            let ranked = perCurrency[code]!.sorted { a, b in
                if a.minor != b.minor { return a.minor > b.minor }
                if a.count != b.count { return a.count > b.count }
                if a.product.name != b.product.name { return a.product.name < b.product.name }
                return a.product.id < b.product.id
            }
            rows += ranked.prefix(limit).map { Row(product: $0.product, total: Money(minorUnits: $0.minor, currency: $0.currency), records: $0.count) }
        }
        return rows
    }

    /// `prices top --format json`: one object per row, in order.
    public static func json(_ rows: [Row]) -> JSONOutput {
        .array(rows.map { r in
            .object([
                ("product_id", .integer(r.product.id)), ("product", .string(r.product.name)), ("currency", .string(r.total.currency.code)),
                ("total", .string(r.total.decimalString)), ("records", .integer(Int64(r.records))),
            ])
        })
    }
}

extension PriceSpending {
    /// A `--from`/`--to` day (YYYY-MM-DD), nil when not given.
    public static func day(_ text: String?, option: String) throws -> LocalDay? {
        guard let text, !text.isEmpty else { return nil }
        do { return try LocalDay(parsing: text) } catch { throw UsageError("\(option): \(error)") }
    }
}
