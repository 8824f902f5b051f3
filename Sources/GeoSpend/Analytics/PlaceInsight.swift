/// A place: a store from the registry, or a cluster of nearby expense positions.
public struct Place: Sendable, Hashable {
    public enum Kind: String, Sendable { case store, cluster }
    public let kind: Kind
    public let id: String
    public let name: String?

    public init(kind: Kind, id: String, name: String?) {
        self.kind = kind
        self.id = id
        self.name = name
    }
}

/// One row of the insights: a place in one currency.
public struct PlaceInsight: Sendable, Hashable {
    public let place: Place
    /// Store: its position. Cluster: the mean of its expenses' positions.
    public let centroid: Coordinate?
    public let currency: Currency
    public let count: Int
    public let total: Money
    /// Mean, rounded half away from zero to the minor unit.
    public let average: Money
    /// Middle amount; for an even count the mean of the two middle ones, rounded half up.
    public let median: Money
    public let min: Money
    public let max: Money
    public let firstVisit: Timestamp
    public let lastVisit: Timestamp
    /// Distinct local calendar days with an expense here.
    public let visitDays: Int
    /// This place's part of the user's placed spending in this currency (0–1).
    public let share: Double
    /// The category with the largest total here (ties by name).
    public let topCategory: String?
    /// Versus the previous window of equal length; nil without a window.
    public let change: WindowChange?
}

public struct WindowChange: Sendable, Hashable {
    public let previousTotal: Money
    public let delta: Money
    /// total / previous total; nil when the previous total is zero.
    public let ratio: Double?

    public init(previousTotal: Money, delta: Money, ratio: Double?) {
        self.previousTotal = previousTotal
        self.delta = delta
        self.ratio = ratio
    }
}

