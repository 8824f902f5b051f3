import Foundation

/// Something that happened to a user's data or time that GeoSpend tells them about (issue 39):
/// a budget threshold crossed, a reminder due, an import finished. Raised into the outbox
/// (`notification_events`) in the same transaction as the change that raised it, once per `key`
/// and user; delivered from there by webhooks and read by apps from the pull feed.
///
/// ```json
/// {"id":"evt_5f0c…","type":"budget.threshold","created_at":"2026-03-05T10:00:00.000Z","user":"alice",
///  "data":{"budget_id":1,"threshold":80,"percentage_used":85.5,…}}
/// ```
public struct NotificationEvent: Sendable, Hashable {
    /// The outbox's order (keyset paging): grows with every event raised.
    public let sequence: Int64
    /// `evt_` and 24 hex digits: the receivers' idempotency key, the same in every attempt.
    public let id: String
    public let userID: String
    public let type: String
    /// `YYYY-MM-DDTHH:MM:SS.sssZ`, the store's clock when the event was raised.
    public let createdAt: String
    /// The event's `data`, a JSON object as text (kept as raised, so every attempt sends the same bytes).
    public let payload: String
    /// When the user's app marked it read; nil while unread.
    public let readAt: String?

    public init(sequence: Int64, id: String, userID: String, type: String, createdAt: String, payload: String, readAt: String?) {
        self.sequence = sequence
        self.id = id
        self.userID = userID
        self.type = type
        self.createdAt = createdAt
        self.payload = payload
        self.readAt = readAt
    }

    /// The webhook body and the feed's item: `{"id","type","created_at","user","data"}`, one line.
    public var body: String {
        "{\"id\":\(Self.quoted(id)),\"type\":\(Self.quoted(type)),\"created_at\":\(Self.quoted(createdAt)),\"user\":\(Self.quoted(userID)),\"data\":\(payload)}"
    }

    /// The feed's item: `body`'s members and `read_at` (JSONOutput cannot hold raw text, so as text).
    public var feedItem: String {
        String(body.dropLast()) + ",\"sequence\":\(sequence),\"read_at\":\(readAt.map(Self.quoted) ?? "null")}"
    }

    static func quoted(_ s: String) -> String { JSONOutput.string(s).serialized(pretty: false) }

    /// A new event id: `evt_` and 24 random hex digits.
    public static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        return "evt_" + (0..<3).map { _ in
            let word: UInt64 = g.next() & 0xFFFF_FFFF
            return String(word, radix: 16).leftPadded(to: 8)
        }.joined()
    }
}

/// An event to raise: who, what, its data, and the key that makes it happen once (a second
/// event of the same user and key is not raised).
public struct NewNotificationEvent: Sendable, Hashable {
    public let userID: String
    public let type: String
    /// Unique per user: `budget:3:2026-03-01:80` — budget 3's March window crossed 80 %.
    public let key: String
    public let payload: String

    public init(userID: String, type: String, key: String, payload: JSONOutput) {
        self.userID = userID
        self.type = type
        self.key = key
        self.payload = payload.serialized(pretty: false)
    }
}

/// The event types GeoSpend raises (`webhooks add --events`).
public enum NotificationType {
    /// A budget's spending in its window reached a threshold (80 %, 100 %).
    public static let budgetThreshold = "budget.threshold"
    /// A zone budget's (a budget for a place) threshold reached by an expense placed in the zone.
    public static let zoneBudgetThreshold = "zone_budget.threshold"
    /// An expense's reminder is due (`notifications run`, the service's scheduler).
    public static let reminderDue = "expense.reminder_due"
    /// An import wrote expenses for the user (`data.inserted`: how many).
    public static let importFinished = "import.finished"
    /// A geotag run left expenses for the user to review (`GeotagReviewEvent`; counts and ids only).
    public static let geotagReviewWaiting = "geotag.review_waiting"
    /// A `webhooks test` delivery.
    public static let test = "webhook.test"

    /// An open pantry item expires in 2 days (`PantryExpiry`).
    public static let pantryExpiring = "pantry.expiring"
    /// A product the user buys regularly is due again (`PurchasePrediction`).
    public static let purchasePredicted = "purchase.predicted"

    public static let all = [budgetThreshold, zoneBudgetThreshold, reminderDue, importFinished, geotagReviewWaiting, test, pantryExpiring, purchasePredicted]
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: Swift.max(0, width - count)) + self }
}
