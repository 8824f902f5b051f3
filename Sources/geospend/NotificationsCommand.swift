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
        subcommands: [List.self, Run.self, Settings.self])

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
            let store = try await database.openBackend()
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
            let instant = try Parse.asOf(asOf)
            let store = try await database.openBackend(writable: true)
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

    struct Settings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show or set which events a user gets, quiet hours, a reminder lead.",
            usage: """
                geospend notifications settings --user <user> [--events <types>|all]
                  [--quiet-hours <HH:MM-HH:MM>|none] [--reminder-lead-minutes <n>]
                  [--format <format>] [--db <db>]
                """,
            discussion: """
                --events: the types raised for the user (comma-separated; all: every
                type). --quiet-hours: deliveries that would start in this span of the
                user's day (their `users settings --timezone`, else UTC) wait until it
                ends; the feed has the events at once. --reminder-lead-minutes: raise
                expense.reminder_due that many minutes before the reminder's time
                (0 to 10080). Without these options the settings are shown.

                Example:
                  geospend notifications settings --user alice --quiet-hours 22:00-07:00
                  geospend notifications settings --user alice \\
                      --events budget.threshold,zone_budget.threshold --format json
                """)
        enum Format: String, ExpressibleByArgument { case table, json }
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: ArgumentHelp("Event types, comma-separated, or all.", valueName: "types")) var events: String?
        @Option(help: ArgumentHelp("Hold deliveries in this span of the user's day, or none.", valueName: "HH:MM-HH:MM"))
        var quietHours: String?
        @Option(help: ArgumentHelp("Raise reminders this many minutes early (0 to 10080).", valueName: "n")) var reminderLeadMinutes: Int?
        @Option(help: "table or json.") var format: Format = .table

        func validate() throws { _ = try change(NotificationSettings()) }

        func change(_ current: NotificationSettings) throws -> NotificationSettings {
            var s = current
            if let events {
                let types = events == "all" ? [] : events.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                for t in types where !NotificationType.all.contains(t) {
                    throw ValidationError("--events \(t): not an event type; give some of \(NotificationType.all.joined(separator: ", ")), or all")
                }
                s.events = Array(Set(types)).sorted()
            }
            if let quietHours {
                if quietHours == "none" { s.quietHours = nil } else {
                    guard let q = NotificationSettings.QuietHours(parsing: quietHours) else {
                        throw ValidationError("--quiet-hours \(quietHours): give HH:MM-HH:MM in 24-hour time, e.g. 22:00-07:00, or none")
                    }
                    s.quietHours = q
                }
            }
            if let reminderLeadMinutes {
                guard NotificationSettings.leadRange.contains(reminderLeadMinutes) else {
                    throw ValidationError("--reminder-lead-minutes \(reminderLeadMinutes): give 0 to 10080 (a week)")
                }
                s.reminderLeadMinutes = reminderLeadMinutes
            }
            return s
        }

        func run() async throws {
            let changing = events != nil || quietHours != nil || reminderLeadMinutes != nil
            let store = try await database.openBackend(writable: changing)
            let id = Identity.normalized(user)
            try await NameChecks.user(id, in: store, database: database.path)
            guard var settings = try await store.notificationSettings(userID: id) else { throw UsageError("no user \"\(OutputEscaping.visible(id))\"") }
            if changing {
                settings = try change(settings)
                guard try await store.setNotificationSettings(settings, userID: id) else { throw UsageError("no user \"\(OutputEscaping.visible(id))\"") }
            }
            switch format {
            case .json: printOut(settings.json.serialized() + "\n")
            case .table:
                printOut(TextTable(headers: ["setting", "value"], rows: [
                    ["events", settings.events.isEmpty ? "all" : settings.events.joined(separator: ",")],
                    ["quiet hours", settings.quietHours?.description ?? "none"],
                    ["reminder lead", "\(settings.reminderLeadMinutes) minutes"],
                ]).rendered())
            }
        }
    }
}
