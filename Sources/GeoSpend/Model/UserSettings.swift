import Foundation

/// What a user chose for themselves (`geospend users settings`, `/api/v1/users/me/settings`):
/// the time zone their bare dates are days of, and how long their location history is kept.
///
/// ```swift
/// let settings = try UserSettings(timeZone: "Europe/Helsinki", positionRetentionDays: 365)
/// try await store.setUserSettings(settings, userID: "ann")
/// ```
public struct UserSettings: Sendable, Hashable {
    /// An IANA time zone id (`TimeZone(identifier:)` knows it); nil: the caller's default
    /// (the CLI: this machine's zone; the service: UTC).
    public let timeZone: String?
    /// Positions and visits older than this many days are deleted (`PositionRetention`); nil:
    /// kept until deleted by hand.
    public let positionRetentionDays: Int?

    /// The days a retention may be: at least one, at most a hundred years.
    public static let retentionDays = 1...36_500

    /// Nothing chosen: every setting at its default.
    public init() {
        timeZone = nil
        positionRetentionDays = nil
    }

    /// Checks both values.
    /// - Throws: `UserSettings.Invalid` naming the setting (`time_zone` or
    ///   `position_retention_days`); callers name their own option or field instead.
    public init(timeZone: String?, positionRetentionDays: Int?) throws(Invalid) {
        if let timeZone {
            guard Self.zone(named: timeZone) != nil else {
                throw Invalid(setting: "time_zone", reason: "\"\(OutputEscaping.visible(timeZone))\" is not an IANA time zone name (e.g. Europe/Helsinki, America/New_York)")
            }
            // As given: Foundation names UTC's zone "GMT", which is not what the user chose.
            self.timeZone = timeZone
        } else {
            self.timeZone = nil
        }
        if let days = positionRetentionDays, !Self.retentionDays.contains(days) {
            throw Invalid(setting: "position_retention_days", reason: "\(days) is not a number of days from 1 to \(Self.retentionDays.upperBound)")
        }
        self.positionRetentionDays = positionRetentionDays
    }

    /// As stored, unchecked: a store reads back what `init(timeZone:positionRetentionDays:)` let through.
    public init(storedTimeZone: String?, positionRetentionDays: Int?) {
        self.timeZone = storedTimeZone
        self.positionRetentionDays = positionRetentionDays
    }

    /// The stored zone; nil when none is set (or this system's time zone data no longer has it).
    public var zone: TimeZone? { timeZone.flatMap(Self.zone(named:)) }

    /// A zone by IANA name (`TimeZone(identifier:)`): the one check every `--timezone` option,
    /// `timezone` parameter and stored setting goes through.
    public static func zone(named name: String) -> TimeZone? {
        // Foundation reads an empty or NUL-holding name as nothing or as GMT: neither is a zone the user named.
        guard !name.isEmpty, !name.utf8.contains(0) else { return nil }
        return TimeZone(identifier: name)
    }

    /// Whether nothing is chosen (a store then keeps no row).
    public var isDefault: Bool { timeZone == nil && positionRetentionDays == nil }

    /// A value a setting cannot take.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// `time_zone` or `position_retention_days`.
        public let setting: String
        public let reason: String
        public var description: String { reason }
    }
}
