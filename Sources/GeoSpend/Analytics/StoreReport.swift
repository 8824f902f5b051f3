/// A cross-user report for one store (docs/DOMAIN.md § Store reports and suppression): no figure
/// computed from fewer than `minUsers` distinct users is published.
///
/// ```swift
/// let report = try await StoreReport.compute(StoreReportRequest(storeID: "317766538"), store: store)
/// print(StoreReportOutput.markdown(report))
/// ```
public struct StoreReportRequest: Sendable {
    /// In NFC, as ids are stored (`Identity`).
    public var storeID: String { didSet { storeID = Identity.normalized(storeID) } }
    public var from: Timestamp?
    public var to: Timestamp?
    public var kinds: Set<ExpenseKind>
    /// Cells with fewer distinct users are suppressed (default 3).
    public var minUsers: Int
    /// Peers for the average-ticket comparison: stores of the same kind within this distance.
    public var peerRadius: Distance

    public init(
        storeID: String, from: Timestamp? = nil, to: Timestamp? = nil, kinds: Set<ExpenseKind> = [.expense], minUsers: Int = 3,
        peerRadius: Distance = .kilometers(1)
    ) {
        self.storeID = Identity.normalized(storeID)
        self.from = from
        self.to = to
        self.kinds = kinds
        self.minUsers = minUsers
        self.peerRadius = peerRadius
    }
}

/// A figure over a group of expenses, or nothing when too few users are behind it.
public struct ReportCell: Sendable, Hashable {
    public let key: String
    /// Distinct users behind the cell (not published: for suppression only).
    let userIDs: Set<String>
    var users: Int { userIDs.count }
    /// Expenses behind the cell, published or not (for the complementary pick).
    let expenses: Int
    let totalMinor: Int64
    public let count: Int?
    public let total: Money?
    public var isSuppressed: Bool { count == nil }

    private init(key: String, userIDs: Set<String>, expenses: Int, totalMinor: Int64, count: Int?, total: Money?) {
        (self.key, self.userIDs, self.expenses, self.totalMinor, self.count, self.total) = (key, userIDs, expenses, totalMinor, count, total)
    }

    /// A cell shown without figures (suppressed, or empty and indistinguishable from small).
    static func suppressed(_ key: String) -> ReportCell {
        ReportCell(key: key, userIDs: [], expenses: 0, totalMinor: 0, count: nil, total: nil)
    }

    /// The same cell with its figures withheld.
    var withheld: ReportCell {
        ReportCell(key: key, userIDs: userIDs, expenses: expenses, totalMinor: totalMinor, count: nil, total: nil)
    }

    init(key: String, points: [SpendingPoint], currency: Currency, minUsers: Int) {
        self.key = key
        userIDs = Set(points.map(\.userID))
        expenses = points.count
        totalMinor = points.reduce(0) { $0 + $1.amountMinor }
        if userIDs.count >= minUsers {
            count = expenses
            total = Money(minorUnits: totalMinor, currency: currency)
        } else {
            count = nil
            total = nil
        }
    }
}

/// Count, total, average and median of a group. No first or last expense: that is one user's
/// visit, its instant (and month) a figure of one user.
public struct ReportFigures: Sendable, Hashable {
    public let visitors: Int
    public let count: Int
    public let total: Money
    public let average: Money
    public let median: Money
}

extension ReportFigures {
    /// The figures of one store's expenses in one currency, or nil when fewer than `minUsers`
    /// distinct users are behind them.
    static func of(_ ps: [SpendingPoint], currency: Currency, minUsers: Int) -> ReportFigures? {
        let visitors = Set(ps.map(\.userID)).count
        guard visitors >= minUsers else { return nil }
        let stats = AmountStatistics(minorUnits: ps.map(\.amountMinor), currency: currency)
        return ReportFigures(visitors: visitors, count: ps.count, total: stats.total.total, average: stats.average, median: stats.median)
    }
}

