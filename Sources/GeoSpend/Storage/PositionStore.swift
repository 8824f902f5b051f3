/// A user's location history (issue 36) and the positions geotagging gives their expenses.
///
/// The most private data GeoSpend keeps: every call names one user and touches only that
/// user's rows; nothing here reads across users. The reads are a read scope's
/// (`PositionReader`); each write is one transaction, as the other aggregates' writes beside
/// `ExpenseStore` are today (docs/ARCHITECTURE.md § The storage seam).
///
/// ```swift
/// let history = try LocationHistoryReader.read(path: "Timeline.json")
/// let added = try await store.addLocationHistory(history, userID: "ann")
/// let input = try await store.geotagInput(userID: "ann", from: nil, to: nil)
/// ```
public protocol PositionStore: Sendable {
    /// Stores the history's positions and the visits it recorded (detected stays are not kept:
    /// they are found again from the positions), creating the user with the default categories
    /// on first sight, as an expense import does. A fix or visit already stored is left as it
    /// is, so importing a file again changes nothing. All or nothing.
    func addLocationHistory(_ history: LocationHistory, userID: String) async throws -> PositionImportCount

    /// The user's positions with instants in `[from, to)` and the recorded visits overlapping
    /// it (nil: unbounded), sorted by time.
    func locationHistory(userID: String, from: Int64?, to: Int64?) async throws -> LocationHistory

    /// What a geotag run reads, in one snapshot: the user's history in `[from, to)` and every
    /// expense of the user (all of them: monthly series are found across months), by id.
    func geotagInput(userID: String, from: Int64?, to: Int64?) async throws -> GeotagInput

    /// Deletes the user's positions (and visits that started) before `before` (every one when
    /// nil), with the same no-trace guarantee as deleting an expense.
    func deletePositions(userID: String, before: Int64?) async throws -> PositionDeletion

    /// Gives each placement's expense its position, provenance and, when it has none, the
    /// store; an expense that has a position by now is left alone (false at its index). One
    /// transaction, which also raises `events` (a geotag run's `geotag.review_waiting`) and
    /// the budget events the placements cause.
    func place(_ placements: [ExpensePlacement], userID: String, events: [NewNotificationEvent]) async throws -> [Bool]

    /// Takes back the positions geotagging inferred (`PositionSource.isInferred`) of the user's
    /// expenses, or of the one expense `expenseID`, with the store links it made.
    /// - Returns: the ids restored, in id order.
    func unplace(userID: String, expenseID: String?) async throws -> [String]
}

/// Location history as a read scope hands it out (every `ExpenseReader` is one), in the
/// scope's snapshot. A store that keeps no history finds none.
public protocol PositionReader {
    /// `PositionStore.locationHistory`, in the scope's snapshot.
    func locationHistory(userID: String, from: Int64?, to: Int64?) throws -> LocationHistory
    /// `PositionStore.geotagInput`: the history and the expenses, in the scope's one snapshot.
    func geotagInput(userID: String, from: Int64?, to: Int64?) throws -> GeotagInput
}

/// A backend's history reads are its read scope's (written once, in its reader).
extension PositionStore where Self: ExpenseStore {
    public func locationHistory(userID: String, from: Int64?, to: Int64?) async throws -> LocationHistory {
        try await read { try $0.locationHistory(userID: userID, from: from, to: to) }
    }

    public func geotagInput(userID: String, from: Int64?, to: Int64?) async throws -> GeotagInput {
        try await read { try $0.geotagInput(userID: userID, from: from, to: to) }
    }
}

extension PositionStore {
    /// `place` raising no event but the budget events the placements cause.
    public func place(_ placements: [ExpensePlacement], userID: String) async throws -> [Bool] {
        try await place(placements, userID: userID, events: [])
    }
}

/// Where an expense's position came from: shown with every expense (`position_source`) and
/// in exported layers, so a map can show or hide inferred positions.
public enum PositionSource: String, Sendable, Hashable, CaseIterable {
    /// Imported with the expense (the phone or app that recorded it).
    case device
    /// Geotagging, from the location history alone.
    case history
    /// Geotagging, from the merchant text alone (one store of that name).
    case merchant
    /// Geotagging, from both.
    case historyAndMerchant = "history+merchant"
    /// Placed at the store the expense was linked to (`expenses edit --store`, `geotag confirm --store`).
    case store
    /// Given by hand (`expenses add|edit --lat --lon`, `geotag confirm --lat --lon`).
    case manual

    /// Whether geotagging inferred it (what `geotag undo` takes back).
    public var isInferred: Bool { self == .history || self == .merchant || self == .historyAndMerchant }

    public init(_ source: GeotagSource) {
        switch source {
        case .history: self = .history
        case .merchant: self = .merchant
        case .historyAndMerchant: self = .historyAndMerchant
        }
    }
}

/// A position to give one expense (`PositionStore.place`).
public struct ExpensePlacement: Sendable, Hashable {
    public let expenseID: String
    public let location: ExpenseLocation
    /// Linked when the expense has no store yet.
    public let storeID: String?
    public let source: PositionSource
    /// 0…1 for inferred positions; nil for the user's own.
    public let confidence: Double?

    public init(expenseID: String, location: ExpenseLocation, storeID: String?, source: PositionSource, confidence: Double?) {
        self.expenseID = expenseID
        self.location = location
        self.storeID = storeID
        self.source = source
        self.confidence = confidence
    }

    /// A geotag placement as stored.
    public init(_ p: GeotagPlacement) {
        self.init(
            expenseID: p.id, location: ExpenseLocation(coordinate: p.coordinate, accuracyMeters: p.accuracyMeters),
            storeID: p.storeID, source: PositionSource(p.source), confidence: p.confidence)
    }
}

/// What `addLocationHistory` stored and found already there.
public struct PositionImportCount: Sendable, Hashable {
    public var positionsAdded = 0
    public var positionsUnchanged = 0
    public var visitsAdded = 0
    public var visitsUnchanged = 0
    public init(positionsAdded: Int = 0, positionsUnchanged: Int = 0, visitsAdded: Int = 0, visitsUnchanged: Int = 0) {
        self.positionsAdded = positionsAdded
        self.positionsUnchanged = positionsUnchanged
        self.visitsAdded = visitsAdded
        self.visitsUnchanged = visitsUnchanged
    }
}

/// What `deletePositions` removed.
public struct PositionDeletion: Sendable, Hashable {
    public var positions: Int
    public var visits: Int
    public init(positions: Int, visits: Int) {
        self.positions = positions
        self.visits = visits
    }
}

/// The user's history and expenses as one snapshot saw them (`PositionStore.geotagInput`).
public struct GeotagInput: Sendable {
    public var history: LocationHistory
    public var expenses: [Expense]
    public init(history: LocationHistory, expenses: [Expense]) {
        self.history = history
        self.expenses = expenses
    }
}
