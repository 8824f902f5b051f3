import Foundation

/// A user's webhook subscription (`geospend webhooks add`): where to POST their events, which
/// types (empty: all), and the secret that signs each delivery (`WebhookSignature`). The secret
/// is shown once, when the webhook is added; listings and `users export` leave it out.
public struct Webhook: Sendable, Hashable {
    /// `wh_` and 16 hex digits, random: ids numbered per store would tell one user how many
    /// webhooks others have.
    public let id: String
    public let userID: String
    public let url: String
    /// The event types delivered (`NotificationType`); empty: every type.
    public let events: [String]
    /// `whsec_` and 48 hex digits; nil when read back for a listing.
    public let secret: String?
    public let createdAt: String

    public init(id: String, userID: String, url: String, events: [String], secret: String?, createdAt: String) {
        self.id = id
        self.userID = userID
        self.url = url
        self.events = events
        self.secret = secret
        self.createdAt = createdAt
    }

    /// Whether events of `type` go to this webhook.
    public func wants(_ type: String) -> Bool { events.isEmpty || events.contains(type) }

    /// A new webhook for `userID` with a fresh id and secret, after checking `url` and `events`.
    /// - Throws: `ValueError.invalid` naming what is wrong and what to give instead.
    public static func new(userID: String, url: String, events: [String]) throws(ValueError) -> Webhook {
        try WebhookURL.check(url)
        for e in events where !NotificationType.all.contains(e) {
            throw .invalidValue(e, reason: "is not an event type (--events); give some of \(NotificationType.all.joined(separator: ", "))")
        }
        return Webhook(
            id: "wh_" + randomHex(8), userID: userID, url: url, events: Array(Set(events)).sorted(), secret: "whsec_" + randomHex(24),
            createdAt: "")
    }

    static func randomHex(_ bytes: Int) -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let b = UInt8.random(in: 0...255, using: &g)
            return String(b >> 4, radix: 16) + String(b & 15, radix: 16)
        }.joined()
    }

    public var json: JSONOutput {
        .object([
            ("id", .string(id)), ("url", .string(url)), ("events", .array(events.map(JSONOutput.string))), ("created_at", .string(createdAt)),
        ])
    }
}

/// What a webhook URL may be: http or https with a host, no user name or password in it, at
/// most 2,000 characters. Where it points is checked when it is delivered to
/// (`WebhookAddressPolicy`, in the service), since a name can resolve differently later.
public enum WebhookURL {
    public static func check(_ text: String) throws(ValueError) {
        guard text.count <= 2000, let c = URLComponents(string: text), let scheme = c.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = c.host, !host.isEmpty
        else {
            throw .invalidValue(text, reason: "is not an http(s) URL with a host (--url); give e.g. https://example.org/hooks/geospend")
        }
        if c.user != nil || c.password != nil {
            throw .invalidValue(text, reason: "holds a user name or password (--url); keep secrets out of the URL")
        }
    }
}

/// One event's delivery to one webhook: pending until a 2xx answer (`delivered`), retried with
/// exponential backoff, `failed` when the retry window (24 h) is over.
public struct WebhookDelivery: Sendable, Hashable {
    public enum Status: String, Sendable { case pending, delivered, failed }

    public let id: Int64
    public let webhookID: String
    public let eventID: String
    public let eventType: String
    public let status: Status
    public let attempts: Int
    /// Each attempt: `2026-03-05T10:00:00.000Z 500` or `… error: connection refused`.
    public let attemptLog: [String]
    public let createdAt: String
    /// When the next attempt is due (pending only), milliseconds since 1970.
    public let nextAttemptMilliseconds: Int64?

    public init(
        id: Int64, webhookID: String, eventID: String, eventType: String, status: Status, attempts: Int, attemptLog: [String],
        createdAt: String, nextAttemptMilliseconds: Int64?
    ) {
        self.id = id
        self.webhookID = webhookID
        self.eventID = eventID
        self.eventType = eventType
        self.status = status
        self.attempts = attempts
        self.attemptLog = attemptLog
        self.createdAt = createdAt
        self.nextAttemptMilliseconds = nextAttemptMilliseconds
    }

    public var json: JSONOutput {
        .object([
            ("id", .integer(id)), ("webhook_id", .string(webhookID)), ("event_id", .string(eventID)), ("type", .string(eventType)),
            ("status", .string(status.rawValue)), ("attempts", .integer(Int64(attempts))),
            ("attempt_log", .array(attemptLog.map(JSONOutput.string))), ("created_at", .string(createdAt)),
        ])
    }
}

/// A delivery the worker is to attempt now: where, with which secret, what body.
public struct DueDelivery: Sendable, Hashable {
    public let id: Int64
    public let url: String
    public let secret: String
    public let event: NotificationEvent
    public let attempts: Int
    /// When the delivery was created (the retry window starts there), milliseconds since 1970.
    public let createdMilliseconds: Int64

    public init(id: Int64, url: String, secret: String, event: NotificationEvent, attempts: Int, createdMilliseconds: Int64) {
        self.id = id
        self.url = url
        self.secret = secret
        self.event = event
        self.attempts = attempts
        self.createdMilliseconds = createdMilliseconds
    }
}

/// When a failed attempt is tried again: 1 s, 2 s, 4 s, … doubling to at most an hour, for
/// `window` (24 h) after the delivery was created; then the delivery is failed.
public struct RetrySchedule: Sendable, Hashable {
    public var firstDelayMilliseconds: Int64
    public var maxDelayMilliseconds: Int64
    public var windowMilliseconds: Int64

    public init(firstDelayMilliseconds: Int64 = 1000, maxDelayMilliseconds: Int64 = 3_600_000, windowMilliseconds: Int64 = 86_400_000) {
        self.firstDelayMilliseconds = firstDelayMilliseconds
        self.maxDelayMilliseconds = maxDelayMilliseconds
        self.windowMilliseconds = windowMilliseconds
    }

    /// When attempt `attempts + 1` is due after `attempts` failed ones; nil: give up.
    public func next(after attempts: Int, now: Int64, created: Int64) -> Int64? {
        let shift = min(max(attempts - 1, 0), 40)
        let delay = min(maxDelayMilliseconds, firstDelayMilliseconds << Int64(shift))
        let at = now + delay
        return at > created + windowMilliseconds ? nil : at
    }
}

/// What one attempt came to, as the worker records it.
public enum AttemptOutcome: Sendable, Hashable {
    case delivered
    /// Tried again at this instant (ms since 1970).
    case retry(at: Int64)
    case failed
}
