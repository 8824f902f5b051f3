/// Spending per month (`YYYY-MM`, the local month of each expense's recorded offset), per
/// currency, optionally per category or store, with the months without spending included as
/// zero so a chart's x axis has no gaps. Only expenses (not income or transfers), as insights.
///
/// The months run from `from`'s month (else the first month with spending) to `to`'s month (else
/// the last), the same for every series, so series line up.
///
/// ```swift
/// let t = try await Trends.compute(TrendsRequest(userID: "ann", by: .category), store: store)
/// t.rows.first   // TrendRow(month: "2025-01", currency: EUR, group: "Food", count: 3, totalMinor: 4_250)
/// ```
public struct TrendsRequest: Sendable {
    public enum Grouping: String, Sendable, CaseIterable { case none, category, store }
    public var userID: String
    public var from: Timestamp?
    public var to: Timestamp?
    public var by: Grouping

    public init(userID: String, from: Timestamp? = nil, to: Timestamp? = nil, by: Grouping = .none) {
        self.userID = userID
        self.from = from
        self.to = to
        self.by = by
    }
}

public struct TrendRow: Sendable, Hashable {
    public let month: String
    public let currency: Currency
    /// The category name or store id; nil without grouping, and for expenses without one.
    public let group: String?
    /// The store's name when grouped by store.
    public let groupName: String?
    public let count: Int
    public let totalMinor: Int64
}

public struct TrendsResult: Sendable, Hashable {
    /// By currency, then group (nil first), then month.
    public let rows: [TrendRow]
    public let months: [String]
}

public enum Trends {
    public static func compute(_ request: TrendsRequest, store: some ExpenseStore) async throws -> TrendsResult {
        try await store.read { reader in try compute(request, reader: reader) }
    }

    public static func compute(_ request: TrendsRequest, reader: any ExpenseReader) throws -> TrendsResult {
        let filter = ExpenseFilter(userID: request.userID, from: request.from, to: request.to, kinds: [.expense])
        struct Key: Hashable { let currency: Currency, group: String?, month: Int64 }
        var sums: [Key: (count: Int, total: Int64)] = [:]
        var first = Int64.max, last = Int64.min
        try reader.forEachSpendingPointBatch(filter, geotaggedOnly: false) { batch in
            for p in batch {
                let month = monthIndex(LocalDay(dayNumber: p.localDayNumber))
                first = min(first, month)
                last = max(last, month)
                let group: String? = switch request.by {
                case .none: nil
                case .category: p.category
                case .store: p.storeID
                }
                sums[Key(currency: p.currency, group: group, month: month), default: (0, 0)].count += 1
                sums[Key(currency: p.currency, group: group, month: month), default: (0, 0)].total += p.amountMinor
            }
        }
        if let from = request.from { first = monthIndex(try LocalDay(parsing: from.localDate)) }
        if let to = request.to {
            // An exclusive instant at a month's first midnight ends the month before.
            var day = try LocalDay(parsing: to.localDate)
            if !to.isDateOnly && Timestamp.localDayAndTime(epochMilliseconds: to.epochMilliseconds, utcOffsetMinutes: to.utcOffsetMinutes).millisecond == 0 {
                day = day.adding(days: -1)
            }
            last = monthIndex(day)
        }
        guard first <= last else { return TrendsResult(rows: [], months: []) }
        // Every series has a row per month, gaps included: bound the answer before building it.
        let seriesCount = Set(sums.keys.map { Key(currency: $0.currency, group: $0.group, month: 0) }).count
        let monthCount = last - first + 1
        guard monthCount <= maxMonths, Int64(seriesCount) * monthCount <= Int64(maxRows) else {
            throw UsageError(
                "trends over \(monthCount) months\(seriesCount > 1 ? " in \(seriesCount) series" : "") would be more than \(maxMonths) months or \(maxRows) rows; narrow --from/--to (from/to) or group less")
        }
        let months = (first...last).map(monthText)

        var names: [String: String] = [:]
        if request.by == .store {
            let ids = Set(sums.keys.compactMap(\.group))
            for (id, s) in try reader.stores(withIDs: ids) { names[id] = s.name }
        }
        let series = Set(sums.keys.map { Key(currency: $0.currency, group: $0.group, month: 0) })
            .sorted { ($0.currency.code, $0.group == nil ? 0 : 1, $0.group ?? "") < ($1.currency.code, $1.group == nil ? 0 : 1, $1.group ?? "") }
        var rows: [TrendRow] = []
        for s in series {
            for (i, month) in (first...last).enumerated() {
                let sum = sums[Key(currency: s.currency, group: s.group, month: month)] ?? (0, 0)
                rows.append(TrendRow(
                    month: months[i], currency: s.currency, group: s.group, groupName: s.group.flatMap { names[$0] }, count: sum.count,
                    totalMinor: sum.total))
            }
        }
        return TrendsResult(rows: rows, months: months)
    }

    /// The longest span an answer covers (a century of months), and the most rows (series ×
    /// months, about 20 MB of JSON): expenses dated 0000 and 9999, or a window that wide, would
    /// otherwise build 120,000 rows per series (5 GB for one request by store).
    public static let maxMonths: Int64 = 1200, maxRows = 200_000

    /// Months since 0000-01: consecutive months are consecutive integers.
    static func monthIndex(_ day: LocalDay) -> Int64 {
        let c = day.civil
        return Int64(c.year) * 12 + Int64(c.month - 1)
    }

    /// `YYYY-MM`, zero-padded so the text sorts as the months do.
    static func monthText(_ index: Int64) -> String {
        let year = index / 12, month = index % 12 + 1
        let y = String(year), m = String(month)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + (m.count < 2 ? "0" : "") + m
    }
}

extension TrendsResult {
    /// `trends --format json` (the CLI's and the service's `/api/v1/trends`).
    public func json(userID: String, by grouping: TrendsRequest.Grouping) -> JSONOutput {
        let rows = rows.map { r -> JSONOutput in
            var fields: [(String, JSONOutput)] = [("month", .string(r.month)), ("currency", .string(r.currency.code))]
            if grouping == .category { fields.append(("category", r.group.map { .string($0) } ?? .null)) }
            if grouping == .store {
                fields.append(("store_id", r.group.map { .string($0) } ?? .null))
                fields.append(("store_name", r.groupName.map { .string($0) } ?? .null))
            }
            fields += [("count", .integer(Int64(r.count))), ("total", .string(Money.decimalString(r.totalMinor, digits: r.currency.minorDigits)))]
            return .object(fields)
        }
        return .object([
            ("user", .string(userID)), ("by", grouping == .none ? .null : .string(grouping.rawValue)),
            ("months", .array(months.map { .string($0) })), ("rows", .array(rows)),
        ])
    }
}
