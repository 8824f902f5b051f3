/// What `LocationInsights.compute` is asked: whose expenses, which window, how to group them.
public struct InsightsRequest: Sendable {
    public var userID: String
    /// The window; bare dates are local days, both inclusive. A previous window of equal
    /// length is compared only when both ends are given and of the same form.
    public var from: Timestamp?
    public var to: Timestamp?
    /// Default: expenses only (income and transfers are not spending at a place).
    public var kinds: Set<ExpenseKind>
    public var categories: Set<String>
    public var grouping: PlaceGrouping
    public var limit: Int?
    public var clusterRadius: Distance
    public var clusterMinPoints: Int
    /// Only the expenses assigned to the user's period with this id (the previous window too).
    public var period: Int64?

    public init(
        userID: String, from: Timestamp? = nil, to: Timestamp? = nil, kinds: Set<ExpenseKind> = [.expense],
        categories: Set<String> = [], grouping: PlaceGrouping = .place, limit: Int? = nil,
        clusterRadius: Distance = .meters(75), clusterMinPoints: Int = 2
    ) {
        self.userID = userID
        self.from = from
        self.to = to
        self.kinds = kinds
        self.categories = categories
        self.grouping = grouping
        self.limit = limit
        self.clusterRadius = clusterRadius
        self.clusterMinPoints = clusterMinPoints
    }

    var filter: ExpenseFilter {
        ExpenseFilter(userID: userID, from: from, to: to, kinds: kinds, categories: categories, period: period)
    }
}

/// Why insights could not be computed.
public enum InsightsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An expense read for the insights was gone when its visit time was looked up: the
    /// reader's scope was not one snapshot, as `ExpenseStore.read` promises.
    case expenseDeletedDuringRead(String)

    public var description: String {
        switch self {
        case .expenseDeletedDuringRead(let id): "expense \"\(id)\" was deleted while the insights were computed; run them again"
        }
    }
}

/// `store`: one row per store (expenses without a store are unplaced); `place`: stores, plus

/// density clusters of the geotagged expenses that have no store.
public enum PlaceGrouping: String, Sendable, CaseIterable { case store, place }
