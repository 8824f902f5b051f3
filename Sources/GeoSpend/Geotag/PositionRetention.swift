import Foundation

/// A user's retention (`UserSettings.positionRetentionDays`) applied: their positions, and the
/// visits that started, older than that many days go, through `PositionStore.deletePositions`
/// (the same no-trace deletion as `positions delete`). It runs after every history import
/// (CLI and service), when a retention is set, from `geospend positions prune` (cron) and in
/// `geospend serve` at start and hourly (docs/RELIABILITY.md § 10).
///
/// ```swift
/// let pruned = try await PositionRetention.apply(userID: "ann", in: store, now: PositionRetention.now())
/// ```
public enum PositionRetention {
    /// One user's retention applied.
    public struct Pruned: Sendable, Hashable {
        public let userID: String
        public let days: Int
        /// The first instant kept (epoch milliseconds): rows before it went.
        public let before: Int64
        public let deleted: PositionDeletion
    }

    /// Milliseconds in a retention day: 24 hours (a day is not a local day here: the history's
    /// instants are UTC, and a retention of a year need not know the user's zone).
    static let day: Int64 = 86_400_000

    /// The clock, in epoch milliseconds.
    public static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// `now` less `days` days; the earliest instant when that is before it.
    public static func cutoff(days: Int, now: Int64) -> Int64 {
        let (span, spanOverflow) = Int64(clamping: days).multipliedReportingOverflow(by: day)
        guard !spanOverflow else { return .min }
        let (cutoff, overflow) = now.subtractingReportingOverflow(span)
        return overflow ? .min : cutoff
    }

    /// Applies the user's retention; nil when they keep their history (no retention, or no user).
    /// - Complexity: two deletions over one range of the history's keys.
    public static func apply(
        userID: String, in store: any PositionStore & UserSettingsStore, now: Int64
    ) async throws -> Pruned? {
        let user = Identity.normalized(userID)
        guard let days = try await store.userSettings(userID: user)?.positionRetentionDays else { return nil }
        return try await prune(user, days: days, in: store, now: now)
    }

    /// Applies every user's retention (or `userID`'s alone), by user id.
    public static func applyAll(
        userID: String? = nil, in store: any PositionStore & UserSettingsStore, now: Int64
    ) async throws -> [Pruned] {
        let user = userID.map(Identity.normalized)
        var pruned: [Pruned] = []
        for (id, days) in try await store.positionRetentions() where user == nil || id == user {
            try Task.checkCancellation()  // the service stops between users, not inside a deletion
            pruned.append(try await prune(id, days: days, in: store, now: now))
        }
        return pruned
    }

    private static func prune(_ user: String, days: Int, in store: any PositionStore, now: Int64) async throws -> Pruned {
        let before = cutoff(days: days, now: now)
        return Pruned(userID: user, days: days, before: before, deleted: try await store.deletePositions(userID: user, before: before))
    }
}