public struct StoreComparison: Sendable, Hashable {
    /// Same-kind stores within the peer radius with enough users to be compared.
    public let peers: Int
    /// 1 = the highest average ticket among the store and its peers.
    public let rank: Int
    /// The store's average ticket over the mean of its peers' average tickets.
    public let ratio: Double?
    public let peersAverage: Money?
}

public struct StoreReport: Sendable {
    public struct Section: Sendable {
        public let currency: Currency
        public let figures: ReportFigures
        /// Only the categories with at least `minUsers` users (and not complementary-suppressed).
        public let byCategory: [ReportCell]
        /// 7 × 24 cells: weekday (Monday first) × local hour. Bare-date expenses have no hour.
        public let weekdayHour: [[ReportCell]]
        /// One cell per local month `YYYY-MM` from the first to the last published month.
        public let monthly: [ReportCell]
        public let comparison: StoreComparison
    }

    public let store: Store
    public let from: Timestamp?
    public let to: Timestamp?
    public let minUsers: Int
    /// One section per currency with at least `minUsers` users, the one with most expenses
    /// first; a currency with fewer users is not named (README, "Store reports").
    public let sections: [Section]

    public static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// - Throws: `StoreReportError.unknownStore`, or the store's errors.
    public static func compute(_ request: StoreReportRequest, store: some ExpenseStore) async throws -> StoreReport {
        try await store.read { try compute(request, reader: $0) }
    }

    /// `compute` inside a read scope: the subject, its expenses and its peers' from one snapshot.
    public static func compute(_ request: StoreReportRequest, reader store: some ExpenseReader) throws -> StoreReport {
        guard let subject = try store.stores(withIDs: [request.storeID])[request.storeID] else {
            throw StoreReportError.unknownStore(request.storeID)
        }
        var filter = ExpenseFilter(userID: nil, from: request.from, to: request.to, kinds: request.kinds, storeIDs: [subject.id])
        let points = try store.spendingPoints(filter)

        // Peers: the same kind within the radius, over the same window.
        var peerAverages: [Currency: [Int64]] = [:]
        if let kind = subject.kind {
            let peers = try store.stores(within: request.peerRadius, of: subject.coordinate, kind: kind)
                .map(\.store.id).filter { $0 != subject.id }
            if !peers.isEmpty {
                filter.storeIDs = Set(peers)
                var byStore: [String: [SpendingPoint]] = [:]
                for p in try store.spendingPoints(filter) {
                    guard let id = p.storeID else { continue }  // the filter asks for store ids; a store may not honour it
                    byStore[id, default: []].append(p)
                }
                for (_, ps) in byStore {
                    for (currency, cps) in Dictionary(grouping: ps, by: \.currency)
                    where Set(cps.map(\.userID)).count >= request.minUsers {
                        var t = MoneyTotal(currency: currency)
                        for p in cps { t.add(p.amountMinor) }
                        peerAverages[currency, default: []].append(t.averageMinor)
                    }
                }
            }
        }

        let byCurrency = Dictionary(grouping: points, by: \.currency)
        var sections: [Section] = []
        for (currency, ps) in byCurrency {
            // A currency fewer users paid in is not named at all: a small section and no
            // section look the same.
            guard let figures = ReportFigures.of(ps, currency: currency, minUsers: request.minUsers) else { continue }
            let cell = { (key: String, group: [SpendingPoint]) in
                ReportCell(key: key, points: group, currency: currency, minUsers: request.minUsers)
            }
            let peers = peerAverages[currency] ?? []
            let mine = figures.average.minorUnits
            let peersMean = peers.isEmpty ? nil : Double(peers.reduce(0, +)) / Double(peers.count)
            let comparison = StoreComparison(
                peers: peers.count, rank: 1 + peers.filter { $0 > mine }.count,
                ratio: peersMean.flatMap { $0 == 0 ? nil : Double(mine) / $0 },
                peersAverage: peersMean.map { Money(minorUnits: Int64($0.rounded(.toNearestOrAwayFromZero)), currency: currency) })
            // Categories: only those that pass (complementary suppression included) are listed.
            let categories = Dictionary(grouping: ps, by: { $0.category ?? "(none)" })
            let categoryCells = published(categories.keys.sorted().map { cell($0, categories[$0]!) }, minUsers: request.minUsers)
            // Weekday × hour: the 7 × 24 labels are fixed; only figures are suppressed. Expenses
            // with a bare date have no hour: they form a 169th cell that is never published, so
            // the section count minus the published cells cannot be one user's bare-date count.
            let timed = Dictionary(grouping: ps) { p -> Int in
                guard let wh = p.localWeekdayHour else { return 7 * 24 }
                return wh.weekday * 24 + wh.hour
            }
            let untimed = cell("no hour", timed[7 * 24] ?? []).withheld
            let hourCells = suppressingSmall(
                (0..<(7 * 24)).map { k in cell("\(weekdays[k / 24]) \(k % 24)", timed[k] ?? []) } + [untimed], minUsers: request.minUsers
            ).dropLast()
            // Months: from the first to the last published month, so no month is named only
            // because fewer users spent in it; the gaps between look alike, empty or small.
            let months = Dictionary(grouping: ps, by: { String($0.localDate.prefix(7)) })
            let monthCells = suppressingSmall(months.keys.sorted().map { cell($0, months[$0]!) }, minUsers: request.minUsers)
            let shown = Dictionary(uniqueKeysWithValues: monthCells.map { ($0.key, $0) })
            let monthly = monthRange(monthCells.filter { !$0.isSuppressed }.map(\.key)).map { shown[$0] ?? .suppressed($0) }
            sections.append(Section(
                currency: currency, figures: figures, byCategory: categoryCells,
                weekdayHour: (0..<7).map { d in Array(hourCells[(d * 24)..<(d * 24 + 24)]) }, monthly: monthly,
                comparison: comparison))
        }
        sections.sort { ($1.figures.count, $0.currency.code) < ($0.figures.count, $1.currency.code) }
        return StoreReport(store: subject, from: request.from, to: request.to, minUsers: request.minUsers, sections: sections)
    }

