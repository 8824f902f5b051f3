/// Migration v9: each user's settings (`UserSettingsStore`), the table of the file's migration
/// v19 (Sources/GeoSpendSpatiaLite/UserSettingsStorage.swift) with the same key and CHECKs: one
/// row per user who chose something, keyed by `user_id` (Citus: distributed by user, colocated
/// with `users`), cascading from `users`.
extension PostGISSchema {
    static let userSettings = Migration(identifier: "v9: user settings", sql: """
        CREATE TABLE user_settings (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            time_zone text CHECK (length(time_zone) BETWEEN 1 AND 200),
            position_retention_days integer CHECK (position_retention_days BETWEEN 1 AND 36500),
            CHECK (time_zone IS NOT NULL OR position_retention_days IS NOT NULL)
        );
        """)
}
