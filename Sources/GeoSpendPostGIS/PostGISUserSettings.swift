import GeoSpend
import PostgresNIO

/// Each user's settings on PostgreSQL (migration v9, `PostGISSchema.userSettings`), with the
/// file's rules (Sources/GeoSpendSpatiaLite/UserSettingsStorage.swift): a row only for a user who
/// chose something; a write under the writers' lock, in one transaction.
extension PostGISStore: UserSettingsStore {
    public func setUserSettings(_ settings: UserSettings, userID: String) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await editing { r in
            guard try r.hasUser(user) else { return false }
            if settings.isDefault {
                _ = try r.rows("DELETE FROM user_settings WHERE user_id = \(user)")
            } else {
                let days = settings.positionRetentionDays.map(Int64.init)
                _ = try r.rows("""
                    INSERT INTO user_settings (user_id, time_zone, position_retention_days) VALUES (\(user), \(settings.timeZone), \(days))
                    ON CONFLICT (user_id) DO UPDATE SET time_zone = EXCLUDED.time_zone, position_retention_days = EXCLUDED.position_retention_days
                    """)
            }
            return true
        }
    }

    /// The user's row, as `UserSettings`; defaults when there is none.
    static func settings(_ r: PostGISReader, user: String) throws -> UserSettings {
        guard let row = try r.rows("""
            SELECT time_zone, position_retention_days::bigint FROM user_settings WHERE user_id = \(user)
            """).first
        else { return UserSettings() }
        let (zone, days) = try row.decode((String?, Int64?).self)
        return UserSettings(storedTimeZone: zone, positionRetentionDays: days.map { Int($0) })
    }
}

/// The settings reads of a read scope, on its connection and snapshot.
extension PostGISReader: UserSettingsReader {
    func userSettings(userID: String) throws -> UserSettings? {
        let user = Identity.normalized(userID)
        guard try hasUser(user) else { return nil }
        return try PostGISStore.settings(self, user: user)
    }

    func positionRetentions() throws -> [(userID: String, days: Int)] {
        try rows("""
            SELECT user_id, position_retention_days::bigint FROM user_settings WHERE position_retention_days IS NOT NULL
            ORDER BY user_id COLLATE "C"
            """).map { row in
            let (user, days) = try row.decode((String, Int64).self)
            return (userID: user, days: Int(days))
        }
    }
}
