/// A geotagged expense that no store has been assigned to: what snapping needs.
public struct UnsnappedExpense: Sendable, Hashable {
    public let id: String
    /// Its user: ids are unique per user.
    public let userID: String
    public let coordinate: Coordinate
    public let accuracyMeters: Double?
    public let merchant: String?

    public init(id: String, userID: String, coordinate: Coordinate, accuracyMeters: Double?, merchant: String?) {
        self.id = id
        self.userID = userID
        self.coordinate = coordinate
        self.accuracyMeters = accuracyMeters
        self.merchant = merchant
    }
}

/// An expense found by a radius query, with its geodesic distance from the centre.
public struct ExpenseHit: Sendable, Hashable {
    public let expense: Expense
    public let distanceMeters: Double
    public init(expense: Expense, distanceMeters: Double) {
        self.expense = expense
        self.distanceMeters = distanceMeters
    }
}

/// A store found by a nearest-store query, with its geodesic distance from the centre.
public struct StoreHit: Sendable, Hashable {
    public let store: Store
    public let distanceMeters: Double
    public init(store: Store, distanceMeters: Double) {
        self.store = store
        self.distanceMeters = distanceMeters
    }
}

public struct StoreCounts: Sendable, Hashable {
    public var users: Int
    public var expenses: Int
    public var geotaggedExpenses: Int
    public var stores: Int
    public init(users: Int, expenses: Int, geotaggedExpenses: Int, stores: Int) {
        self.users = users
        self.expenses = expenses
        self.geotaggedExpenses = geotaggedExpenses
        self.stores = stores
    }
}
