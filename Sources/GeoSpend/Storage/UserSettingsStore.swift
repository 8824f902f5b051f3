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

/// Settings as a read scope hands them out (every `ExpenseReader` is one). A store that keeps
/// none finds none.
public protocol UserSettingsReader {
    /// `UserSettingsStore.userSettings(userID:)`, in the scope's snapshot.
    func userSettings(userID: String) throws -> UserSettings?
    /// `UserSettingsStore.positionRetentions()`, in the scope's snapshot.
    func positionRetentions() throws -> [(userID: String, days: Int)]
}

/// A backend's settings reads are its read scope's (written once, in its reader).
extension UserSettingsStore where Self: ExpenseStore {
    public func userSettings(userID: String) async throws -> UserSettings? { try await read { try $0.userSettings(userID: userID) } }
    public func positionRetentions() async throws -> [(userID: String, days: Int)] { try await read { try $0.positionRetentions() } }
}

extension UserSettingsStore {
    /// The zone the user's bare dates are days of: their setting, else `fallback` (the CLI:
    /// this machine's zone; the service: UTC). An option or parameter naming a zone comes first;
    /// callers check it before asking.
    public func timeZone(of userID: String, else fallback: TimeZone) async throws -> TimeZone {
        try await userSettings(userID: Identity.normalized(userID))?.zone ?? fallback
    }
}