    /// The published cells of a breakdown: those that pass, minus the complementary picks
    /// (`Suppression`), so the section's total minus the published cells is never a figure of
    /// fewer than `minUsers` users.
    static func published(_ cells: [ReportCell], minUsers: Int) -> [ReportCell] {
        suppressingSmall(cells, minUsers: minUsers).filter { !$0.isSuppressed }
    }

    /// Cells with complementary suppression applied: while the withheld non-empty cells together
    /// come from fewer than `minUsers` users, the smallest published one (fewest expenses, then
    /// smallest total, then first) is withheld too. A breakdown is a partition of the section,
    /// whose total is published: the difference is exactly the withheld cells' sum.
    static func suppressingSmall(_ cells: [ReportCell], minUsers: Int) -> [ReportCell] {
        let filled = cells.indices.filter { cells[$0].users > 0 }  // empty cells neither fail nor pass
        let s = Suppression(
            count: filled.count, passes: { !cells[filled[$0]].isSuppressed },
            smaller: { a, b in
                let x = cells[filled[a]], y = cells[filled[b]]
                return (x.expenses, x.totalMinor, a) < (y.expenses, y.totalMinor, b)
            },
            hiddenPass: { hidden in hidden.reduce(into: Set<String>()) { $0.formUnion(cells[filled[$1]].userIDs) }.count >= minUsers })
        guard s.complementary > 0 else { return cells }
        let kept = Set(s.kept.map { filled[$0] })
        var out = cells
        for k in filled where !kept.contains(k) { out[k] = cells[k].withheld }
        return out
    }

    /// Every `YYYY-MM` from the earliest to the latest given, gaps included.
    static func monthRange(_ months: some Collection<String>) -> [String] {
        guard let first = months.min(), let last = months.max() else { return [] }
        var y = Int(first.prefix(4))!, m = Int(first.suffix(2))!
        var out: [String] = []
        while true {
            let key = "\(Timestamp.pad(y, 4))-\(Timestamp.pad(m, 2))"
            out.append(key)
            if key >= last { return out }
            m += 1
            if m == 13 { m = 1; y += 1 }
        }
    }
}

