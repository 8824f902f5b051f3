import Foundation

/// A user's choices about notifications (`geospend notifications settings`, issue 39): which
/// event types are raised for them (empty: all), quiet hours in their time zone (`users settings
/// --timezone`, else UTC) during which deliveries wait, and how long before an expense's
/// reminder time its `expense.reminder_due` is raised.
public struct NotificationSettings: Sendable, Hashable {
    /// Minutes after local midnight: deliveries made from `start` wait until `end` (across
    /// midnight when `start > end`, e.g. 22:00-07:00).
    public struct QuietHours: Sendable, Hashable, CustomStringConvertible {
        public let startMinute: Int
        public let endMinute: Int

        public init(startMinute: Int, endMinute: Int) {
            self.startMinute = startMinute
            self.endMinute = endMinute
        }

        /// Parses `HH:MM-HH:MM`; nil for anything else (or an empty span).
        public init?(parsing text: String) {
            let parts = text.split(separator: "-")
            guard parts.count == 2, let a = Self.minute(parts[0]), let b = Self.minute(parts[1]), a != b else { return nil }
            self.init(startMinute: a, endMinute: b)
        }

        static func minute(_ text: Substring) -> Int? {
            let hm = text.split(separator: ":")
            guard hm.count == 2, hm[0].count == 2, hm[1].count == 2, let h = Int(hm[0]), let m = Int(hm[1]), (0..<24).contains(h), (0..<60).contains(m)
            else { return nil }
            return h * 60 + m
        }

        public var description: String {
            func hm(_ m: Int) -> String { String(format: "%02d:%02d", m / 60, m % 60) }
            return "\(hm(startMinute))-\(hm(endMinute))"
        }

        /// When the quiet period holding `now` ends (ms since 1970), or nil when `now` is not in one.
        public func end(after now: Int64, in zone: TimeZone) -> Int64? {
            let date = Date(timeIntervalSince1970: Double(now) / 1000)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let c = calendar.dateComponents([.hour, .minute], from: date)
            let minute = (c.hour ?? 0) * 60 + (c.minute ?? 0)
            let inside = startMinute < endMinute ? (startMinute..<endMinute).contains(minute) : (minute >= startMinute || minute < endMinute)
            guard inside else { return nil }
            let wait = (endMinute - minute + 1440) % 1440
            let startOfMinute = calendar.date(bySetting: .second, value: 0, of: date) ?? date
            let end = startOfMinute.addingTimeInterval(Double(wait) * 60)
            return Int64(end.timeIntervalSince1970 * 1000)
        }
    }

    /// Types raised for the user (`NotificationType`); empty: every type.
    public var events: [String]
    public var quietHours: QuietHours?
    /// `expense.reminder_due` this many minutes before the reminder's time (0 to 10,080: a week).
    public var reminderLeadMinutes: Int

    public static let leadRange = 0...10_080

    public init(events: [String] = [], quietHours: QuietHours? = nil, reminderLeadMinutes: Int = 0) {
        self.events = events
        self.quietHours = quietHours
        self.reminderLeadMinutes = reminderLeadMinutes
    }

    public var isDefault: Bool { self == NotificationSettings() }

    /// Whether events of `type` are raised for the user.
    public func allows(_ type: String) -> Bool { events.isEmpty || events.contains(type) }

    public var json: JSONOutput {
        .object([
            ("events", .array(events.map(JSONOutput.string))), ("quiet_hours", quietHours.map { .string($0.description) } ?? .null),
            ("reminder_lead_minutes", .integer(Int64(reminderLeadMinutes))),
        ])
    }
}
