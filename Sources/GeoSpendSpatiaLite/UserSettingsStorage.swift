import GeoSpend
import GRDB

/// The table behind `UserSettingsStore` (migration v19): one row per user who chose something
/// (a row of defaults is deleted, not kept), keyed by the user with cascading keys, so `users
/// delete` (which finds tables by their user keys) and `doctor --repair`'s NFC renaming reach
/// it. The CHECKs repeat `UserSettings`'s bounds, so no other writer stores what GeoSpend would
/// refuse.
enum UserSettingsSchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE user_settings (
                user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
                time_zone TEXT CHECK (length(time_zone) BETWEEN 1 AND 200),
                position_retention_days INTEGER CHECK (position_retention_days BETWEEN 1 AND 36500),
                CHECK (time_zone IS NOT NULL OR position_retention_days IS NOT NULL)
            );
            """)
    }

    /// The user's row, as `UserSettings`; defaults when there is none.
    static func settings(_ db: Database, user: String) throws -> UserSettings {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT time_zone, position_retention_days FROM user_settings WHERE user_id = ?", arguments: [user])
        else { return UserSettings() }
        return UserSettings(storedTimeZone: row[0], positionRetentionDays: row[1])
    }
}

extension SpatiaLiteStore: UserSettingsStore {
    public func setUserSettings(_ settings: UserSettings, userID: String) async throws -> Bool {
        let user = Identity.normalized(userID)
        return try await writeTransaction { db in
            guard try Self.userExists(db, user) else { return false }
            if settings.isDefault {
                try db.execute(sql: "DELETE FROM user_settings WHERE user_id = ?", arguments: [user])
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO user_settings (user_id, time_zone, position_retention_days) VALUES (?1, ?2, ?3)
                        ON CONFLICT (user_id) DO UPDATE SET time_zone = ?2, position_retention_days = ?3
                        """,
                    arguments: [user, settings.timeZone, settings.positionRetentionDays])
            }
            return true
        }
    }

    static func userExists(_ db: Database, _ user: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)", arguments: [user]) == true
    }
}

/// The settings reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: UserSettingsReader {
    public func userSettings(userID: String) throws -> UserSettings? {
        let user = Identity.normalized(userID)
        guard try SpatiaLiteStore.userExists(db, user) else { return nil }
        return try UserSettingsSchema.settings(db, user: user)
    }

    public func positionRetentions() throws -> [(userID: String, days: Int)] {
        try Row.fetchAll(db, sql: """
            SELECT user_id, position_retention_days FROM user_settings WHERE position_retention_days IS NOT NULL ORDER BY user_id
            """).map { (userID: $0[0] as String, days: $0[1] as Int) }
    }
}