/// `geospend report stores`: key figures for many stores; stores below `minUsers` are not listed.
public struct StoreListReport: Sendable {
    public struct Row: Sendable, Hashable {
        public let store: Store
        public let currency: Currency
        public let distanceMeters: Double?
        public let figures: ReportFigures
    }
    public let minUsers: Int
    /// Per currency (most listed expenses first), by total descending. Only store × currency
    /// rows with at least `minUsers` users are listed: nothing tells a store fewer users
    /// visited from one nobody visited.
    public let rows: [Row]

    /// - Parameters:
    ///   - near: with `radius`, only stores within it (geodesic).
    ///   - kind: only stores of this kind.
    ///   - limit: at most this many rows, the first in the report's order (nil: all).
    public static func compute(
        near: Coordinate?, radius: Distance?, kind: String?, from: Timestamp? = nil, to: Timestamp? = nil, minUsers: Int = 3,
        limit: Int? = nil, store: some ExpenseStore
    ) async throws -> StoreListReport {
        try await store.read {
            try compute(near: near, radius: radius, kind: kind, from: from, to: to, minUsers: minUsers, limit: limit, reader: $0)
        }
    }

    /// `compute` inside a read scope: the stores and their expenses from one snapshot.
    public static func compute(
        near: Coordinate?, radius: Distance?, kind: String?, from: Timestamp? = nil, to: Timestamp? = nil, minUsers: Int = 3,
        limit: Int? = nil, reader store: some ExpenseReader
    ) throws -> StoreListReport {
        var distances: [String: Double] = [:]
        let stores: [Store]
        if let near, let radius {
            let hits = try store.stores(within: radius, of: near, kind: kind)
            for h in hits { distances[h.store.id] = h.distanceMeters }
            stores = hits.map(\.store)
        } else {
            stores = try store.allStores(kind: kind)
        }
        let wanted = Dictionary(uniqueKeysWithValues: stores.map { ($0.id, $0) })
        // A long IN list costs more than reading every linked expense and keeping the wanted ones.
        let filter = ExpenseFilter(userID: nil, from: from, to: to, kinds: [.expense], storeIDs: wanted.count <= 500 ? Set(wanted.keys) : [])
        var groups: [String: [SpendingPoint]] = [:]
        for p in try store.spendingPoints(filter) {
            guard let s = p.storeID, wanted[s] != nil else { continue }
            groups[s, default: []].append(p)
        }
        // Only rows with enough users are listed: a store fewer users visited looks like one
        // nobody visited. No complementary step: nothing here publishes a total over stores
        // that a left-out row would be the difference of, and dropping a listed row whenever
        // exactly one is left out would tell, for a selection of two stores, that the other
        // one had a few users.
        var rows: [Row] = []
        var count: [Currency: Int] = [:]
        for (id, ps) in groups {
            for (currency, cps) in Dictionary(grouping: ps, by: \.currency) {
                guard let figures = ReportFigures.of(cps, currency: currency, minUsers: minUsers) else { continue }
                count[currency, default: 0] += cps.count
                rows.append(Row(store: wanted[id]!, currency: currency, distanceMeters: distances[id], figures: figures))
            }
        }
        rows.sort { a, b in
            if a.currency != b.currency { return (count[b.currency]!, a.currency.code) < (count[a.currency]!, b.currency.code) }
            return (b.figures.total.minorUnits, a.store.id) < (a.figures.total.minorUnits, b.store.id)
        }
        return StoreListReport(minUsers: minUsers, rows: limit.map { Array(rows.prefix($0)) } ?? rows)
    }
}

public enum StoreReportError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownStore(String)
    public var description: String {
        switch self { case .unknownStore(let id): return "no store with id \"\(id)\"" }
    }
}
