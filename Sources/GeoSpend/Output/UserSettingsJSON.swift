/// A user's settings as `geospend users settings --format json` prints them, the service returns
/// them (`/api/v1/users/me/settings`) and `users export` writes them (`settings`): one shape.
///
/// ```json
/// {"time_zone":"Europe/Helsinki","position_retention_days":365}
/// ```
public enum UserSettingsJSON {
    /// The keys, in order; a PUT body takes these.
    public static let keys = ["time_zone", "position_retention_days"]

    public static func object(_ s: UserSettings) -> JSONOutput {
        .object([
            ("time_zone", .text(s.timeZone)),
            ("position_retention_days", s.positionRetentionDays.map { .integer(Int64($0)) } ?? .null),
        ])
    }
}
