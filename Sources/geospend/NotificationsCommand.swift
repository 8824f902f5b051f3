import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendService

/// `geospend notifications`: the outbox's events (issue 39) for people and cron.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Notifications: the events raised for a user, and a cron pass.",
        discussion: """
            GeoSpend raises an event once when a budget's spending reaches 80 % or
            100 % of its window (an expense added, edited or imported), and when an
            expense's reminder is due. `geospend serve` delivers them to webhooks
            and raises reminders every minute; without a server, run
            `geospend notifications run` from cron.

            Example:
              geospend notifications list --user alice
              geospend notifications run --as-of 2025-03-05T09:00:00+01:00
            """,
        subcommands: [List.self, Run.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's events, oldest first (the pull feed).",
            usage: """
                geospend notifications list --user <user> [--after <seq>] [--unread]
                  [--limit <n>] [--format <format>] [--db <db>]
                """,
            discussion: """
                --after takes the sequence of the last one seen (the feed's keyset).

                Example:
                  geospend notifications list --user alice --unread --format json
                """)
        enum Format: String, ExpressibleByArgument { case table, json }
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "Only events after this sequence.") var after: Int64?
        @Flag(help: "Only unread events.") var unread = false
        @Option(help: "At most this many (default 100).") var limit = 100
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openEditing()
            try await NameChecks.user(user, in: store, database: database.path)
            let events = try await store.notifications(
                userID: Identity.normalized(user), after: after, limit: max(1, min(limit, 10_000)), unreadOnly: unread)
            switch format {
            case .json: printOut("[" + events.map(\.feedItem).joined(separator: ",\n") + "]\n")
            case .table:
                printOut(TextTable(
                    headers: ["seq", "created", "type", "id", "read"],
                    rows: events.map { [String($0.sequence), $0.createdAt, $0.type, $0.id, $0.readAt == nil ? "no" : "yes"] },
                    rightAligned: [0]
                ).rendered())
            }
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Raise the events due and deliver what is due to webhooks, once.",
            usage: """
                geospend notifications run [--as-of <instant>] [--allow-private-webhooks]
                  [--db <db>]
                """,
            discussion: """
                For cron users of the CLI (`geospend serve` does this by itself):
                raises reminders due at --as-of (default now), then attempts every
                webhook delivery due; failed attempts are tried at a later run, for
                24 hours. Prints what it did.

                Example:
                  geospend notifications run
                  geospend notifications run --as-of 2025-03-05T09:00:00+01:00
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "An RFC 3339 instant with offset (default: now).") var asOf: String?
        @Flag(help: "Allow webhooks at loopback and private addresses.") var allowPrivateWebhooks = false

        func run() async throws {
            let instant: Timestamp
            if let asOf {
                instant = try Parse.timestamp(asOf, option: "--as-of")!
                guard !instant.isDateOnly else {
                    throw ValidationError("--as-of: \"\(asOf)\" is a date; give a time and offset: \(asOf)T09:00:00+01:00")
                }
            } else {
                instant = Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970), utcOffsetMinutes: 0)
            }
            let store = try await database.openEditing(writable: true)
            let raised = try await NotificationRun.raiseDue(in: store, asOf: instant)
            let deliverer = WebhookDeliverer(
                store: store, settings: WebhookSettings(allowPrivate: allowPrivateWebhooks), logger: .init(label: "geospend"))
            let result: WebhookDeliverer.PassResult
            do { result = try await deliverer.deliverDue() } catch {
                await deliverer.shutdown()
                throw error
            }
            await deliverer.shutdown()
            printOut("raised \(raised.count) events; deliveries: \(result.delivered) delivered, \(result.retried) to retry, \(result.failed) failed\n")
        }
    }
}
