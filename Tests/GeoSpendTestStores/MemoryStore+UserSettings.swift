import GeoSpend

/// A user's settings, with the file's rules (Sources/GeoSpendSpatiaLite/UserSettingsStorage.swift):
/// only for a user who exists; settings of every default are no row.
extension MemoryStore: UserSettingsStore {
    public func setUserSettings(_ settings: UserSettings, userID: String) async throws -> Bool {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard state.users.contains(user) else { return false }
            state.settings[user] = settings.isDefault ? nil : settings
            return true
        }
    }
}

extension MemoryReader {
    func userSettings(userID: String) throws -> UserSettings? {
        let user = ExactText(Identity.normalized(userID))
        guard state.users.contains(user) else { return nil }
        return state.settings[user] ?? UserSettings()
    }

    /// The users with a retention, by id (bytes).
    func positionRetentions() throws -> [(userID: String, days: Int)] {
        state.settings.compactMap { user, s in s.positionRetentionDays.map { (userID: user.text, days: $0) } }
            .sorted { byBytes($0.userID, $1.userID) }
    }
}
