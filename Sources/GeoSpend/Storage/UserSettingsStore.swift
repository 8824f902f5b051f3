import Foundation

/// Each user's settings (`UserSettings`): one row per user who chose something, keyed by the
/// user, so `users export` writes it and `users delete` removes it with the rest.
///
/// ```swift
/// try await store.setUserSettings(try UserSettings(timeZone: "Europe/Helsinki", positionRetentionDays: 365), userID: "ann")
/// let zone = try await store.timeZone(of: "ann", else: .current)
/// ```
public protocol UserSettingsStore: Sendable {
    /// The user's settings (all defaults when they chose nothing); nil when there is no such user.
    func userSettings(userID: String) async throws -> UserSettings?

    /// Replaces the user's settings (defaults: the row goes). One transaction.
    /// - Returns: false when there is no such user (nothing written).
    func setUserSettings(_ settings: UserSettings, userID: String) async throws -> Bool

    /// Every user who set a retention, with its days, by user id (`PositionRetention.applyAll`).
    func positionRetentions() async throws -> [(userID: String, days: Int)]
}

extension UserSettingsStore {
    /// The zone the user's bare dates are days of: their setting, else `fallback` (the CLI:
    /// this machine's zone; the service: UTC). An option or parameter naming a zone comes first;
    /// callers check it before asking.
    public func timeZone(of userID: String, else fallback: TimeZone) async throws -> TimeZone {
        try await userSettings(userID: Identity.normalized(userID))?.zone ?? fallback
    }
}
